package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"learngate"
)

// KindTenantMove moves a tenant's schema to another worker of a Citus cluster.
const KindTenantMove = "tenant_move"

// TenantMoveArgs are the arguments of a tenant_move job: the tenant's
// schema, the node it was on when the move was asked for, and the node it
// goes to ("host:port" each).
type TenantMoveArgs struct {
	Schema string `json:"schema" river:"unique"`
	From   string `json:"from"`
	To     string `json:"to"`
}

// Kind is the job kind of TenantMoveArgs.
func (TenantMoveArgs) Kind() string { return KindTenantMove }

// InsertOpts: one attempt (a failed move is left to the operator, who sees
// its error and may ask again), and at most one move of a tenant queued or
// running at a time.
func (TenantMoveArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		MaxAttempts: 1,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
			rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
			rivertype.JobStateRunning, rivertype.JobStateScheduled,
		}},
	}
}

// TenantMove is a move of a tenant's schema as the ops API shows it.
type TenantMove struct {
	ID     int64  `json:"id"`
	Tenant string `json:"tenant"`
	From   string `json:"from"`
	To     string `json:"to"`
	// State is queued, running, done or failed.
	State string `json:"state"`
	// Error is the last attempt's error of a failed move.
	Error      *string       `json:"error"`
	Progress   *MoveProgress `json:"progress"`
	CreatedAt  time.Time     `json:"-"`
	FinishedAt *time.Time    `json:"-"`
}

// QueueTenantMove queues the move of tenant t's schema from node from to
// node to; learngate.Conflict when a move of it is already queued or
// running.
func (db *DB) QueueTenantMove(ctx context.Context, t learngate.Tenant, from, to string) (TenantMove, error) {
	res, err := db.jobs.Insert(ctx, TenantMoveArgs{Schema: t.Schema, From: from, To: to}, nil)
	if err != nil {
		return TenantMove{}, translate(fmt.Errorf("queue move of %s: %w", t.Schema, err))
	}
	if res.UniqueSkippedAsDuplicate {
		return TenantMove{}, learngate.Errorf(learngate.Conflict, "a move of tenant %s is already queued or running (move %d)", t.Slug, res.Job.ID)
	}
	return tenantMoveOf(t.Slug, res.Job)
}

// TenantMoveByID returns move id of tenant t; NotFound when it is no move
// of t (or River has deleted it: finished jobs are kept 24 hours, failed
// ones 7 days).
func (db *DB) TenantMoveByID(ctx context.Context, t learngate.Tenant, id int64) (TenantMove, error) {
	var row struct {
		ID          int64        `db:"id"`
		State       string       `db:"state"`
		Args        []byte       `db:"args"`
		Errors      string       `db:"errors"`
		CreatedAt   time.Time    `db:"created_at"`
		FinalizedAt sql.NullTime `db:"finalized_at"`
	}
	q := fmt.Sprintf(`SELECT id, state::text AS state, args, coalesce(array_to_json(errors), '[]')::text AS errors,
			created_at, finalized_at
		FROM %s.river_job WHERE id = $1 AND kind = $2 AND args->>'schema' = $3`, JobSchema)
	if err := db.pool.GetContext(ctx, &row, q, id, KindTenantMove, t.Schema); err != nil {
		return TenantMove{}, notFound(translate(fmt.Errorf("move %d: %w", id, err)))
	}
	m, err := moveOfRow(t.Slug, row.ID, row.State, row.Args, []byte(row.Errors), row.CreatedAt)
	if err != nil {
		return TenantMove{}, err
	}
	if row.FinalizedAt.Valid {
		m.FinishedAt = &row.FinalizedAt.Time
	}
	if m.State == "running" {
		if p, ok, err := db.SchemaMoveProgress(ctx, t.Schema); err == nil && ok {
			m.Progress = &p
		}
	}
	return m, nil
}

// tenantMoveOf returns the move that job row j is.
func tenantMoveOf(slug string, j *rivertype.JobRow) (TenantMove, error) {
	errs, err := json.Marshal(j.Errors)
	if err != nil {
		return TenantMove{}, fmt.Errorf("move errors: %w", err)
	}
	m, err := moveOfRow(slug, j.ID, string(j.State), j.EncodedArgs, errs, j.CreatedAt)
	if err == nil && j.FinalizedAt != nil {
		m.FinishedAt = j.FinalizedAt
	}
	return m, err
}

// moveOfRow builds a TenantMove from a river_job row's parts.
func moveOfRow(slug string, id int64, state string, args, errs []byte, created time.Time) (TenantMove, error) {
	var a TenantMoveArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return TenantMove{}, fmt.Errorf("move %d args: %w", id, err)
	}
	m := TenantMove{ID: id, Tenant: slug, From: a.From, To: a.To, State: moveState(state), CreatedAt: created}
	var attempts []struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(errs, &attempts); err == nil && len(attempts) > 0 && m.State == "failed" {
		m.Error = &attempts[len(attempts)-1].Error
	}
	return m, nil
}

// moveState maps a River job state to a move's state.
func moveState(s string) string {
	switch rivertype.JobState(s) {
	case rivertype.JobStateRunning:
		return "running"
	case rivertype.JobStateCompleted:
		return "done"
	case rivertype.JobStateDiscarded, rivertype.JobStateCancelled:
		return "failed"
	default:
		return "queued"
	}
}
