package main

import (
	"fmt"
	"strings"
)

// The SQL of the physical-limit baseline (physical.go): for each list, one
// statement that returns the whole response body, built by PostgreSQL. The
// statements are composed here from fixed text; every value of a request
// is a bound parameter. Parameters $1, $2 and $3 are always the page size,
// the offset and the page number; a list's filters come after them.
//
// How the bytes match learngate's (encoding/json through gin):
//   - objects are row_to_json of a row whose columns are the fields in the
//     API's order (row_to_json writes no white space); arrays are
//     string_agg(..., ',') between brackets (json_agg writes ", ");
//   - timestamps are tsSQL (learngate.TimestampLayout in UTC, whole seconds);
//   - numeric columns that learngate reads into a float64 are cast to
//     float8, whose shortest text is Go's for the values the API stores
//     (below 1e15, 2 decimal places);
//   - Go escapes <, >, &, U+2028 and U+2029 in strings, PostgreSQL does
//     not: goEscapesSQL rewrites them in the whole body (none of them can
//     stand outside a string in JSON);
//   - the lists and sorts Go makes (groups, goals, knowledge skills) are
//     ordered by lower(name) COLLATE "C" (byte order, as Go compares).

// tsSQL formats the timestamptz expression col as learngate.TimestampLayout in
// UTC; NULL stays NULL.
func tsSQL(col string) string {
	return `to_char(` + col + ` AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"')`
}

// goEscapesSQL wraps the text expression body in the escapes Go's
// encoding/json adds and PostgreSQL's JSON does not.
func goEscapesSQL(body string) string {
	return `replace(replace(replace(replace(replace(` + body + `, '<', '\u003c'), '>', '\u003e'), '&', '\u0026'), ` +
		`U&'\2028', '\u2028'), U&'\2029', '\u2029')`
}

// envelopeSQL is the list envelope around records (a text expression of
// the records joined by commas, NULL for none), total the count.
func envelopeSQL(total, records string) string {
	return goEscapesSQL(`'{"total_records":' || ` + total + ` || ',"max_per_page":' || $1::bigint ||
		',"current_page":' || $3::bigint || ',"total_pages":' || (` + total + ` + $1::bigint - 1) / $1::bigint ||
		',"records":[' || COALESCE(` + records + `, '') || ']}'`)
}

// fullNameSQL is store.fullName over the first and last name columns of alias u.
const fullNameSQL = `CASE WHEN u.first_name = '' THEN u.last_name WHEN u.last_name = '' THEN u.first_name
	ELSE u.first_name || ' ' || u.last_name END`

// userLinkSQL is "/users/" + url.PathEscape(u.user_name): bytes other than
// letters, digits and -_.~$&+:=@ as %XX (upper-case hex).
const userLinkSQL = `'/users/' || CASE WHEN u.user_name ~ '^[-A-Za-z0-9_.~$&+:=@]*$' THEN u.user_name ELSE (
	SELECT string_agg(CASE WHEN b < 128 AND chr(b) ~ '^[-A-Za-z0-9_.~$&+:=@]$' THEN chr(b)
		ELSE '%' || upper(lpad(to_hex(b), 2, '0')) END, '' ORDER BY i)
	FROM (SELECT get_byte(raw, i) AS b, i FROM (SELECT convert_to(u.user_name, 'UTF8') AS raw) r,
		generate_series(0, length(raw) - 1) i) bytes) END`

// enrolledUserSQL is the user object of an enrolment (learngate.EnrolledUser).
const enrolledUserSQL = `(SELECT row_to_json(x)::text FROM (SELECT u.id, ` + fullNameSQL + ` AS name, u.user_name,
	` + userLinkSQL + ` AS link) x)`

// validAnchorBelowSQL is validAnchorSQL with the rank bound maxRank.
func validAnchorBelowSQL(maxRank string) string {
	return `SELECT rank, created_at, id FROM user_rank_anchors a WHERE rank <= ` + maxRank + ` AND NOT EXISTS (
		SELECT 1 FROM user_rank_dirty d WHERE (d.created_at, d.id) <= (a.created_at, a.id)) ORDER BY rank DESC LIMIT 1`
}

// userCountSQL is the users total: from the newest valid rank anchor when
// the list is not filtered (minus the inactive users for active=true
// alone), else a count of the filter.
func userCountSQL(kind userCountKind, where string) string {
	anchored := `SELECT CASE WHEN a.rank IS NULL THEN (SELECT count(*) FROM users)
		ELSE a.rank + (SELECT count(*) FROM users WHERE (created_at, id) >= (a.created_at, a.id)) END AS n
		FROM (SELECT 1) one LEFT JOIN LATERAL (` + validAnchorBelowSQL("9223372036854775807") + `) a ON true`
	switch kind {
	case countAnchored:
		return anchored
	case countActive:
		return `SELECT n - (SELECT count(*) FROM users WHERE NOT active) AS n FROM (` + anchored + `) t`
	}
	return `SELECT count(*) AS n FROM users WHERE ` + where
}

// userCountKind says how userCountSQL counts.
type userCountKind int

const (
	countFiltered userCountKind = iota
	countAnchored
	countActive
)

// userColumnsSQL are the users columns the page reads.
const userColumnsSQL = `id, user_name, first_name, last_name, email, manager_email, manager_2_email, manager_3_email,
	manager_4_email, manager_5_email, mentor_email, lms_learner_id, lms_reference, org_admin, admin_type, creator,
	current_sign_in_at, deactivate_scheduled_date, reactivate_scheduled_date, language, created_by, timezone,
	user_notifications_enabled, team_leader_report_frequency, learner_report_frequency, assessor_report_frequency,
	default_landing_page, login, type, active, platform_champion, created_at, updated_at`

// pageLinksSQL are the CTEs of the page's links, read for the whole page at
// once as store.loadUsers does (the page's ids and emails in arrays, which
// the planner probes the link tables' indexes with): roles by position,
// group and goal names, custom values, the team leaders (the page's emails
// lower-cased once against the stored lower-cased manager emails, as
// teamLeadersSQL does).
const pageLinksSQL = `page_keys AS MATERIALIZED (SELECT array_agg(id) AS ids, array_agg(lower(email)) AS emails FROM page),
	roles AS (SELECT ur.user_id,
		max(r.name) FILTER (WHERE ur.position = 1) AS r1, max(r.name) FILTER (WHERE ur.position = 2) AS r2,
		max(r.name) FILTER (WHERE ur.position = 3) AS r3, max(r.name) FILTER (WHERE ur.position = 4) AS r4,
		max(r.name) FILTER (WHERE ur.position = 5) AS r5
		FROM user_roles ur JOIN roles r ON r.id = ur.role_id WHERE ur.user_id = ANY ((SELECT ids FROM page_keys)::bigint[])
		GROUP BY ur.user_id),
	group_names AS (SELECT ug.user_id, string_agg(g.name, ';' ORDER BY lower(g.name) COLLATE "C", g.name COLLATE "C") AS names
		FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = ANY ((SELECT ids FROM page_keys)::bigint[])
		GROUP BY ug.user_id),
	goal_names AS (SELECT ug.user_id, string_agg(g.name, ';' ORDER BY lower(g.name) COLLATE "C", g.name COLLATE "C") AS names
		FROM user_goals ug JOIN goals g ON g.id = ug.goal_id WHERE ug.user_id = ANY ((SELECT ids FROM page_keys)::bigint[])
		GROUP BY ug.user_id),
	field_keys AS MATERIALIZED (SELECT id, ',' || to_json('X-' || name)::text || ':' AS key FROM custom_fields),
	custom_values AS MATERIALIZED (SELECT user_id, field_id, value FROM user_custom_values
		WHERE user_id = ANY ((SELECT ids FROM page_keys)::bigint[])),
	custom AS (SELECT p.id AS user_id, string_agg(f.key || COALESCE(to_json(v.value)::text, 'null'), '' ORDER BY f.id) AS fields
		FROM page p CROSS JOIN field_keys f LEFT JOIN custom_values v ON v.user_id = p.id AND v.field_id = f.id GROUP BY p.id),
	leaders AS (SELECT p.id FROM unnest((SELECT ids FROM page_keys), (SELECT emails FROM page_keys)) AS p (id, email)
		WHERE EXISTS (SELECT 1 FROM users o WHERE o.id <> p.id AND (o.manager_email_lower = p.email
			OR o.manager_2_email_lower = p.email OR o.manager_3_email_lower = p.email
			OR o.manager_4_email_lower = p.email OR o.manager_5_email_lower = p.email)))`

// userObjectSQL is the user object (learngate.User's JSON) of page row p: the
// fixed fields (the row j of userFieldsSQL) by row_to_json, then
// X-<name> for every custom field of the tenant in id order.
const userObjectSQL = `left(row_to_json(j)::text, -1) || COALESCE(c.fields, '') || '}'`

// userFieldsSQL joins page row p to its links and makes the row j of the
// user object's fixed fields, in the API's order. $4 is learngate.AdminTypeNames.
var userFieldsSQL = `LEFT JOIN roles rl ON rl.user_id = p.id LEFT JOIN group_names gn ON gn.user_id = p.id
	LEFT JOIN goal_names gl ON gl.user_id = p.id LEFT JOIN custom c ON c.user_id = p.id
	LEFT JOIN leaders ld ON ld.id = p.id
	CROSS JOIN LATERAL (SELECT p.user_name, p.first_name, p.last_name, p.email, p.manager_email, p.manager_2_email,
		p.manager_3_email, p.manager_4_email, p.manager_5_email, COALESCE(p.mentor_email, '') AS mentor_email,
		COALESCE(p.lms_learner_id, '') AS lms_learner_id, COALESCE(p.lms_reference, '') AS lms_reference,
		p.org_admin, p.creator, ld.id IS NOT NULL AS team_leader,
		` + tsSQL("p.created_at") + ` AS created_at, ` + tsSQL("p.updated_at") + ` AS updated_at,
		` + tsSQL("p.current_sign_in_at") + ` AS current_sign_in_at, p.admin_type,
		CASE WHEN p.org_admin AND p.admin_type >= 0 AND p.admin_type < cardinality($4::text[])
			THEN ($4::text[])[p.admin_type + 1] ELSE 'none' END AS org_admin_access,
		` + tsSQL("p.deactivate_scheduled_date") + ` AS deactivate_scheduled_date,
		` + tsSQL("p.reactivate_scheduled_date") + ` AS reactivate_scheduled_date,
		p.language, p.created_by, p.timezone, p.user_notifications_enabled, p.team_leader_report_frequency,
		p.learner_report_frequency, p.assessor_report_frequency,
		COALESCE(p.default_landing_page, 'Default') AS default_landing_page, p.login, p.type, p.active,
		p.platform_champion, rl.r1 AS role_1, rl.r2 AS role_2, rl.r3 AS role_3, rl.r4 AS role_4, rl.r5 AS role_5,
		COALESCE(gn.names, '') AS groups, COALESCE(gl.names, '') AS goals) j`

// usersSQL is GET /papi/users: where filters users (fixed text with
// placeholders from $5) and may read ctes (customFilterSQL's); kind says
// how the total is counted and whether rank anchors place the page. The page is read from the nearer end of the list: newest first
// with OFFSET, or oldest first from the rank anchor below it (or the
// oldest user) and reversed; a one-time filter runs only one of the two.
func usersSQL(kind userCountKind, where string, ctes []string) string {
	lowAnchor := `SELECT 0::bigint AS rank, '-infinity'::timestamptz AS created_at, 0::bigint AS id`
	if kind == countAnchored {
		lowAnchor = `SELECT COALESCE(a.rank, 0) AS rank, COALESCE(a.created_at, '-infinity') AS created_at,
			COALESCE(a.id, 0) AS id FROM bounds b LEFT JOIN LATERAL (` + validAnchorBelowSQL("b.low") + `) a ON true`
	}
	with := ""
	for _, c := range ctes {
		with += c + ",\n\t"
	}
	return `WITH ` + with + `total AS MATERIALIZED (` + userCountSQL(kind, where) + `),
	bounds AS MATERIALIZED (SELECT n, least($1::bigint, n - $2::bigint) AS size,
		n - $2::bigint - least($1::bigint, n - $2::bigint) AS low FROM total),
	low_anchor AS MATERIALIZED (` + lowAnchor + `),
	plan AS MATERIALIZED (SELECT greatest(b.size, 0) AS size, greatest(b.low - a.rank, 0) AS skip,
		$2::bigint <= b.low - a.rank AS newest, a.created_at, a.id FROM bounds b, low_anchor a),
	page AS (
		(SELECT ` + userColumnsSQL + ` FROM users WHERE ` + where + ` AND (SELECT newest FROM plan)
			ORDER BY created_at DESC, id DESC LIMIT $1::bigint OFFSET $2::bigint)
		UNION ALL
		(SELECT * FROM (SELECT ` + userColumnsSQL + ` FROM users WHERE ` + where + ` AND NOT (SELECT newest FROM plan)
			AND (created_at, id) >= ((SELECT created_at FROM plan), (SELECT id FROM plan))
			ORDER BY created_at, id LIMIT $1::bigint OFFSET (SELECT skip FROM plan)) oldest
			ORDER BY created_at, id LIMIT (SELECT size FROM plan))),
	` + pageLinksSQL + `,
	body AS (SELECT string_agg(` + userObjectSQL + `, ',' ORDER BY p.created_at DESC, p.id DESC) AS records
		FROM page p ` + userFieldsSQL + `)
	SELECT ` + envelopeSQL("t.n", "body.records") + ` FROM total t, body`
}

// customFilterSQL is one x-<name> filter of the users list (store.customFilterSQL)
// with the field looked up by name in the statement: k is the lower-cased
// name, num the value as a number is stored, day as a date is stored,
// items the list items, raw the trimmed value (placeholders). A name of no
// field filters nothing, as does a list filter without items. It returns
// the condition and the CTE it reads, custom_match_<n>: the matching
// users, found once for the count and the page. The CTE is one branch per
// field type, each gated by the field's type (a one-time filter, so only
// the field's own branch runs and it can use the value index): a single
// CASE over the type hid the exact number and date matches from the index
// and took 40 s at 1,000,000 users.
func customFilterSQL(n int, k, num, day, items, raw string) (cte, cond string) {
	field := func(col string) string {
		return `(SELECT ` + col + ` FROM custom_fields WHERE lower(name) = ` + k + `)`
	}
	name := fmt.Sprintf("custom_match_%d", n)
	cte = fmt.Sprintf(`%[8]s AS MATERIALIZED (
		SELECT v.user_id FROM user_custom_values v WHERE %[7]s = 'number' AND v.field_id = %[6]s
			AND v.value = %[2]s AND length(v.value) <= 64
		UNION ALL
		SELECT v.user_id FROM user_custom_values v WHERE %[7]s = 'date' AND v.field_id = %[6]s
			AND v.value = %[3]s AND length(v.value) <= 64
		UNION ALL
		SELECT v.user_id FROM user_custom_values v WHERE %[7]s = 'list' AND v.field_id = %[6]s
			AND lower(v.value) LIKE ANY (SELECT `+likeSQL("want")+` FROM unnest(%[4]s::text[]) AS want)
			AND EXISTS (SELECT 1 FROM unnest(string_to_array(v.value, ';')) AS item, unnest(%[4]s::text[]) AS want
				WHERE strpos(lower(item), lower(want)) > 0)
		UNION ALL
		SELECT v.user_id FROM user_custom_values v WHERE %[7]s NOT IN ('number', 'date', 'list') AND v.field_id = %[6]s
			AND lower(v.value) LIKE `+likeSQL("%[5]s")+`)`, k, num, day, items, raw, field("id"), field("field_type"), name)
	cond = fmt.Sprintf(`(NOT EXISTS (SELECT 1 FROM custom_fields WHERE lower(name) = %[1]s)
	OR (cardinality(%[2]s::text[]) = 0 AND %[3]s = 'list') OR users.id IN (SELECT user_id FROM %[4]s))`,
		k, items, field("field_type"), name)
	return cte, cond
}

// likeSQL is the LIKE pattern matching values that hold the text of expr
// anywhere, ignoring case (store.customFilterSQL escapes it in Go; here
// PostgreSQL does, on a bound value, so the planner folds it to a constant
// the trigram index user_custom_values_lower_trgm serves).
func likeSQL(expr string) string {
	return `'%%' || replace(replace(replace(lower(` + expr + `), '\', '\\'), '%%', '\%%'), '_', '\_') || '%%'`
}

// topicEnrolmentLinksSQL are the CTEs of a topic enrolment page's skills
// and categories, read for the whole page at once with the page's
// enrolment and topic ids in arrays (topicEnrolmentSkillsSQL and
// topicCategoriesSQL, grouped).
const topicEnrolmentLinksSQL = `page_keys AS MATERIALIZED (SELECT array_agg(e.id) AS ids, array_agg(DISTINCT e.topic_id) AS topics
		FROM ids JOIN topic_enrolments e ON e.id = ids.id),
	skills_attained AS (SELECT x.enrolment_id, string_agg(row_to_json(r)::text, ',' ORDER BY lower(x.name), x.name) AS items
		FROM (SELECT es.enrolment_id, s.id, s.name FROM topic_enrolment_skills es JOIN skills s ON s.id = es.skill_id
			WHERE es.enrolment_id = ANY ((SELECT ids FROM page_keys)::bigint[])
			UNION
			SELECT e.id, s.id, s.name FROM topic_enrolments e
				JOIN topic_skills ts ON ts.topic_id = e.topic_id JOIN skills s ON s.id = ts.skill_id
			WHERE e.id = ANY ((SELECT ids FROM page_keys)::bigint[]) AND e.status = 'Conquered') x
		CROSS JOIN LATERAL (SELECT x.id, x.name) r GROUP BY x.enrolment_id),
	topic_categories_of AS (SELECT tc.topic_id, string_agg(row_to_json(r)::text, ',' ORDER BY lower(c.name), c.name) AS items
		FROM topic_categories tc JOIN categories c ON c.id = tc.category_id
		CROSS JOIN LATERAL (SELECT c.name, tc.minutes, tc.points::float8 AS points) r
		WHERE tc.topic_id = ANY ((SELECT topics FROM page_keys)::bigint[]) GROUP BY tc.topic_id),`

// topicEnrolmentObjectSQL is the topic enrolment object (learngate.TopicEnrolment's
// JSON) of e joined with users u, topics t and the links sk and tc.
var topicEnrolmentObjectSQL = `left(row_to_json(j)::text, -1) || ',"skills_attained":[' || COALESCE(sk.items, '') ||
	'],"categories":[' || COALESCE(tc.items, '') ||
	'],"user":' || ` + enrolledUserSQL + ` ||
	',"topic":' || (SELECT row_to_json(x)::text FROM (SELECT t.id, t.title, '/topics/' || t.id AS link, t.knowledge_type,
		t.show_certificate, t.external_id) x) || '}'`

// topicEnrolmentFieldsSQL is the lateral row j of topicEnrolmentObjectSQL.
var topicEnrolmentFieldsSQL = `LEFT JOIN skills_attained sk ON sk.enrolment_id = e.id
	LEFT JOIN topic_categories_of tc ON tc.topic_id = e.topic_id
	CROSS JOIN LATERAL (SELECT e.id, ` + tsSQL("e.created_at") + ` AS created_at,
		` + tsSQL("e.updated_at") + ` AS updated_at, ` + tsSQL("e.completed_topic_at") + ` AS completed_topic_at,
		e.status, ` + tsSQL("e.due_date") + ` AS due_date, e.relationship,
		CASE WHEN e.status = 'Conquered' THEN t.minutes + e.progress_minutes ELSE 0 END AS conquered_minutes,
		CASE WHEN e.status = 'Conquered' THEN t.cpd_minutes + e.progress_minutes ELSE 0 END AS conquered_cpd_minutes,
		e.enrolled_by, ` + tsSQL("e.certified_date") + ` AS certified_date, e.recertification_allowed, e.version) j`

// pathwayEnrolmentObjectSQL is the pathway enrolment object
// (learngate.PathwayEnrolment's JSON) of e joined with users u and pathways pw.
var pathwayEnrolmentObjectSQL = `left(row_to_json(j)::text, -1) || ',"skills_attained":[' || COALESCE((
		SELECT string_agg(row_to_json(s)::text, ',' ORDER BY lower(s.name), s.name) FROM (
			SELECT s.id, s.name FROM pathway_enrolment_skills es JOIN skills s ON s.id = es.skill_id WHERE es.enrolment_id = e.id
			UNION
			SELECT s.id, s.name FROM pathway_skills ps JOIN skills s ON s.id = ps.skill_id
			WHERE ps.pathway_id = e.pathway_id AND e.status IN ('Conquered', 'recertify')) s), '') ||
	'],"user":' || ` + enrolledUserSQL + ` ||
	',"pathway":' || (SELECT row_to_json(x)::text FROM (SELECT pw.id, pw.title, '/pathways/' || pw.id AS link,
		pw.show_certificate, pw.external_id) x) || '}'`

// pathwayEnrolmentFieldsSQL is the lateral row j of pathwayEnrolmentObjectSQL.
var pathwayEnrolmentFieldsSQL = `CROSS JOIN LATERAL (SELECT e.id, ` + tsSQL("e.created_at") + ` AS created_at,
		` + tsSQL("e.updated_at") + ` AS updated_at, ` + tsSQL("e.conquered_at") + ` AS conquered_at,
		e.status, ` + tsSQL("e.due_date") + ` AS due_date, e.enrolled_by, ` + tsSQL("e.certified_date") + ` AS certified_date,
		e.recertification_allowed) j`

// enrolmentsSQL is a topic or pathway enrolment list: where filters the
// current enrolments e of table (placeholders from $4); the page's ids
// are read from the enrolments alone (id order), then joined. With
// userCheck set (GET /topic_assignments/user/{name}) the body is NULL
// when that condition finds no user.
func enrolmentsSQL(table, where, userCheck string) string {
	join, links, object, fields := `JOIN topics t ON t.id = e.topic_id`, topicEnrolmentLinksSQL, topicEnrolmentObjectSQL,
		topicEnrolmentFieldsSQL
	if table == "pathway_enrolments" {
		join, links, object, fields = `JOIN pathways pw ON pw.id = e.pathway_id`, "", pathwayEnrolmentObjectSQL,
			pathwayEnrolmentFieldsSQL
	}
	body := envelopeSQL("t.n", "body.records")
	if userCheck != "" {
		body = `CASE WHEN ` + userCheck + ` THEN ` + body + ` END`
	}
	counted := `total AS MATERIALIZED (SELECT count(*) AS n FROM ` + table + ` e WHERE ` + where + `),
	ids AS MATERIALIZED (SELECT e.id FROM ` + table + ` e WHERE ` + where + ` AND (SELECT n FROM total) > $2::bigint
		ORDER BY e.id LIMIT $1::bigint OFFSET $2::bigint),`
	if where == unfilteredEnrolmentsSQL {
		anchors := strings.TrimSuffix(table, "s") + "_rank"
		counted = rankedCTEs(table, "x.removed_at IS NULL", anchors+"_anchors", anchors+"_dirty")
	}
	return `WITH ` + counted + `
	` + links + `
	body AS (SELECT string_agg(` + object + `, ',' ORDER BY e.id) AS records
		FROM ids JOIN ` + table + ` e ON e.id = ids.id JOIN users u ON u.id = e.user_id ` + join + ` ` + fields + `)
	SELECT ` + body + ` FROM total t, body`
}

// unfilteredEnrolmentsSQL is physicalEnrolments' condition when nothing
// filters the list: the list the rank anchors serve.
const unfilteredEnrolmentsSQL = "e.removed_at IS NULL"

// rankedCTEs are the total and ids CTEs of an unfiltered id-ordered list
// (rows of table as x, listed those it shows) read from its rank anchors as
// learngate reads them (store's anchorsSQL, countSQL and pageSQL): the
// newest valid anchor's rank plus the rows from it on, and the page's ids
// skipped from the anchor at or below its offset ($2). The scans are
// LATERAL to the anchors row, so PostgreSQL plans them for the few rows
// they read, as it does learngate's statements with the anchors' ids as
// parameters.
func rankedCTEs(table, listed, anchors, dirty string) string {
	return `a AS MATERIALIZED (SELECT coalesce(n.rank, 0) AS newest_rank, coalesce(n.id, 0) AS newest_id,
			coalesce(p.rank, 0) AS page_rank, coalesce(p.id, 0) AS page_id
		FROM (SELECT coalesce(min(id), 9223372036854775807) AS id FROM ` + dirty + `) low
		LEFT JOIN LATERAL (SELECT rank, id FROM ` + anchors + ` WHERE id < low.id ORDER BY rank DESC LIMIT 1) n ON true
		LEFT JOIN LATERAL (SELECT rank, id FROM ` + anchors + ` WHERE id < low.id AND rank <= $2::bigint
			ORDER BY rank DESC LIMIT 1) p ON true),
	total AS MATERIALIZED (SELECT a.newest_rank + c.n AS n FROM a CROSS JOIN LATERAL (
		SELECT count(*) AS n FROM ` + table + ` x WHERE ` + listed + ` AND x.id >= a.newest_id) c),
	ids AS MATERIALIZED (SELECT s.id FROM a CROSS JOIN LATERAL (
		SELECT x.id FROM ` + table + ` x WHERE ` + listed + ` AND x.id >= a.page_id
		ORDER BY x.id LIMIT $1::bigint OFFSET $2::bigint - a.page_rank) s WHERE (SELECT n FROM total) > $2::bigint),`
}

// knowledgeObjectSQL is the external knowledge object (learngate.ExternalKnowledge's
// JSON) of k joined with users u: skills by name ignoring case then id (as
// Go sorts them), categories in position order.
var knowledgeObjectSQL = `left(row_to_json(j)::text, -1) || ',"skills_attained":[' || COALESCE((
		SELECT string_agg(row_to_json(s)::text, ',' ORDER BY lower(s.name) COLLATE "C", s.id) FROM (
			SELECT s.id, s.name FROM external_knowledge_skills ks JOIN skills s ON s.id = ks.skill_id
			WHERE ks.knowledge_id = k.id) s), '') ||
	'],"categories":[' || COALESCE((
		SELECT string_agg(row_to_json(x)::text, ',' ORDER BY kc.position) FROM external_knowledge_categories kc
		JOIN categories c ON c.id = kc.category_id CROSS JOIN LATERAL (SELECT c.name, kc.minutes, kc.points::float8 AS points) x
		WHERE kc.knowledge_id = k.id), '') || ']}'`

// knowledgeFieldsSQL is the lateral row j of knowledgeObjectSQL.
var knowledgeFieldsSQL = `CROSS JOIN LATERAL (SELECT k.id, k.knowledge_type, k.title, k.code, k.provider,
		to_char(k.date_obtained, 'YYYY-MM-DD') AS date_obtained, k.certificate_number, k.country_obtained,
		k.state_obtained, to_char(k.expires, 'YYYY-MM-DD') AS expires, k.qualification_level,
		k.assessment_score::float8 AS assessment_score, k.total_time, k.notes, k.klass,
		` + tsSQL("k.created_at") + ` AS created_at, ` + tsSQL("k.updated_at") + ` AS updated_at,
		k.development_focus, u.user_name) j`

// knowledgeSQL is GET /papi/external_knowledges: where filters the records
// k (placeholders from $4). Every record has a user (a foreign key), so the
// count joins no users.
func knowledgeSQL(where string) string {
	counted := `total AS MATERIALIZED (SELECT count(*) AS n FROM external_knowledges k WHERE ` + where + `),
	ids AS (SELECT k.id FROM external_knowledges k WHERE ` + where + ` AND (SELECT n FROM total) > $2::bigint
		ORDER BY k.id LIMIT $1::bigint OFFSET $2::bigint),`
	if where == "true" {
		counted = rankedCTEs("external_knowledges", "true", "knowledge_rank_anchors", "knowledge_rank_dirty")
	}
	return `WITH ` + counted + `
	body AS (SELECT string_agg(` + knowledgeObjectSQL + `, ',' ORDER BY k.id) AS records
		FROM ids JOIN external_knowledges k ON k.id = ids.id JOIN users u ON u.id = k.user_id ` + knowledgeFieldsSQL + `)
	SELECT ` + envelopeSQL("t.n", "body.records") + ` FROM total t, body`
}

// whereSQL joins conditions with AND; none gives "true".
func whereSQL(conds []string) string {
	if len(conds) == 0 {
		return "true"
	}
	return strings.Join(conds, " AND ")
}
