package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
	"learngate/secrets"
	"learngate/webhook"
)

// statementLog holds the text of every statement a store sent.
type statementLog struct {
	mu    sync.Mutex
	texts []string
}

// take returns the statements logged since the last call.
func (l *statementLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.texts
	l.texts = nil
	return out
}

// openLogging is openCounting keeping each statement's text: a store over
// url that queues jobs, as the server's does.
func openLogging(tb testing.TB, url string) (*DB, *statementLog) {
	tb.Helper()
	inner, err := pq.NewConnector(url)
	if err != nil {
		tb.Fatalf("connector: %v", err)
	}
	log := &statementLog{}
	pool := sqlx.NewDb(sql.OpenDB(loggingConnector{inner: inner, log: log}), "postgres")
	tb.Cleanup(func() { pool.Close() })
	jobs, err := newJobInserter(pool.DB)
	if err != nil {
		tb.Fatal(err)
	}
	return &DB{pool: pool, url: url, jobs: jobs, migrations: pool.DB, migrationsConnector: loggingConnector{inner: inner, log: log},
		secrets: secrets.DevKeyring()}, log
}

type loggingConnector struct {
	inner driver.Connector
	log   *statementLog
}

func (c loggingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return loggingConn{pqConn: conn.(pqConn), log: c.log}, nil
}

func (c loggingConnector) Driver() driver.Driver { return c.inner.Driver() }

type loggingConn struct {
	pqConn
	log *statementLog
}

func (c loggingConn) add(q string) {
	c.log.mu.Lock()
	c.log.texts = append(c.log.texts, q)
	c.log.mu.Unlock()
}

func (c loggingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.add(q)
	return c.pqConn.ExecContext(ctx, q, args)
}

func (c loggingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.add(q)
	return c.pqConn.QueryContext(ctx, q, args)
}

// TestSCIMGroupPatchStatementCount checks that a group PATCH adding 1, 10
// or 1,000 members sends the same statements: the membership change is
// one set-based statement (the only one that writes user_groups, with the
// users' updated_at), the member check one, and the 1,000 user.updated
// events a fixed number. River's insert notification, which River sends
// at most once a second, is left out of the count. The other tenant's
// groups and memberships stay untouched.
func TestSCIMGroupPatchStatementCount(t *testing.T) {
	t.Parallel()
	bench, _ := benchTenant(t)
	other := secondTenant(t, bench, "other")
	db, log := openLogging(t, bench.db.url)
	tdb, err := db.Tenant(bench.schema)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, d := range []*TenantDB{tdb, other} {
		err := d.Tx(ctx, func(tx *sqlx.Tx) error {
			_, err := tx.Exec(`INSERT INTO users (user_name, first_name, last_name, email, timezone)
				SELECT 'user' || g, 'F', 'L', 'user' || g || '@example.com', 'UTC' FROM generate_series(1, 1500) g`)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	url := "https://hooks.example.com/"
	if _, err := CreateWebhook(ctx, tdb, learngate.WebhookInput{URL: &url, Events: []string{"user.updated"}}, webhook.Policy{}, now); err != nil {
		t.Fatal(err)
	}
	var first []string
	events := 0
	for k, n := range []int{1, 10, 1000} {
		g, err := CreateSCIMGroup(ctx, tdb, fmt.Sprintf("Group %d", n), nil, nil, now)
		if err != nil {
			t.Fatal(err)
		}
		add := make([]int64, n)
		for i := range add {
			add[i] = int64(k*10 + i + 1)
		}
		log.take()
		got, err := UpdateSCIMGroup(ctx, tdb, g.ID, SCIMGroupChange{Members: MemberChange{Add: add}}, now)
		if err != nil {
			t.Fatalf("patch %d members: %v", n, err)
		}
		var sent, membership []string
		for _, q := range log.take() {
			if strings.HasPrefix(q, "-- name: PGNotifyMany") {
				continue
			}
			sent = append(sent, q)
			if strings.Contains(q, "DELETE FROM user_groups") || strings.Contains(q, "INSERT INTO user_groups") {
				membership = append(membership, q)
			}
		}
		if len(got.Members) != n {
			t.Fatalf("group has %d members, want %d", len(got.Members), n)
		}
		if len(membership) != 1 || membership[0] != changeMembersSQL {
			t.Fatalf("%d members: the membership change took %d statements: %q", n, len(membership), membership)
		}
		if first == nil {
			first = sent
		} else if strings.Join(sent, "\x00") != strings.Join(first, "\x00") {
			t.Fatalf("%d members sent %d statements, 1 member %d: not set-based\n%q", n, len(sent), len(first), sent)
		}
		events += n
		var recorded int
		if err := db.pool.Get(&recorded, `SELECT count(*) FROM `+tdb.schema+`.webhook_events WHERE type = 'user.updated'`); err != nil {
			t.Fatal(err)
		}
		if recorded != events {
			t.Fatalf("after adding %d members: %d user.updated events, want %d", n, recorded, events)
		}
	}
	// The transaction's search_path; the group locked and written; the
	// member check, the membership change and the group's stamp; the
	// endpoints, the users as the API shows them (4) and the events, their
	// deliveries and delivery job (3); the due work of the changed users
	// looked up and the webhooks' due-work mark (2); the group and its
	// members read back.
	if len(first) != 18 {
		t.Fatalf("a member PATCH sends %d statements, want 18:\n%q", len(first), first)
	}
	groups, total, err := ListSCIMGroups(ctx, other, nil, 1, 100, true)
	if err != nil || total != 0 || len(groups) != 0 {
		t.Fatalf("other tenant's groups = %d %v %v", total, groups, err)
	}
	var otherMembers int
	if err := db.pool.Get(&otherMembers, `SELECT count(*) FROM `+other.schema+`.user_groups`); err != nil || otherMembers != 0 {
		t.Fatalf("other tenant's memberships = %d, %v", otherMembers, err)
	}
}
