package tenant

import (
	"context"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"learngate"
	"learngate/store"
)

// maxCacheEntries bounds each part of the cache (known hosts, unknown
// hosts, tenants' key sets); when one is full its least recently used entry
// leaves, so a flood of unknown hosts cannot grow memory without limit nor
// empty the cache wholesale.
const maxCacheEntries = 50_000

// unknownHostTTL is how long a host that names no tenant is remembered as
// unknown (docs/reliability.md, "Hostile and careless clients"). A tenant or domain added through any
// node is seen at once all the same: the change invalidates the cache.
const unknownHostTTL = 10 * time.Second

// hostEntry is a cached host resolution; found is false for unknown hosts.
type hostEntry struct {
	tenant learngate.Tenant
	found  bool
}

// cache holds host resolutions and each tenant's active API keys in bounded LRU caches
// (github.com/hashicorp/golang-lru/v2, each safe for concurrent use).
// Known and unknown hosts are kept apart, so that a flood of unknown hosts
// never pushes a tenant's host out. epoch changes on every invalidation; a
// lookup that started before one does not store its result (mu orders the
// two).
type cache struct {
	mu      sync.Mutex
	epoch   uint64
	now     func() time.Time
	hosts   *lru.Cache[string, learngate.Tenant]
	unknown *lru.Cache[string, time.Time]        // host → when it is forgotten
	keys    *lru.Cache[int64, []store.KeyRecord] // tenant id → its active keys
	sso     *lru.Cache[int64, ssoEntry]          // tenant id → its sign-in configuration
}

// newCache returns a cache of at most size entries in each part, with
// clock now for the expiry of unknown hosts.
func newCache(size int, now func() time.Time) *cache {
	return &cache{now: now, hosts: mustLRU[string, learngate.Tenant](size),
		unknown: mustLRU[string, time.Time](size), keys: mustLRU[int64, []store.KeyRecord](size),
		sso: mustLRU[int64, ssoEntry](size)}
}

// mustLRU returns an LRU cache of size entries; lru.New fails only for a
// size below 1.
func mustLRU[K comparable, V any](size int) *lru.Cache[K, V] {
	c, err := lru.New[K, V](size)
	if err != nil {
		panic(err)
	}
	return c
}

func (c *cache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.hosts.Purge()
	c.unknown.Purge()
	c.keys.Purge()
	c.sso.Purge()
}

// forgetUnknown drops the unknown hosts alone, after a tenant was
// created: the tenants, keys and settings cached are still right.
func (c *cache) forgetUnknown() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.unknown.Purge()
}

func (c *cache) currentEpoch() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch
}

// host returns h's cached resolution; an unknown host only until its
// expiry.
func (c *cache) host(h string) (hostEntry, bool) {
	if t, ok := c.hosts.Get(h); ok {
		return hostEntry{tenant: t, found: true}, true
	}
	if until, ok := c.unknown.Get(h); ok && c.now().Before(until) {
		return hostEntry{}, true
	}
	return hostEntry{}, false
}

func (c *cache) putHost(epoch uint64, h string, e hostEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.epoch {
		return
	}
	if e.found {
		c.unknown.Remove(h)
		c.hosts.Add(h, e.tenant)
		return
	}
	c.unknown.Add(h, c.now().Add(unknownHostTTL))
}

func (c *cache) tenantKeys(tenantID int64) ([]store.KeyRecord, bool) {
	return c.keys.Get(tenantID)
}

func (c *cache) putTenantKeys(epoch uint64, tenantID int64, keys []store.KeyRecord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.epoch {
		return
	}
	c.keys.Add(tenantID, keys)
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
	seen := store.RegistryVersion{Generation: -1}
	for {
		select {
		case <-ctx.Done():
			r.FlushUsage(context.WithoutCancel(ctx))
			return
		case <-poll.C:
			v, err := r.db.RegistryVersion(ctx)
			if err != nil {
				if ctx.Err() == nil {
					r.opts.Logger.Warn("poll registry generation", "err", err)
				}
				continue
			}
			// The first reading invalidates too: the cache may have been
			// filled before it, with a change made in between. An
			// addition (a tenant created) only makes unknown hosts stale.
			switch {
			case v.Generation != seen.Generation:
				r.cache.invalidate()
			case v.Additions != seen.Additions:
				r.cache.forgetUnknown()
			}
			seen = v
		case <-flush.C:
			r.FlushUsage(ctx)
		}
	}
}

// listen drops the cache on every invalidation message (its unknown hosts
// alone on addedMessage), resubscribing after
// Redis outages (go-redis reconnects a PubSub by itself).
func (r *Registry) listen(ctx context.Context) {
	sub := r.opts.Redis.Subscribe(ctx, invalidationChannel)
	defer sub.Close()
	ch := sub.Channel()
	for {
		select {
		case <-ctx.Done():
			return
		case msg, ok := <-ch:
			if !ok {
				return
			}
			if msg.Payload == addedMessage {
				r.cache.forgetUnknown()
			} else {
				r.cache.invalidate()
			}
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
