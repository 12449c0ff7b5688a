package tenant

import (
	"context"
	"sync"
	"time"

	"learngate"
	"learngate/store"
)

// maxCacheEntries bounds each cache map; a full map is emptied, so a flood
// of unknown hosts or wrong keys cannot grow memory without limit.
const maxCacheEntries = 50_000

// hostEntry is a cached host resolution; found is false for unknown hosts.
type hostEntry struct {
	tenant learngate.Tenant
	found  bool
}

// cache holds host resolutions and known API keys. epoch changes on every
// invalidation; a lookup that started before one does not store its result.
type cache struct {
	mu    sync.RWMutex
	epoch uint64
	hosts map[string]hostEntry
	keys  map[[32]byte]store.KeyRecord
}

func newCache() *cache {
	return &cache{hosts: map[string]hostEntry{}, keys: map[[32]byte]store.KeyRecord{}}
}

func (c *cache) invalidate() {
	c.mu.Lock()
	c.epoch++
	c.hosts = map[string]hostEntry{}
	c.keys = map[[32]byte]store.KeyRecord{}
	c.mu.Unlock()
}

func (c *cache) currentEpoch() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.epoch
}

func (c *cache) host(h string) (hostEntry, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.hosts[h]
	return e, ok
}

func (c *cache) putHost(epoch uint64, h string, e hostEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.epoch {
		return
	}
	if len(c.hosts) >= maxCacheEntries {
		c.hosts = map[string]hostEntry{}
	}
	c.hosts[h] = e
}

func (c *cache) key(hash [32]byte) (store.KeyRecord, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	k, ok := c.keys[hash]
	return k, ok
}

func (c *cache) putKey(epoch uint64, hash [32]byte, k store.KeyRecord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.epoch {
		return
	}
	if len(c.keys) >= maxCacheEntries {
		c.keys = map[[32]byte]store.KeyRecord{}
	}
	c.keys[hash] = k
}

// Run keeps the cache fresh and records key usage until ctx ends: it drops
// the cache when another node announces a change on Redis, when the
// registry generation in the database moves (every PollInterval, so a
// change made by the CLI or without Redis is seen within a second), and
// writes last-used times at most once a minute per key.
func (r *Registry) Run(ctx context.Context) {
	if r.opts.Redis != nil {
		go r.listen(ctx)
	}
	poll := time.NewTicker(r.opts.PollInterval)
	defer poll.Stop()
	flush := time.NewTicker(10 * time.Second)
	defer flush.Stop()
	var generation int64 = -1
	for {
		select {
		case <-ctx.Done():
			r.FlushUsage(context.WithoutCancel(ctx))
			return
		case <-poll.C:
			g, err := r.db.RegistryGeneration(ctx)
			if err != nil {
				if ctx.Err() == nil {
					r.opts.Logger.Warn("poll registry generation", "err", err)
				}
				continue
			}
			// The first reading invalidates too: the cache may have been
			// filled before it, with a change made in between.
			if g != generation {
				r.cache.invalidate()
			}
			generation = g
		case <-flush.C:
			r.FlushUsage(ctx)
		}
	}
}

// listen drops the cache on every invalidation message, resubscribing after
// Redis outages (go-redis reconnects a PubSub by itself).
func (r *Registry) listen(ctx context.Context) {
	sub := r.opts.Redis.Subscribe(ctx, invalidationChannel)
	defer sub.Close()
	ch := sub.Channel()
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-ch:
			if !ok {
				return
			}
			r.cache.invalidate()
		}
	}
}

// FlushUsage writes pending last-used times of API keys.
func (r *Registry) FlushUsage(ctx context.Context) {
	pending := r.usage.take()
	if err := r.db.TouchAPIKeys(ctx, pending); err != nil {
		r.opts.Logger.Warn("record api key usage", "err", err)
		r.usage.restore(pending)
	}
}
