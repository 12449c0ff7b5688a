//go:build slow

package handlers

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"learngate/handlers/httpx"
)

// worstBody is a request body that costs the most memory to decode, just
// under httpx.MaxBodyBytes, and the most the heap may grow over its baseline
// while memoryConcurrency of them are in flight.
type worstBody struct {
	name      string
	body      []byte
	maxGrowth int64
}

// worstBodies (docs/reliability.md, "Hostile and careless clients"): a
// field holding an array of ones (5 million values: refused by the value
// bound) and 10 MiB of nesting (refused by the depth bound), each bounded
// well under the process's 512 MiB target (docs/api.md, "Limits"); and
// the largest body within both bounds (100,000 strings of 100 bytes,
// decoded, then answered 400), which costs its 10 MiB and its decoded
// tree, three at a time (decodeBudgetBytes): 720 MiB before decoding was
// bounded, 420-480 MiB before the budget.
func worstBodies() []worstBody {
	ones := `{"user_name":[` + strings.Repeat("1,", (httpx.MaxBodyBytes-32)/2) + `1]}`
	deep := `{"user_name":` + strings.Repeat("[", httpx.MaxBodyBytes-32) + `}`
	item := `"` + strings.Repeat("a", 100) + `",`
	strs := `{"user_name":[` + strings.Repeat(item, httpx.MaxJSONValues-4) + `"a"]}`
	for _, b := range []string{ones, deep, strs} {
		if len(b) > httpx.MaxBodyBytes {
			panic("a worst body is over httpx.MaxBodyBytes")
		}
	}
	return []worstBody{
		{"5M ones", []byte(ones), 400 << 20},
		{"10 MiB of nesting", []byte(deep), 400 << 20},
		{"100k strings", []byte(strs), 400 << 20},
	}
}

// deployMemoryLimit is the GOMEMLIMIT that deploy/ gives the process.
const deployMemoryLimit = 400 << 20

// maxProcessHeap is the most heap the test process may reach: the
// container's 512 MiB less 64 MiB for stacks and the runtime.
const maxProcessHeap = 448 << 20

// memoryConcurrency is how many worst bodies are in flight at once.
const memoryConcurrency = 16

// TestBoundedDecodeMemory sends memoryConcurrency worst bodies at once
// through the real router, to POST /papi/users and POST
// /papi/users/batch_save, sampling the heap meanwhile: its peak must stay
// under the body's maxGrowth over the baseline. Before decoding was bounded one
// body of ones took about 200 MB.
func TestBoundedDecodeMemory(t *testing.T) {
	// As deploy/ runs the process: GOMEMLIMIT under the container's 512 MiB,
	// so the collector works harder before the heap, garbage included, nears it.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(deployMemoryLimit))
	e := newFuzzEnv(t)
	for _, worst := range worstBodies() {
		name, body := worst.name, worst.body
		for _, path := range []string{"/papi/users", "/papi/users/batch_save"} {
			runtime.GC()
			var base runtime.MemStats
			runtime.ReadMemStats(&base)
			var peak atomic.Uint64
			stop := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				var m runtime.MemStats
				for {
					runtime.ReadMemStats(&m)
					if m.HeapInuse > peak.Load() {
						peak.Store(m.HeapInuse)
					}
					select {
					case <-stop:
						return
					case <-time.After(2 * time.Millisecond):
					}
				}
			}()
			codes := make([]int, memoryConcurrency)
			var wg sync.WaitGroup
			for i := range memoryConcurrency {
				wg.Add(1)
				go func() {
					defer wg.Done()
					req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
					req.Host = e.ct.host
					req.RemoteAddr = "192.0.2.1:1234"
					req.Header.Set("Authorization", e.ct.key)
					req.Header.Set("Content-Type", "application/json")
					w := httptest.NewRecorder()
					e.raw.ServeHTTP(w, req)
					codes[i] = w.Code
					if w.Body.Len() > 1000 {
						t.Errorf("%s to %s: a %d-byte answer", name, path, w.Body.Len())
					}
				}()
			}
			wg.Wait()
			close(stop)
			<-sampled
			growth := int64(peak.Load()) - int64(base.HeapInuse)
			t.Logf("%d × %s to %s: heap grew %d MiB over %d MiB (first answer %d)", memoryConcurrency, name, path, growth>>20, base.HeapInuse>>20, codes[0])
			for _, code := range codes {
				// 503: a body that waited decodeWait for the decoding budget
				// (the race detector makes decoding ten times slower).
				if code != http.StatusRequestEntityTooLarge && code != http.StatusBadRequest && code != http.StatusServiceUnavailable {
					t.Errorf("%s to %s: status %d, want 413, 400 or 503", name, path, code)
				}
			}
			if peak.Load() > maxProcessHeap {
				t.Fatalf("%d × %s to %s: heap peaked at %d MiB, over %d MiB", memoryConcurrency, name, path, peak.Load()>>20, maxProcessHeap>>20)
			}
			if growth > worst.maxGrowth {
				t.Fatalf("%d × %s to %s: heap grew %d MiB, over %d MiB", memoryConcurrency, name, path, growth>>20, worst.maxGrowth>>20)
			}
		}
	}
}
