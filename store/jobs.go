package store

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
)

// JobSchema is the schema that holds River's tables (river_job and the
// rest). Every River client and migrator names it explicitly, because a
// tenant transaction's search_path is the tenant schema alone.
const JobSchema = "public"

// Job kinds. A kind is stored in every queued job: never rename one.
const (
	// KindSendInvitation delivers a user's invitation email.
	KindSendInvitation = "send_invitation"
	// KindScheduledActivation applies due scheduled (de)activations.
	KindScheduledActivation = "scheduled_activation"
	// KindRecertify moves pathway enrolments whose certification ran out to recertify.
	KindRecertify = "recertify"
)

// invitationMaxAttempts bounds the tries of an invitation: with River's
// backoff (attempt^4 seconds) the last one runs about 4 hours after the first.
const invitationMaxAttempts = 10

// InvitationArgs are the arguments of a send_invitation job: the tenant
// schema and the id of the user in it.
type InvitationArgs struct {
	Schema string `json:"schema" river:"unique"`
	UserID int64  `json:"user_id" river:"unique"`
}

// Kind is the job kind of InvitationArgs.
func (InvitationArgs) Kind() string { return KindSendInvitation }

// InsertOpts makes a user's invitation unique while one is waiting or
// running: inviting twice before delivery sends one email.
func (InvitationArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		MaxAttempts: invitationMaxAttempts,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
			rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
			rivertype.JobStateRunning, rivertype.JobStateScheduled,
		}},
	}
}

// ScheduledActivationArgs are the (empty) arguments of the periodic job that
// applies due deactivate/reactivate dates in every tenant.
type ScheduledActivationArgs struct{}

// Kind is the job kind of ScheduledActivationArgs.
func (ScheduledActivationArgs) Kind() string { return KindScheduledActivation }

// InsertOpts keeps at most one run waiting: a missed minute is caught up by
// the next run, which applies every date that is due by then.
func (ScheduledActivationArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: time.Minute}}
}

// RecertifyArgs are the (empty) arguments of the periodic job that moves
// expired pathway certifications to recertify in every tenant.
type RecertifyArgs struct{}

// Kind is the job kind of RecertifyArgs.
func (RecertifyArgs) Kind() string { return KindRecertify }

// InsertOpts keeps at most one run waiting, as for the scheduled activation.
func (RecertifyArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: time.Minute}}
}

// newJobInserter returns the insert-only River client of pool: it queues
// jobs inside the caller's transactions and never works any.
func newJobInserter(pool *sql.DB) (*river.Client[*sql.Tx], error) {
	client, err := river.NewClient(riverdatabasesql.New(pool), &river.Config{
		Schema: JobSchema,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return nil, fmt.Errorf("job inserter: %w", err)
	}
	return client, nil
}

// migrateJobs creates or upgrades River's tables in JobSchema. It runs under
// the migration lock, after the shared schema's migrations.
func (db *DB) migrateJobs(ctx context.Context) error {
	migrator, err := rivermigrate.New(riverdatabasesql.New(db.migrations), &rivermigrate.Config{
		Schema: JobSchema,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return fmt.Errorf("job migrator: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return translate(fmt.Errorf("migrate job tables: %w", err))
	}
	return nil
}

// CheckJobTables returns an error naming the fix when River's tables are
// missing (the database was never migrated by this version).
func (db *DB) CheckJobTables(ctx context.Context) error {
	var ok bool
	if err := db.pool.GetContext(ctx, &ok, `SELECT to_regclass($1) IS NOT NULL`, JobSchema+".river_job"); err != nil {
		return translate(fmt.Errorf("look up job tables: %w", err))
	}
	if !ok {
		return fmt.Errorf("the job tables (%s.river_job) are missing: run `learngate migrate` first", JobSchema)
	}
	return nil
}

// queueInvitation queues the invitation email of user userID inside tx (the
// transaction that created or updated the user). It returns false, and queues
// nothing, when the user cannot be invited (inactive); err only for failures.
func (t *TenantDB) queueInvitation(ctx context.Context, tx *sqlx.Tx, userID int64) (bool, error) {
	var active bool
	if err := tx.GetContext(ctx, &active, `SELECT active FROM users WHERE id = $1`, userID); err != nil {
		return false, fmt.Errorf("invitation of user %d: %w", userID, err)
	}
	if !active {
		return false, nil
	}
	_, err := t.db.jobs.InsertTx(ctx, tx.Tx, InvitationArgs{Schema: t.schema, UserID: userID}, nil)
	if err != nil {
		return false, fmt.Errorf("queue invitation of user %d: %w", userID, err)
	}
	return true, nil
}
