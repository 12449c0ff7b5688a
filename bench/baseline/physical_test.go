package main

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lib/pq"
)

// physicalPaths are the lists, filters and pages the physical-limit
// baseline must answer byte for byte as learngate does, over the data
// shapePhysicalData leaves in the harness tenant.
var physicalPaths = []string{
	"/papi/users",
	"/papi/users?per_page=100",
	"/papi/users?per_page=50&page=2",
	"/papi/users?per_page=7&page=3",
	"/papi/users?per_page=7&page=19",
	"/papi/users?per_page=7&page=20",
	"/papi/users?per_page=100&page=9",
	"/papi/users?active=true&per_page=10&page=2",
	"/papi/users?active=false",
	"/papi/users?active=true&email=USER0000009@bench.example",
	"/papi/users?email=%C3%B6ld@bench.example",
	"/papi/users?updated_after=2025-01-01T00:01:00&updated_before=2025-01-01T00:01:40",
	"/papi/users?updated_after=2030-01-01T00:00:00",
	"/papi/users?x-Department=dept%201&per_page=5&page=2",
	"/papi/users?x-grade=3.0",
	"/papi/users?X-Regions=north,%20we",
	"/papi/users?x-Regions=,",
	"/papi/users?x-Start%20D%C3%A4te=2024-05-01",
	"/papi/users?x-nosuchfield=zz&per_page=3",
	"/papi/users?x-Department=dept%202&X-Regions=east&per_page=2&page=2",
	"/papi/topic_assignments",
	"/papi/topic_assignments?per_page=100&page=3",
	"/papi/topic_assignments?per_page=100&page=99",
	"/papi/topic_assignments?topic_ids=1,%202,,8&per_page=100",
	"/papi/topic_assignments?topic_id=8",
	"/papi/topic_assignments?user_name=%20USER0000003%20",
	"/papi/topic_assignments?user_name=nobody",
	"/papi/topic_assignments?user_id=5",
	"/papi/topic_assignments?updated_after=2025-01-01T00:01:00&updated_before=2025-01-01T00:02:00",
	"/papi/topic_assignments/by_topic/7?user_id=2",
	"/papi/topic_assignments/by_user/5",
	"/papi/topic_assignments/user/JOS%C3%A9%20%C3%B1,x+y@z%3B%C3%A9",
	"/papi/topic_assignments/user/user0000003?topic_ids=21,22",
	"/papi/topic_assignments/user/nobody",
	"/papi/pathway_assignments",
	"/papi/pathway_assignments?per_page=5&page=3",
	"/papi/pathway_assignments?per_page=5&page=4",
	"/papi/pathway_assignments?pathway_ids=2,3&user_name=user0000002",
	"/papi/pathway_assignments?pathway_id=2",
	"/papi/pathway_assignments?updated_after=2025-01-01T00:00:30",
	"/papi/pathway_assignments/by_pathway/3",
	"/papi/pathway_assignments/by_user/12",
	"/papi/external_knowledges",
	"/papi/external_knowledges?per_page=5&page=2",
	"/papi/external_knowledges?per_page=5&page=9",
	"/papi/external_knowledges?updated_after=2025-01-01T00:00:05&updated_before=2025-01-01T00:00:15",
	"/papi/external_knowledges?user_name=USER0000007",
}

// TestPhysicalBodiesMatchLearngate checks, over one generated tenant with
// unicode and HTML characters, missing and full optional fields, rank
// anchors of every list and then dirty ones, that every physical list answers
// learngate's exact status and body, and that the other tenant's rows
// never show.
func TestPhysicalBodiesMatchLearngate(t *testing.T) {
	s := newSides(t)
	shapePhysicalData(t, s)
	compare := func(t *testing.T) {
		for _, path := range physicalPaths {
			lgStatus, lg := s.call(s.learngate, http.MethodGet, path, nil)
			phStatus, ph := s.call(s.baseline, http.MethodGet, physicalPrefix+path, nil)
			if lgStatus != phStatus || !bytes.Equal(lg, ph) {
				t.Errorf("%s: learngate %d, physical %d\nlearngate %s\nphysical  %s", path, lgStatus, phStatus, lg, ph)
			}
		}
	}
	t.Run("with valid rank anchors", compare)
	// A user keyed below every anchor makes them all dirty; dirty ids make
	// the id-ordered lists' anchors from there on wrong.
	s.exec(t, `INSERT INTO users (user_name, first_name, last_name, email, timezone, created_at, updated_at)
		VALUES ('öld', 'Öld', '', 'öld@bench.example', 'UTC', '2024-06-01', '2024-06-01')`)
	s.exec(t, `INSERT INTO topic_enrolment_rank_dirty (id) VALUES (90);
		INSERT INTO pathway_enrolment_rank_dirty (id) VALUES (1);
		INSERT INTO knowledge_rank_dirty (id) VALUES (7)`)
	t.Run("with dirty rank anchors", compare)

	// The tenant's own rows only: the other generated tenant has users,
	// enrolments and records with the same names and ids.
	for path, want := range map[string]int{
		"/papi/users":                 s.tenant.Users + 1,
		"/papi/topic_assignments":     s.tenant.TopicEnrolments,
		"/papi/pathway_assignments":   s.tenant.PathwayEnrolments,
		"/papi/external_knowledges":   s.tenant.Knowledge,
		"/papi/users?x-Department=de": s.tenant.Users,
	} {
		_, body := s.call(s.baseline, http.MethodGet, physicalPrefix+path, nil)
		var env struct {
			Total int `json:"total_records"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Total != want {
			t.Errorf("%s: total_records %d (%v), want %d", path, env.Total, err, want)
		}
	}
}

// TestPhysicalListsRunOneStatement checks that each physical list sends
// PostgreSQL exactly two statements: the scope (scopeSQL) and the
// one that returns the body (BEGIN and COMMIT aside).
func TestPhysicalListsRunOneStatement(t *testing.T) {
	s := newSides(t)
	inner, err := pq.NewConnector(s.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	n := new(atomic.Int64)
	pool := sql.OpenDB(countingConnector{inner: inner, n: n})
	t.Cleanup(func() { pool.Close() })
	counted := newServer(pool, s.tenant.Schema, s.tenant.Slug, "UTC").routes()
	for _, path := range physicalPaths {
		before := n.Load()
		status, body := s.call(counted, http.MethodGet, physicalPrefix+path, nil)
		if status != http.StatusOK && !strings.Contains(path, "/user/") {
			t.Errorf("%s: status %d %s", path, status, body)
		}
		if got := n.Load() - before; got != 2 {
			t.Errorf("%s: %d statements, want the scope and one", path, got)
		}
	}
}

// shapePhysicalData gives the harness tenant what the generator does not
// write: unicode and HTML characters in names and values, a user name that
// needs escaping in links, empty first and last names, an administrator,
// five roles, a date custom field, conquered pathways with skills, a
// Development Plan with scores and two categories, and rank anchors every
// 20 users (the job's spacing is 1,000).
func shapePhysicalData(t *testing.T, s sides) {
	t.Helper()
	s.exec(t, `UPDATE users SET first_name = 'Zoë <b>&amp;', last_name = E'Ünïcode \u2028 “q” \\ \t',
		user_name = 'josé ñ,x+y@z;é', mentor_email = 'mentor@bench.example', org_admin = true, admin_type = 2,
		current_sign_in_at = '2025-02-03 04:05:06.789+00', default_landing_page = 'Library',
		team_leader_report_frequency = 'weekly', deactivate_scheduled_date = '2031-01-01'
		WHERE id = 5`)
	s.exec(t, `UPDATE users SET first_name = '' WHERE id = 6`)
	s.exec(t, `UPDATE users SET last_name = '', admin_type = 7 WHERE id = 7`)
	s.exec(t, `INSERT INTO user_roles (user_id, position, role_id) VALUES (5, 3, 3), (5, 4, 4), (5, 5, 5)`)
	s.exec(t, `INSERT INTO groups (id, name) VALUES (101, 'ärger <x>'), (102, 'apple'), (103, 'Banana')`)
	s.exec(t, `INSERT INTO user_groups (user_id, group_id) VALUES (5, 101), (5, 102), (5, 103)`)
	s.exec(t, `INSERT INTO custom_fields (id, name, field_type) VALUES (4, 'Start Däte', 'date')`)
	s.exec(t, `INSERT INTO user_custom_values (user_id, field_id, value) VALUES (5, 4, '2024-05-01'), (8, 4, '2024-05-01'),
		(9, 4, '2024-06-01')`)
	s.exec(t, `UPDATE user_custom_values SET value = 'South;West & <b>' WHERE user_id = 5 AND field_id = 3`)
	s.exec(t, `UPDATE skills SET name = 'éclair & <skill>' WHERE id = 3`)
	s.exec(t, `UPDATE topic_enrolments SET version = 'v2 <x>', enrolled_by = NULL WHERE id IN (3, 4)`)
	s.exec(t, `UPDATE pathway_enrolments SET status = 'Conquered', conquered_at = '2025-03-01 10:00:00+00',
		certified_date = '2025-03-02 10:00:00+00', due_date = '2025-04-01', recertification_allowed = true WHERE id IN (1, 2)`)
	s.exec(t, `INSERT INTO pathway_enrolment_skills (enrolment_id, skill_id) VALUES (1, 3), (2, 30)`)
	s.exec(t, `UPDATE external_knowledges SET knowledge_type = 6, development_focus = 'Transition', title = 'Plan ü <b>', code = 'Initial',
		assessment_score = 87.25, notes = E'line\nnext', qualification_level = 'L4' WHERE id = 6`)
	s.exec(t, `INSERT INTO external_knowledge_categories (knowledge_id, category_id, position, minutes, points)
		VALUES (6, 9, 2, 15, 2.75)`)
	s.exec(t, `INSERT INTO user_rank_anchors (rank, created_at, id)
		SELECT rn - 1, created_at, id FROM (SELECT created_at, id, row_number() OVER (ORDER BY created_at, id) AS rn FROM users) u
		WHERE rn > 1 AND (rn - 1) % 20 = 0`)
	// Anchors every 20 listed rows of the id-ordered lists (rank: listed rows before the id).
	for _, l := range []struct{ table, listed, anchors string }{
		{"topic_enrolments", "removed_at IS NULL", "topic_enrolment_rank_anchors"},
		{"pathway_enrolments", "removed_at IS NULL", "pathway_enrolment_rank_anchors"},
		{"external_knowledges", "true", "knowledge_rank_anchors"},
	} {
		s.exec(t, `INSERT INTO `+l.anchors+` (rank, id)
			SELECT rn - 1, id FROM (SELECT id, row_number() OVER (ORDER BY id) AS rn FROM `+l.table+` WHERE `+l.listed+`) r
			WHERE rn > 1 AND (rn - 1) % 20 = 0`)
	}
	s.exec(t, `ANALYZE`)
}

// exec runs one statement in the harness tenant's schema.
func (s sides) exec(t *testing.T, query string) {
	t.Helper()
	ctx := context.Background()
	tx, err := s.pool.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, scopeSQL, s.tenant.Schema); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, query); err != nil {
		t.Fatalf("%v: %s", err, query)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// countingConnector counts the statements (ExecContext and QueryContext)
// its connections send; BEGIN and COMMIT are not counted.
type countingConnector struct {
	inner driver.Connector
	n     *atomic.Int64
}

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return countingConn{pqConn: conn.(pqConn), n: c.n}, nil
}

func (c countingConnector) Driver() driver.Driver { return c.inner.Driver() }

// pqConn is what lib/pq's connection implements and database/sql uses.
type pqConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ExecerContext
	driver.QueryerContext
	driver.NamedValueChecker
}

type countingConn struct {
	pqConn
	n *atomic.Int64
}

func (c countingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.n.Add(1)
	return c.pqConn.ExecContext(ctx, q, args)
}

func (c countingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.n.Add(1)
	return c.pqConn.QueryContext(ctx, q, args)
}
