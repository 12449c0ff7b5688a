package datagen

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// Epoch is the created_at of the first generated row; user i is created i
// seconds later, so the newest-first order of GET /users is by id, and two
// runs of the generator write the same rows.
var Epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// fillStatement is one set-based statement of a tenant's fill and the
// arguments it takes from the tenant's spec.
type fillStatement struct {
	what string
	args func(TenantSpec) []any
	sql  string
}

// The argument lists of fill statements.
var (
	noArgs           = func(TenantSpec) []any { return nil }
	epochArg         = func(TenantSpec) []any { return []any{Epoch} }
	usersArg         = func(s TenantSpec) []any { return []any{s.Users} }
	usersEpoch       = func(s TenantSpec) []any { return []any{s.Users, Epoch} }
	knowledgeArgs    = func(s TenantSpec) []any { return []any{s.Users, s.Knowledge, Epoch} }
	countArgs        = func(s TenantSpec) []any { return []any{s.Users, s.TopicEnrolments, s.Knowledge, s.PathwayEnrolments} }
	pathwayEnrolArgs = func(s TenantSpec) []any { return []any{s.Users, s.PathwayEnrolments, Epoch} }
	pathwayArgs      = func(s TenantSpec) []any { return []any{s.Users, s.PathwayEnrolments, s.TopicEnrolments, Epoch} }
)

// fillStatements write a tenant's rows with explicit ids (1 ... n), the
// way the API's sequences would have numbered them, and then move the
// sequences past them. Every value satisfies the schema's checks and the
// store's rules: lower-case user_name, sorted list values, a completed date
// exactly on Conquered enrolments, ';'-free names.
var fillStatements = []fillStatement{
	{"catalog", epochArg, `WITH p AS (SELECT $1::timestamptz AS t0),
	r AS (INSERT INTO roles (id, name, created_at) SELECT i, 'Role ' || i, t0 FROM p, generate_series(1, ` + itoa(Roles) + `) i),
	g AS (INSERT INTO groups (id, name, created_at) SELECT i, 'Group ' || i, t0 FROM p, generate_series(1, ` + itoa(Groups) + `) i),
	o AS (INSERT INTO goals (id, name, created_at) SELECT i, 'Goal ' || i, t0 FROM p, generate_series(1, ` + itoa(Goals) + `) i),
	s AS (INSERT INTO skills (id, name, created_at) SELECT i, 'Skill ' || i, t0 FROM p, generate_series(1, ` + itoa(Skills) + `) i),
	c AS (INSERT INTO categories (id, name, created_at) SELECT i, 'Category ' || i, t0 FROM p, generate_series(1, ` + itoa(Categories) + `) i)
	INSERT INTO custom_fields (id, name, field_type, options, created_at)
	SELECT * FROM (VALUES (1, 'Department', 'string', '{}'::text[]), (2, 'Grade', 'number', '{}'),
		(3, 'Regions', 'list', '{North,South,East,West}')) v(id, name, field_type, options), p
	RETURNING 1`},
	{"topics and pathways", epochArg, `WITH p AS (SELECT $1::timestamptz AS t0),
	t AS (INSERT INTO topics (id, title, knowledge_type, external_id, show_certificate, recertification_allowed,
			certify_days, minutes, cpd_minutes, created_at, updated_at)
		SELECT i, 'Topic ' || i, CASE WHEN i % 5 = 0 THEN 2 ELSE 1 END, 'ext-topic-' || i, i % 3 = 0, i % 4 = 0,
			CASE WHEN i % 4 = 0 THEN 365 END, 10 + i % 50, i % 30, t0, t0
		FROM p, generate_series(1, ` + itoa(Topics) + `) i RETURNING id),
	pw AS (INSERT INTO pathways (id, title, external_id, show_certificate, ordered, created_at, updated_at)
		SELECT i, 'Pathway ' || i, 'ext-pathway-' || i, i % 2 = 0, i % 3 = 0, t0, t0
		FROM p, generate_series(1, ` + itoa(Pathways) + `) i RETURNING id)
	SELECT (SELECT count(*) FROM t) + (SELECT count(*) FROM pw)`},
	{"topic and pathway links", noArgs, `WITH ts AS (INSERT INTO topic_skills (topic_id, skill_id)
		SELECT i, s FROM generate_series(1, ` + itoa(Topics) + `) i,
			LATERAL (VALUES ((i - 1) % ` + itoa(Skills) + ` + 1), ((i + 9) % ` + itoa(Skills) + ` + 1)) v(s)),
	tc AS (INSERT INTO topic_categories (topic_id, category_id, minutes, points)
		SELECT i, (i - 1) % ` + itoa(Categories) + ` + 1, 30, 1.5 FROM generate_series(1, ` + itoa(Topics) + `) i),
	pt AS (INSERT INTO pathway_topics (pathway_id, topic_id, position, mandatory)
		SELECT pw, (pw - 1) * ` + itoa(PathwayTopics) + ` + n, n, n <> ` + itoa(PathwayTopics) + `
		FROM generate_series(1, ` + itoa(Pathways) + `) pw, generate_series(1, ` + itoa(PathwayTopics) + `) n),
	ps AS (INSERT INTO pathway_skills (pathway_id, skill_id)
		SELECT pw, pw % ` + itoa(Skills) + ` + 1 FROM generate_series(1, ` + itoa(Pathways) + `) pw)
	INSERT INTO enrolment_codes (code, topic_id, pathway_id)
	SELECT 'T' || i, i, NULL FROM generate_series(1, ` + itoa(Topics) + `) i
	UNION ALL SELECT 'P' || i, NULL, i FROM generate_series(1, ` + itoa(Pathways) + `) i`},
	// Every tenth user (1, 11, 21 ...) manages the next nine: team leaders.
	// Every 50th user is inactive.
	{"users", usersEpoch, `INSERT INTO users (id, user_name, first_name, last_name, email, manager_email, lms_learner_id,
			lms_reference, timezone, active, created_at, updated_at)
		SELECT i, 'user' || lpad(i::text, 7, '0'), 'First' || i, 'Last' || (i % 1000),
			'user' || lpad(i::text, 7, '0') || '@bench.example',
			CASE WHEN i % 10 <> 1 THEN 'user' || lpad(((i - 1) / 10 * 10 + 1)::text, 7, '0') || '@bench.example' END,
			CASE WHEN i % 3 = 0 THEN 'lms-' || i END, CASE WHEN i % 3 = 0 THEN 'hr' END,
			'UTC', i % 50 <> 0, $2::timestamptz + i * interval '1 second', $2::timestamptz + i * interval '1 second'
		FROM generate_series(1, $1::int) i`},
	{"user links", usersArg, `WITH p AS (SELECT $1::int AS u),
	r AS (INSERT INTO user_roles (user_id, position, role_id)
		SELECT i, 1, (i - 1) % ` + itoa(Roles) + ` + 1 FROM p, generate_series(1, u) i
		UNION ALL SELECT i, 2, (i + 3) % ` + itoa(Roles) + ` + 1 FROM p, generate_series(2, u, 2) i),
	g AS (INSERT INTO user_groups (user_id, group_id)
		SELECT i, x FROM p, generate_series(1, u) i,
			LATERAL (VALUES ((i - 1) % ` + itoa(Groups) + ` + 1), ((i + 6) % ` + itoa(Groups) + ` + 1)) v(x)),
	o AS (INSERT INTO user_goals (user_id, goal_id)
		SELECT i, (i - 1) % ` + itoa(Goals) + ` + 1 FROM p, generate_series(1, u) i WHERE i % 3 <> 0)
	INSERT INTO user_custom_values (user_id, field_id, value)
	SELECT i, 1, 'Dept ' || (i % 25) FROM p, generate_series(1, u) i
	UNION ALL SELECT i, 2, ((i % 12) + 1)::text FROM p, generate_series(2, u, 2) i
	UNION ALL SELECT i, 3, CASE WHEN i % 4 = 0 THEN 'East;North' ELSE 'South' END
		FROM p, generate_series(1, u) i WHERE i % 4 IN (0, 1)`},
	// Pathway enrolment j (0-based) is user j mod U's, in pathway
	// (j mod U + j div U) mod Pathways + 1: distinct per user while j div U
	// < Pathways. Its topic enrolments have ids 5j+1 ... 5j+5, one per
	// topic of the pathway in position order (relationship pathway); their
	// statuses by j mod 4: all Unexplored; the first Exploring; the first two
	// Conquered and the third Applying; all Conquered. The pathway's status
	// follows them as the store's rule does (Unexplored, Exploring,
	// Exploring, Conquered at the last required topic's completion).
	// Direct enrolment d (0-based, id 5P+d+1) is user d mod U's
	// (d div U)-th, in the topics no pathway holds: distinct as long as
	// d div U < DirectTopics. updated_at is spread over the span after the
	// last created_at by a multiplicative permutation of the id, so an
	// updated_after selects a share of the rows from anywhere in the list.
	{"pathway topic enrolments", pathwayArgs, `INSERT INTO topic_enrolments (id, user_id, topic_id, status, relationship,
			due_date, completed_topic_at, certified_date, recertification_allowed, enrolled_by, progress_minutes,
			created_at, updated_at)
		SELECT id, j % $1::int + 1, ((j % $1::int + j / $1::int) % ` + itoa(Pathways) + `) * ` + itoa(PathwayTopics) + ` + n,
			st, 'pathway', CASE WHEN j % 5 = 0 THEN $4::timestamptz + interval '400 days' END,
			CASE WHEN st = 'Conquered' THEN $4::timestamptz + id * interval '1 second' + n * interval '1 hour' END,
			NULL, (((j % $1::int + j / $1::int) % ` + itoa(Pathways) + `) * ` + itoa(PathwayTopics) + ` + n) % 4 = 0, 'api',
			CASE WHEN st = 'Conquered' THEN 5 * n ELSE 0 END,
			$4::timestamptz + id * interval '1 second', ` + spreadUpdated + `
		FROM generate_series(0, $2::int - 1) j, generate_series(1, ` + itoa(PathwayTopics) + `) n,
			LATERAL (SELECT j::bigint * ` + itoa(PathwayTopics) + ` + n AS id,
				CASE j % 4 WHEN 0 THEN 'Unexplored'
					WHEN 1 THEN CASE WHEN n = 1 THEN 'Exploring' ELSE 'Unexplored' END
					WHEN 2 THEN CASE WHEN n <= 2 THEN 'Conquered' WHEN n = 3 THEN 'Applying' ELSE 'Unexplored' END
					ELSE 'Conquered' END AS st) v`},
	{"direct topic enrolments", pathwayArgs, `INSERT INTO topic_enrolments (id, user_id, topic_id, status, relationship,
			due_date, completed_topic_at, certified_date, recertification_allowed, enrolled_by, progress_minutes,
			created_at, updated_at)
		SELECT id, d % $1::int + 1,
			` + itoa(Pathways*PathwayTopics) + ` + ((d % $1::int) * 7 + d / $1::int) % ` + itoa(DirectTopics) + ` + 1,
			(ARRAY['Unexplored', 'Exploring', 'Applying', 'Conquered'])[d % 4 + 1], 'direct',
			CASE WHEN d % 5 = 0 THEN $4::timestamptz + interval '400 days' END,
			CASE WHEN d % 4 = 3 THEN $4::timestamptz + id * interval '1 second' + interval '1 hour' END,
			CASE WHEN d % 8 = 7 THEN $4::timestamptz + id * interval '1 second' + interval '1 hour' END,
			d % 8 = 7, 'api', CASE WHEN d % 4 = 3 THEN d % 20 ELSE 0 END,
			$4::timestamptz + id * interval '1 second', ` + spreadUpdated + `
		FROM generate_series(0, $3::int - $2::int * ` + itoa(PathwayTopics) + ` - 1) d,
			LATERAL (SELECT $2::bigint * ` + itoa(PathwayTopics) + ` + d + 1 AS id) v`},
	{"topic enrolment skills", noArgs, `INSERT INTO topic_enrolment_skills (enrolment_id, skill_id)
		SELECT id, id % ` + itoa(Skills) + ` + 1 FROM topic_enrolments WHERE id % 8 = 0`},
	{"pathway enrolments", pathwayEnrolArgs, `INSERT INTO pathway_enrolments (id, user_id, pathway_id, status, conquered_at,
			enrolled_by, created_at, updated_at)
		SELECT j + 1, j % $1::int + 1, (j % $1::int + j / $1::int) % ` + itoa(Pathways) + ` + 1,
			(ARRAY['Unexplored', 'Exploring', 'Exploring', 'Conquered'])[j % 4 + 1],
			CASE WHEN j % 4 = 3 THEN $3::timestamptz + (j::bigint * ` + itoa(PathwayTopics) + ` + 4) * interval '1 second'
				+ 4 * interval '1 hour' END,
			'api', $3::timestamptz + (j::bigint * ` + itoa(PathwayTopics) + ` + 1) * interval '1 second',
			$3::timestamptz + ($2::int + 1) * interval '1 second'
				+ ((j + 1)::bigint * ` + itoa(spreadFactor) + `) % $2::int * interval '1 second'
		FROM generate_series(0, $2::int - 1) j`},
	{"external knowledge", knowledgeArgs, `WITH p AS (SELECT $1::int AS u, $2::int AS k, $3::timestamptz AS t0),
	x AS (INSERT INTO external_knowledges (id, user_id, knowledge_type, title, provider, date_obtained,
			certificate_number, country_obtained, expires, assessment_score, total_time, notes, created_at, updated_at)
		SELECT r, (r - 1) % u + 1, (r - 1) % 5 + 1, 'Course ' || r, 'Provider ' || (r % 7),
			date '2024-01-01' + r % 365, 'CN-' || r, 'GB', CASE WHEN r % 3 = 0 THEN date '2030-01-01' END,
			r % 100, 60 + r % 120, '', t0 + r * interval '1 second', t0 + r * interval '1 second'
		FROM p, generate_series(1, k) r),
	s AS (INSERT INTO external_knowledge_skills (knowledge_id, skill_id)
		SELECT r, r % ` + itoa(Skills) + ` + 1 FROM p, generate_series(1, k) r)
	INSERT INTO external_knowledge_categories (knowledge_id, category_id, position, minutes, points)
	SELECT r, r % ` + itoa(Categories) + ` + 1, 1, 60, 2 FROM p, generate_series(1, k) r`},
	{"sequences", countArgs, `SELECT setval(pg_get_serial_sequence(t, 'id'), greatest(n, 1), n > 0)
		FROM (VALUES ('roles', ` + itoa(Roles) + `), ('groups', ` + itoa(Groups) + `), ('goals', ` + itoa(Goals) + `),
			('skills', ` + itoa(Skills) + `), ('categories', ` + itoa(Categories) + `), ('custom_fields', 3),
			('topics', ` + itoa(Topics) + `), ('pathways', ` + itoa(Pathways) + `), ('users', $1::int),
			('topic_enrolments', $2::int), ('pathway_enrolments', $4::int), ('external_knowledges', $3::int)) v(t, n)`},
}

// spreadFactor is the multiplier of the permutation that spreads
// updated_at: a prime, so that id -> id × spreadFactor mod n visits every
// residue once when n is not a multiple of it.
const spreadFactor = 7919

// spreadUpdated is a topic enrolment's updated_at ($3 topic enrolments,
// $4 the epoch, id its id): one second after the last created_at plus
// (id × spreadFactor mod $3) seconds, so that updated_after =
// UpdatedAfter(p, n) selects about p of the n rows, spread over the ids.
var spreadUpdated = `$4::timestamptz + ($3::int + 1) * interval '1 second'
				+ (id * ` + itoa(spreadFactor) + `) % $3::int * interval '1 second'`

// UpdatedAfter is the updated_after that selects the share p (0..1) of n
// generated topic enrolments (or of n pathway enrolments): those whose
// spread updated_at lies after it. With n not a multiple of spreadFactor
// it selects exactly n - 1 - floor((1-p)(n-1)) rows.
func UpdatedAfter(p float64, n int) time.Time {
	last := int(float64(n-1) * (1 - p))
	return Epoch.Add(time.Duration(n+1+last) * time.Second)
}

func itoa(n int) string { return fmt.Sprint(n) }

// scopeSQL sets the transaction's search_path to the schema $1 for that
// transaction only, as the store scopes its own.
const scopeSQL = `SELECT set_config('search_path', $1, true)`

// fillTenant writes spec's rows into schema in one transaction scoped with
// set_config (as the store scopes its own), then vacuums and analyzes the
// tables, as autovacuum would after a bulk import, so that the first
// benchmark requests get the plans (and index-only scans) production would.
func fillTenant(ctx context.Context, pool *sqlx.DB, schema string, spec TenantSpec) error {
	tx, err := pool.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, scopeSQL, schema); err != nil {
		return fmt.Errorf("scope to %s: %w", schema, err)
	}
	for _, st := range fillStatements {
		if _, err := tx.ExecContext(ctx, st.sql, st.args(spec)...); err != nil {
			return fmt.Errorf("fill %s: %s: %w", spec.Slug, st.what, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	tables := make([]string, len(filledTables))
	for i, t := range filledTables {
		tables[i] = schema + "." + t
	}
	if _, err := pool.ExecContext(ctx, `VACUUM (ANALYZE) `+strings.Join(tables, ", ")); err != nil {
		return fmt.Errorf("vacuum %s: %w", spec.Slug, err)
	}
	return nil
}

// filledTables are the tables the fill writes (VACUUM takes no search_path
// scoping, so they are qualified with the tenant's schema).
var filledTables = []string{"roles", "groups", "goals", "skills", "categories", "custom_fields", "users", "user_roles",
	"user_groups", "user_goals", "user_custom_values", "topics", "pathways", "topic_skills", "topic_categories",
	"pathway_topics", "pathway_skills", "enrolment_codes", "topic_enrolments", "topic_enrolment_skills",
	"pathway_enrolments", "external_knowledges", "external_knowledge_skills", "external_knowledge_categories"}
