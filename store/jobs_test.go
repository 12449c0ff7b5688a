package store_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"learngate/store"
	"learngate/store/storetest"
)

// queuedInvitation is a send_invitation job as River stored it.
type queuedInvitation struct {
	Args        store.InvitationArgs
	MaxAttempts int
	State       string
}

// queuedInvitations returns the send_invitation jobs in River's table.
func queuedInvitations(t *testing.T, db *store.DB) []queuedInvitation {
	t.Helper()
	rows, err := db.Pool().Query(`SELECT args, max_attempts, state FROM public.river_job WHERE kind = $1 ORDER BY id`,
		store.KindSendInvitation)
	if err != nil {
		t.Fatalf("list jobs: %v", err)
	}
	defer rows.Close()
	jobs := []queuedInvitation{}
	for rows.Next() {
		var raw []byte
		var j queuedInvitation
		if err := rows.Scan(&raw, &j.MaxAttempts, &j.State); err != nil {
			t.Fatalf("scan job: %v", err)
		}
		if err := json.Unmarshal(raw, &j.Args); err != nil {
			t.Fatalf("job args %s: %v", raw, err)
		}
		jobs = append(jobs, j)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("list jobs: %v", err)
	}
	return jobs
}

func TestMigrateAllCreatesJobTablesInPublic(t *testing.T) {
	db, _ := storetest.NewDB(t)
	tables := tableNames(t, db, "public")
	for _, want := range []string{"river_job", "river_leader", "river_migration", "river_queue"} {
		if !slices.Contains(tables, want) {
			t.Errorf("public tables %v lack %s", tables, want)
		}
	}
	// Running it again (another node, a restart) is a no-op.
	if err := db.MigrateAll(context.Background(), nil); err != nil {
		t.Fatalf("second MigrateAll: %v", err)
	}
	acme := userTenantDB(t, db, "acme")
	for _, table := range tableNames(t, db, acme.Schema()) {
		if table == "river_job" {
			t.Errorf("tenant schema %s holds a river_job table", acme.Schema())
		}
	}
}

func TestQueueInvitationInsideTenantTransaction(t *testing.T) {
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	acme := userTenantDB(t, db, "acme")
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	ann, err := store.CreateUser(ctx, acme, newUser("ann"), now)
	if err != nil {
		t.Fatalf("create ann: %v", err)
	}
	inactive := newUser("ivan")
	inactive.Active = ptr(false)
	ivan, err := store.CreateUser(ctx, acme, inactive, now)
	if err != nil {
		t.Fatalf("create ivan: %v", err)
	}

	t.Run("rolled back transaction queues nothing", func(t *testing.T) {
		queued, err := store.QueueInvitationTx(ctx, acme, ann.ID, true)
		if err != nil || !queued {
			t.Fatalf("queue = %v, %v; want true, nil", queued, err)
		}
		if jobs := queuedInvitations(t, db); len(jobs) != 0 {
			t.Fatalf("jobs after rollback = %+v, want none", jobs)
		}
	})
	t.Run("inactive user is not invited", func(t *testing.T) {
		queued, err := store.QueueInvitationTx(ctx, acme, ivan.ID, false)
		if err != nil || queued {
			t.Fatalf("queue = %v, %v; want false, nil", queued, err)
		}
		if jobs := queuedInvitations(t, db); len(jobs) != 0 {
			t.Fatalf("jobs = %+v, want none", jobs)
		}
	})
	t.Run("active user is queued once while waiting", func(t *testing.T) {
		for range 2 {
			queued, err := store.QueueInvitationTx(ctx, acme, ann.ID, false)
			if err != nil || !queued {
				t.Fatalf("queue = %v, %v; want true, nil", queued, err)
			}
		}
		jobs := queuedInvitations(t, db)
		want := queuedInvitation{Args: store.InvitationArgs{Schema: acme.Schema(), UserID: ann.ID}, MaxAttempts: 10, State: "available"}
		if len(jobs) != 1 || jobs[0] != want {
			t.Fatalf("jobs = %+v, want [%+v]", jobs, want)
		}
	})
	t.Run("unknown user is an error", func(t *testing.T) {
		if _, err := store.QueueInvitationTx(ctx, acme, 999999, false); err == nil {
			t.Fatal("queue for a missing user succeeded")
		}
	})
}
