package store_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"learngate"
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
	t.Parallel()
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
	t.Parallel()
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

func TestCreateAndUpdateUserQueueInvitations(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	acme := userTenantDB(t, db, "acme")
	other := userTenantDB(t, db, "other")
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)

	in := newUser("ann")
	in.SendInvitation = true
	ann, err := store.CreateUser(ctx, acme, in, now)
	if err != nil {
		t.Fatalf("create ann: %v", err)
	}
	inactive := newUser("ivan")
	inactive.Active = ptr(false)
	inactive.SendInvitation = true
	if _, err := store.CreateUser(ctx, acme, inactive, now); err != nil {
		t.Fatalf("create inactive ivan with send_invitation: %v", err)
	}
	if _, err := store.CreateUser(ctx, other, newUser("ann"), now); err != nil {
		t.Fatalf("create other's ann: %v", err)
	}
	want := []queuedInvitation{{Args: store.InvitationArgs{Schema: acme.Schema(), UserID: ann.ID}, MaxAttempts: 10, State: "available"}}
	if got := queuedInvitations(t, db); len(got) != 1 || got[0] != want[0] {
		t.Fatalf("jobs = %+v, want %+v", got, want)
	}

	// A failing save queues nothing: the job is part of its transaction.
	taken := newUser("bob")
	taken.Email = ptr("ann@example.com")
	taken.SendInvitation = true
	if _, err := store.CreateUser(ctx, acme, taken, now); err == nil {
		t.Fatal("create with a taken email succeeded")
	}
	// Once the first invitation has gone, a PUT with send_invitation and no
	// other change queues another one, and leaves updated_at alone.
	if _, err := db.Pool().Exec(`UPDATE public.river_job SET state = 'completed', finalized_at = now()`); err != nil {
		t.Fatal(err)
	}
	again, err := store.UpdateUser(ctx, acme, "ANN", learngate.UserInput{SendInvitation: true}, now.Add(time.Hour))
	if err != nil {
		t.Fatalf("update ann: %v", err)
	}
	if !again.UpdatedAt.Equal(ann.UpdatedAt) {
		t.Errorf("updated_at moved from %s to %s", ann.UpdatedAt, again.UpdatedAt)
	}
	want = append(want, want[0])
	want[0].State = "completed"
	if got := queuedInvitations(t, db); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("jobs = %+v, want %+v", got, want)
	}
	// Deactivating and inviting in one PUT queues nothing.
	if _, err := store.UpdateUser(ctx, acme, "ann", learngate.UserInput{Active: ptr(false), SendInvitation: true}, now); err != nil {
		t.Fatalf("deactivate ann: %v", err)
	}
	if got := queuedInvitations(t, db); len(got) != 2 {
		t.Fatalf("jobs = %+v, want the 2 above", got)
	}
}
