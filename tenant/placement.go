package tenant

import (
	"context"

	"learngate"
	"learngate/store"
)

// DatabaseNodes returns the worker node ("host:port") of each of ts on a
// Citus cluster, keyed by schema; empty on a single PostgreSQL.
func (r *Registry) DatabaseNodes(ctx context.Context, ts ...learngate.Tenant) (map[string]string, error) {
	schemas := make([]string, len(ts))
	for i, t := range ts {
		schemas[i] = t.Schema
	}
	return r.db.SchemaNodes(ctx, schemas)
}

// MoveNow moves tenant slug's schema to worker node ("host:port") in this
// process and returns when it is there, with the node it came from; the
// same refusals as Move. `learngate tenant move` runs it.
func (r *Registry) MoveNow(ctx context.Context, slug, node string) (string, error) {
	t, to, from, err := r.moveTarget(ctx, slug, node)
	if err != nil {
		return "", err
	}
	return from, r.db.MoveSchema(ctx, t.Schema, to)
}

// moveTarget checks a move of tenant slug to node and returns the tenant,
// the target node and the node the tenant is on now.
func (r *Registry) moveTarget(ctx context.Context, slug, node string) (learngate.Tenant, store.DatabaseNode, string, error) {
	t, err := r.Show(ctx, slug)
	if err != nil {
		return t, store.DatabaseNode{}, "", err
	}
	to, err := r.db.ParseNode(ctx, node)
	if err != nil {
		return t, to, "", err
	}
	if err := r.db.CheckMoveSafety(ctx); err != nil {
		return t, to, "", err
	}
	nodes, err := r.db.SchemaNodes(ctx, []string{t.Schema})
	if err != nil {
		return t, to, "", err
	}
	from := nodes[t.Schema]
	if from == to.Addr {
		return t, to, from, learngate.Errorf(learngate.Unprocessable, "tenant %s is already on node '%s'", slug, node)
	}
	return t, to, from, nil
}

// Move queues the move of tenant slug's schema to worker node ("host:port")
// and returns it: Unprocessable when node is not a worker of the cluster
// (or the database is a single PostgreSQL), already holds the tenant, or
// a worker commits asynchronously (store.DB.CheckMoveSafety),
// Conflict when a move of it is already queued or running.
func (r *Registry) Move(ctx context.Context, slug, node string) (store.TenantMove, error) {
	t, to, from, err := r.moveTarget(ctx, slug, node)
	if err != nil {
		return store.TenantMove{}, err
	}
	return r.db.QueueTenantMove(ctx, t, from, to.Addr)
}

// ShowMove returns move id of tenant slug; NotFound when there is none.
func (r *Registry) ShowMove(ctx context.Context, slug string, id int64) (store.TenantMove, error) {
	t, err := r.Show(ctx, slug)
	if err != nil {
		return store.TenantMove{}, err
	}
	m, err := r.db.TenantMoveByID(ctx, t, id)
	if learngate.IsCode(err, learngate.NotFound) {
		return store.TenantMove{}, learngate.Errorf(learngate.NotFound, "move %d of tenant %s not found", id, slug)
	}
	return m, err
}

// Rebalance starts Citus's rebalance of tenant schemas over the workers by
// size and, when wait, returns once it has ended; the job id is 0 when
// nothing needed to move. Unprocessable on a single PostgreSQL.
func (r *Registry) Rebalance(ctx context.Context, wait bool) (int64, error) {
	id, err := r.db.StartRebalance(ctx)
	if err != nil || id == 0 || !wait {
		return id, err
	}
	return id, r.db.WaitRebalance(ctx)
}
