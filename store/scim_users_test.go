package store_test

import (
	"context"
	"testing"
	"time"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
)

// TestSCIMDeleteRecordsDeactivated checks that every SCIM DELETE records
// user.deactivated (docs/scim.md, "What DELETE does"), for a user still
// active and for one already deactivated through /papi; a second DELETE
// finds no user and records nothing, and the other tenant records nothing.
func TestSCIMDeleteRecordsDeactivated(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	acme := userTenantDB(t, db, "acme")
	other := userTenantDB(t, db, "other")
	subscribeAll(t, acme)
	subscribeAll(t, other)
	log := &eventLog{t: t, db: db, tdb: acme}
	otherLog := &eventLog{t: t, db: db, tdb: other}

	ann, err := store.CreateUser(ctx, acme, newUser("ann"), now)
	if err != nil {
		t.Fatal(err)
	}
	bob, err := store.CreateUser(ctx, acme, newUser("bob"), now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.UpdateUser(ctx, acme, "bob", learngate.UserInput{Active: ptr(false)}, now); err != nil {
		t.Fatal(err)
	}
	log.next()

	if err := store.DeleteSCIMUser(ctx, acme, ann.ID, now); err != nil {
		t.Fatal(err)
	}
	log.expect("delete an active user", "user.deactivated ann")
	if err := store.DeleteSCIMUser(ctx, acme, bob.ID, now); err != nil {
		t.Fatal(err)
	}
	log.expect("delete an inactive user", "user.deactivated bob")
	if err := store.DeleteSCIMUser(ctx, acme, bob.ID, now); !learngate.IsCode(err, learngate.NotFound) {
		t.Fatalf("second delete: %v, want NotFound", err)
	}
	log.expect("second delete")
	otherLog.expect("other tenant")
	if _, err := store.GetSCIMUser(ctx, other, ann.ID); !learngate.IsCode(err, learngate.NotFound) {
		t.Fatalf("other tenant reads acme's user: %v", err)
	}
}
