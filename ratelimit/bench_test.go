package ratelimit

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
)

// benchKeys is how many tenants the benchmarks spread their checks over.
const benchKeys = 1024

// benchmarkAllow measures Allow on lim, serially on one key and in parallel
// over benchKeys keys, with a limit high enough that every check is allowed.
func benchmarkAllow(b *testing.B, lim *Limiter) {
	ctx := context.Background()
	const limit = 1 << 40
	keys := make([]string, benchKeys)
	for i := range keys {
		keys[i] = "tenant-" + strconv.Itoa(i)
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if res := lim.Allow(ctx, "serial", limit); !res.Allowed || res.FailedOpen {
				b.Fatalf("Allow = %+v", res)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		var next atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				key := keys[next.Add(1)%benchKeys]
				if res := lim.Allow(ctx, key, limit); !res.Allowed || res.FailedOpen {
					b.Errorf("Allow = %+v", res)
					return
				}
			}
		})
	})
}

func BenchmarkRedisAllow(b *testing.B) {
	client := mustRedisClient(b)
	benchmarkAllow(b, New(NewRedisStore(client, randomPrefix(b, client)), Options{}))
}

func BenchmarkMemoryAllow(b *testing.B) {
	benchmarkAllow(b, New(NewMemoryStore(nil), Options{}))
}
