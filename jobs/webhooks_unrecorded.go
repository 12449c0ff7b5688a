package jobs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"learngate/store"
)

// A drain that sent deliveries but cannot record the attempts must never
// send them again because the record failed (DECISIONS section 20,
// docs/decisions.md "Webhooks"). It stops sending and retries the record
// (recordPatiently); when the database still refuses, the attempts are
// kept in this worker's memory with the drain's lease owner, and the lease
// is not released: no other drainer takes the endpoint until the lease
// expires, and the next drain of the endpoint on this worker takes the same
// owner and records the kept attempts before it sends anything.

// recordRetries are the waits between tries of a record that failed.
var recordRetries = []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second,
	4 * time.Second, 8 * time.Second}

// errNotRecorded says attempts were made but could not be recorded: the
// drain stops and keeps its lease.
var errNotRecorded = errors.New("webhook attempts not recorded")

// unrecordedAttempts are attempts made by this worker that could not be
// recorded, per endpoint.
type unrecordedAttempts struct {
	mu   sync.Mutex
	byEP map[string]keptAttempts
}

// keptAttempts are an endpoint's unrecorded attempts and the lease owner
// that made them.
type keptAttempts struct {
	owner string
	recs  []store.AttemptRecord
}

func endpointKey(schema string, id int64) string { return schema + "/" + strconv.FormatInt(id, 10) }

// keep adds recs to the endpoint's unrecorded attempts, made under owner.
func (u *unrecordedAttempts) keep(key, owner string, recs []store.AttemptRecord) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.byEP == nil {
		u.byEP = map[string]keptAttempts{}
	}
	k := u.byEP[key]
	k.owner = owner
	k.recs = append(k.recs, recs...)
	u.byEP[key] = k
}

// take removes and returns the endpoint's unrecorded attempts.
func (u *unrecordedAttempts) take(key string) (keptAttempts, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	k, ok := u.byEP[key]
	delete(u.byEP, key)
	return k, ok
}

// owner returns the lease owner of the endpoint's unrecorded attempts, or "".
func (u *unrecordedAttempts) owner(key string) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.byEP[key].owner
}

// recordPatiently records recs, trying again after each of recordRetries
// while the database refuses; the worker's stop does not cut it short
// (attempts made are recorded). When every try failed, recs are kept for
// the next drain of the endpoint and the error wraps errNotRecorded.
func (d *drain) recordPatiently(ctx context.Context, recs []store.AttemptRecord) (bool, error) {
	rctx := context.WithoutCancel(ctx)
	var err error
	for i := 0; ; i++ {
		tctx, cancel := context.WithTimeout(rctx, 10*time.Second)
		var held bool
		held, err = store.RecordWebhookAttempts(tctx, d.tdb, d.id, d.owner, webhookLease, recs)
		cancel()
		if err == nil {
			return held, nil
		}
		d.w.logger.Warn("webhook attempts not recorded: retrying, nothing is sent meanwhile", "tenant", d.slug,
			"webhook", d.id, "attempts", len(recs), "try", i+1, "err", err)
		if i == len(recordRetries) {
			break
		}
		time.Sleep(recordRetries[i])
	}
	d.w.unrecorded.keep(endpointKey(d.tdb.Schema(), d.id), d.owner, recs)
	return false, fmt.Errorf("%w: %d attempts of webhook %d: %w", errNotRecorded, len(recs), d.id, err)
}

// recordKept records the endpoint's attempts that an earlier drain of this
// worker could not record, before anything is sent.
func (d *drain) recordKept(ctx context.Context) error {
	kept, ok := d.w.unrecorded.take(endpointKey(d.tdb.Schema(), d.id))
	if !ok || len(kept.recs) == 0 {
		return nil
	}
	_, err := d.recordPatiently(ctx, kept.recs)
	return err
}
