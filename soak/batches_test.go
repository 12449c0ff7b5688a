//go:build slow

package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
)

// batchSize is the number of people in every batch the fault tests send.
const batchSize = 10

// batchBody is POST /papi/users/batch_save of batchSize new people whose
// user names start with prefix (their batch's name).
func batchBody(prefix string) string {
	people := make([]string, batchSize)
	for i := range people {
		name := fmt.Sprintf("%s-%02d", prefix, i)
		people[i] = fmt.Sprintf(`{"user_name":%q,"first_name":"Soak","last_name":%q,"email":"%s@soak.example"}`, name, prefix, name)
	}
	return `{"people":[` + strings.Join(people, ",") + `]}`
}

// batchReport is the answer of a batch save that succeeded.
type batchReport struct {
	Created   int               `json:"created"`
	Updated   int               `json:"updated"`
	Unchanged int               `json:"unchanged"`
	Errors    int               `json:"errors"`
	ErrorList []json.RawMessage `json:"error_list"`
}

// sentBatch is a batch a test sent and what it was told.
type sentBatch struct {
	prefix string
	reply  reply
}

// acknowledged reports whether the client was told the batch was saved.
func (b sentBatch) acknowledged() bool { return b.reply.Err == nil && b.reply.Status == http.StatusOK }

// tenantSchema returns the schema of tenant slug, from the ops API.
func tenantSchema(t testing.TB, n *node, slug string) string {
	t.Helper()
	r := n.opsCall(http.MethodGet, "/ops/v1/tenants/"+slug, "")
	var out struct {
		Schema string `json:"schema"`
	}
	if r.Err != nil || r.Status != http.StatusOK || json.Unmarshal(r.Body, &out) != nil || out.Schema == "" {
		t.Fatalf("show tenant %s: %s", slug, r)
	}
	return out.Schema
}

// savedUsers returns, per batch prefix, the user names saved in schema
// and the number of user.created events recorded for them.
func savedUsers(t testing.TB, dbURL, schema string) (users map[string][]string, events map[string]int) {
	t.Helper()
	db, err := sqlx.Open("postgres", dbURL)
	if err != nil {
		t.Fatalf("open %s: %v", dbURL, err)
	}
	defer db.Close()
	ctx := context.Background()
	var names []string
	if err := db.SelectContext(ctx, &names, `SELECT user_name FROM `+schema+`.users ORDER BY user_name`); err != nil {
		t.Fatalf("read users: %v", err)
	}
	users = map[string][]string{}
	for _, name := range names {
		users[batchOf(name)] = append(users[batchOf(name)], name)
	}
	var evNames []string
	if err := db.SelectContext(ctx, &evNames, `SELECT data->>'user_name' FROM `+schema+`.webhook_events
		WHERE type = 'user.created'`); err != nil {
		t.Fatalf("read events: %v", err)
	}
	events = map[string]int{}
	for _, name := range evNames {
		events[batchOf(name)]++
	}
	return users, events
}

// batchOf returns the batch prefix of a user name made by batchBody.
func batchOf(userName string) string {
	if i := strings.LastIndexByte(userName, '-'); i > 0 {
		return userName[:i]
	}
	return userName
}

// checkBatches checks that every sent batch is all or nothing: an
// acknowledged batch is saved exactly as its report says (batchSize
// created, no errors) with one user.created event per user when withEvents;
// an unacknowledged one is saved whole or not at all. It returns how many
// unacknowledged batches were applied, and how many batches broke these rules.
func checkBatches(t testing.TB, sent []sentBatch, users map[string][]string, events map[string]int, withEvents bool) (appliedUnacked, broken int) {
	t.Helper()
	for _, b := range sent {
		errs := 0
		errorf := func(format string, args ...any) {
			errs++
			t.Errorf(format, args...)
		}
		got := len(users[b.prefix])
		if b.acknowledged() {
			var rep batchReport
			if err := json.Unmarshal(b.reply.Body, &rep); err != nil {
				errorf("batch %s: bad report %s", b.prefix, b.reply)
				continue
			}
			if rep.Created != batchSize || rep.Errors != 0 || len(rep.ErrorList) != 0 {
				errorf("batch %s: report %s, want %d created and no errors", b.prefix, b.reply, batchSize)
			}
			if got != batchSize {
				errorf("batch %s: acknowledged with %d created, but %d of its users are saved", b.prefix, rep.Created, got)
			}
		} else {
			if got != 0 && got != batchSize {
				errorf("batch %s (answer %s): %d of %d users saved, want all or none", b.prefix, b.reply, got, batchSize)
			}
			if got == batchSize {
				appliedUnacked++
			}
		}
		if withEvents && events[b.prefix] != got {
			errorf("batch %s: %d users saved but %d user.created events recorded", b.prefix, got, events[b.prefix])
		}
		if errs > 0 {
			broken++
		}
	}
	return appliedUnacked, broken
}
