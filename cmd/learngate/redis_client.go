package main

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"learngate/config"
)

// redisTimeout bounds every Redis dial, read, write and wait for a pooled
// connection: a Redis outage must cost a request milliseconds, not seconds
// (the limiter fails open).
const redisTimeout = 250 * time.Millisecond

// newRedisClient connects to the Redis of LEARNGATE_REDIS_URL: one server
// (redis://, rediss://, unix://) or a Redis Cluster (redis+cluster://,
// rediss+cluster://), both failing fast (docs/reliability.md, R1).
func newRedisClient(rawURL string) (redis.UniversalClient, error) {
	target, err := config.ParseRedisURL(rawURL)
	if err != nil {
		return nil, err
	}
	if o := target.Cluster; o != nil {
		o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout = redisTimeout, redisTimeout, redisTimeout, redisTimeout
		o.MaxRetries, o.DialerRetries = -1, 1
		// A cluster client retries on MOVED/ASK (a slot moved, a master
		// failed over) and on network errors up to MaxRedirects times:
		// two let a request follow one move and still fail fast when a
		// master is gone.
		o.MaxRedirects = 2
		return redis.NewClusterClient(o), nil
	}
	o := target.Single
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout = redisTimeout, redisTimeout, redisTimeout, redisTimeout
	// No retries (go-redis reads 0 as its default of 3; -1 is none) and
	// one dial per attempt (it otherwise dials 5 times, 100 ms apart):
	// with both defaults a stopped Redis cost requests over a second
	// (docs/reliability.md, R1).
	o.MaxRetries, o.DialerRetries = -1, 1
	return redis.NewClient(o), nil
}

// pingRedis reports whether Redis answers: one server, or every shard of
// a Redis Cluster.
func pingRedis(ctx context.Context, client redis.UniversalClient) error {
	if cluster, ok := client.(*redis.ClusterClient); ok {
		return cluster.ForEachShard(ctx, func(ctx context.Context, shard *redis.Client) error {
			return shard.Ping(ctx).Err()
		})
	}
	return client.Ping(ctx).Err()
}
