package store

import (
	"fmt"
	"testing"

	"github.com/lib/pq"
)

// TestConstraintNameOfARelayedViolation: PostgreSQL names the constraint in
// its own field; a Citus coordinator relays a worker's violation with that
// field empty and the shard's name in the message only.
func TestConstraintNameOfARelayedViolation(t *testing.T) {
	for _, tt := range []struct {
		err  *pq.Error
		want string
	}{
		{&pq.Error{Code: "23505", Constraint: "users_email", Message: `duplicate key value violates unique constraint "users_email"`}, "users_email"},
		{&pq.Error{Code: "23505", Message: `duplicate key value violates unique constraint "groups_name_102010"`}, "groups_name"},
		{&pq.Error{Code: "23505", Message: `duplicate key value violates unique constraint "users_user_name"`}, "users_user_name"},
		{&pq.Error{Code: "23505", Message: `duplicate key value`}, ""},
	} {
		if got := ConstraintName(fmt.Errorf("save: %w", tt.err)); got != tt.want {
			t.Errorf("ConstraintName(%q, %q) = %q, want %q", tt.err.Constraint, tt.err.Message, got, tt.want)
		}
	}
	if got := ConstraintName(fmt.Errorf("not a database error")); got != "" {
		t.Errorf("ConstraintName of a plain error = %q, want empty", got)
	}
}
