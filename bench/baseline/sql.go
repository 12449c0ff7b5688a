package main

// The SQL the baseline runs: for the reads, copies of learngate's
// statements, each naming the store function it copies, so that they can
// be re-aligned when the store's SQL changes; for the batch writes, the
// least set-based SQL doing the same work. Every statement runs in a
// transaction that begins with scopeSQL, as store.TenantDB.run does.

// scopeSQL: store.TenantDB.run.
const scopeSQL = `SELECT set_config('search_path', $1, true)`

// The unfiltered users list (store.ListUsers through store.selectUserPage,
// page 1): the newest valid rank anchor (validAnchorSQL), the users after it
// (countUsersSinceAnchorSQL, plus the anchor's rank; countUsersSQL when
// there is no anchor yet), then the page newest first (pageUsersSQL).
// userColumns is store.userColumns.
const (
	userColumns = `id, user_name, first_name, last_name, email,
	manager_email, manager_2_email, manager_3_email, manager_4_email, manager_5_email,
	mentor_email, lms_learner_id, lms_reference, org_admin, admin_type, creator, current_sign_in_at,
	deactivate_scheduled_date, reactivate_scheduled_date, language, created_by, timezone,
	user_notifications_enabled, force_pwd_reset_next_login, manager_email_report_1st_month,
	manager_email_report_15th_month, team_leader_report_frequency, learner_report_frequency,
	assessor_report_frequency, default_landing_page, login, type, active, platform_champion,
	password_hash, created_at, updated_at`
	validAnchorSQL = `SELECT rank, created_at, id FROM user_rank_anchors a
	WHERE rank <= $1 AND NOT EXISTS (
		SELECT 1 FROM user_rank_dirty d WHERE (d.created_at, d.id) <= (a.created_at, a.id))
	ORDER BY rank DESC LIMIT 1`
	countUsersSinceAnchorSQL = `SELECT count(*) FROM users WHERE (created_at, id) >= ($1, $2)`
	countUsersSQL            = `SELECT count(*) FROM users`
	pageUsersSQL             = `SELECT ` + userColumns + ` FROM users WHERE true ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2`
)

// customFieldNamesSQL, userLinksSQL and teamLeadersSQL: store.loadUsers
// (teamLeadersSQL is store.teamLeadersSQL).
const (
	customFieldNamesSQL = `SELECT id, name FROM custom_fields ORDER BY id`
	userLinksSQL        = `
		SELECT ur.user_id, 'role' AS kind, ur.position, 0 AS field_id, r.name AS value
		FROM user_roles ur JOIN roles r ON r.id = ur.role_id WHERE ur.user_id = ANY($1)
		UNION ALL
		SELECT ug.user_id, 'group', 0, 0, g.name FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = ANY($1)
		UNION ALL
		SELECT ug.user_id, 'goal', 0, 0, g.name FROM user_goals ug JOIN goals g ON g.id = ug.goal_id WHERE ug.user_id = ANY($1)
		UNION ALL
		SELECT v.user_id, 'custom', 0, v.field_id, v.value FROM user_custom_values v WHERE v.user_id = ANY($1)`
	teamLeadersSQL = `SELECT p.id FROM unnest($1::bigint[], $2::text[]) AS p (id, email) WHERE EXISTS (
	SELECT 1 FROM users o WHERE o.id <> p.id AND (lower(o.manager_email) = lower(p.email)
		OR lower(o.manager_2_email) = lower(p.email) OR lower(o.manager_3_email) = lower(p.email)
		OR lower(o.manager_4_email) = lower(p.email) OR lower(o.manager_5_email) = lower(p.email)))`
)

// countTopicEnrolmentsSQL and pageTopicEnrolmentsSQL: store.listTopicEnrolments
// (no filter) with store.pageSQL over store.topicEnrolmentSelect.
const (
	countTopicEnrolmentsSQL = `SELECT count(*) FROM topic_enrolments e WHERE e.removed_at IS NULL`
	pageTopicEnrolmentsSQL  = `SELECT e.id, e.created_at, e.updated_at, e.completed_topic_at, e.status, e.due_date,
	e.relationship,
	CASE WHEN e.status = 'Conquered' THEN t.minutes + e.progress_minutes ELSE 0 END AS conquered_minutes,
	CASE WHEN e.status = 'Conquered' THEN t.cpd_minutes + e.progress_minutes ELSE 0 END AS conquered_cpd_minutes,
	e.enrolled_by, e.certified_date, e.recertification_allowed, e.version,
	u.id AS user_id, u.first_name AS user_first_name, u.last_name AS user_last_name, u.user_name,
	t.id AS topic_id, t.title AS topic_title, t.knowledge_type, t.show_certificate, t.external_id
FROM topic_enrolments e JOIN users u ON u.id = e.user_id JOIN topics t ON t.id = e.topic_id WHERE e.id IN (SELECT e.id FROM topic_enrolments e WHERE e.removed_at IS NULL ORDER BY e.id LIMIT $1 OFFSET $2) ORDER BY e.id`
)

// topicEnrolmentSkillsSQL and topicCategoriesSQL: store.loadTopicEnrolments
// (the first is store.topicEnrolmentSkillsSQL).
const (
	topicEnrolmentSkillsSQL = `SELECT * FROM (
	SELECT es.enrolment_id, s.id, s.name FROM topic_enrolment_skills es JOIN skills s ON s.id = es.skill_id
	WHERE es.enrolment_id = ANY($1)
	UNION
	SELECT e.id, s.id, s.name FROM topic_enrolments e
		JOIN topic_skills ts ON ts.topic_id = e.topic_id JOIN skills s ON s.id = ts.skill_id
	WHERE e.id = ANY($1) AND e.status = 'Conquered'
) x ORDER BY enrolment_id, lower(name), name`
	topicCategoriesSQL = `SELECT tc.topic_id, c.name, tc.minutes, tc.points
		FROM topic_categories tc JOIN categories c ON c.id = tc.category_id
		WHERE tc.topic_id = ANY($1) ORDER BY tc.topic_id, lower(c.name), c.name`
)

// lookupNamesSQL: store.lookupNames, for table roles, groups, goals,
// skills or categories (a constant of the caller).
func lookupNamesSQL(table string) string {
	return `SELECT t.n AS name, c.id FROM unnest($1::text[]) AS t(n)
		JOIN ` + table + ` c ON lower(c.name) = lower(t.n) FOR KEY SHARE OF c`
}

// existingUsersSQL: store.existingUsers.
const existingUsersSQL = `SELECT id, user_name, email FROM users WHERE user_name = ANY($1)`

// customFieldsSQL: store.customFieldsByName.
const customFieldsSQL = `SELECT id, name, field_type, options FROM custom_fields`

// takenSQL is store.checkTaken for the whole batch at once: the users
// holding one of the batch's user_names or emails.
const takenSQL = `SELECT user_name, email FROM users WHERE user_name = ANY($1) OR lower(email) = ANY($2)`

// insertUsersSQL inserts a batch's new users (store.saveUser's
// insertUserSQL, set-based); the other columns keep their defaults, as
// they do in learngate for a user created with these fields.
const insertUsersSQL = `INSERT INTO users (user_name, first_name, last_name, email, timezone, created_at, updated_at)
	SELECT n, f, l, e, tz, $6, $6 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS t(n, f, l, e, tz)
	RETURNING id, user_name`

// The link inserts of a batch's new users (store.writeLinks, set-based).
const (
	insertUserRolesSQL  = `INSERT INTO user_roles (user_id, position, role_id) SELECT * FROM unnest($1::bigint[], $2::smallint[], $3::bigint[])`
	insertUserGroupsSQL = `INSERT INTO user_groups (user_id, group_id) SELECT * FROM unnest($1::bigint[], $2::bigint[])`
	insertUserGoalsSQL  = `INSERT INTO user_goals (user_id, goal_id) SELECT * FROM unnest($1::bigint[], $2::bigint[])`
	insertUserValuesSQL = `INSERT INTO user_custom_values (user_id, field_id, value) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[])`
)

// webhookTargetsSQL: store.webhookTargets, the one query of
// store.recordChanges when no endpoint is subscribed.
const webhookTargetsSQL = `SELECT id, events FROM webhook_endpoints WHERE enabled ORDER BY id`

// allocateKnowledgeIDsSQL, insertKnowledgesSQL, insertKnowledgeSkillsSQL
// and insertKnowledgeCategoriesSQL: store.createKnowledges,
// store.insertKnowledges and store.insertKnowledgeLinks.
const (
	allocateKnowledgeIDsSQL = `SELECT nextval(pg_get_serial_sequence('external_knowledges', 'id'))
		FROM generate_series(1, $1)`
	insertKnowledgesSQL = `INSERT INTO external_knowledges (id, user_id, knowledge_type, title, code, provider,
			date_obtained, certificate_number, country_obtained, state_obtained, expires, qualification_level, notes,
			klass, development_focus, assessment_score, total_time, created_at, updated_at)
		SELECT id, user_id, knowledge_type, title, code, provider, date_obtained::date, certificate_number,
			country_obtained, state_obtained, expires::date, qualification_level, notes, klass, development_focus,
			assessment_score, total_time, $18, $18
		FROM unnest($1::bigint[], $2::bigint[], $3::smallint[], $4::text[], $5::text[], $6::text[], $7::text[],
			$8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
			$16::numeric[], $17::integer[])
		AS t(id, user_id, knowledge_type, title, code, provider, date_obtained, certificate_number, country_obtained,
			state_obtained, expires, qualification_level, notes, klass, development_focus, assessment_score, total_time)`
	insertKnowledgeSkillsSQL = `INSERT INTO external_knowledge_skills (knowledge_id, skill_id)
			SELECT * FROM unnest($1::bigint[], $2::bigint[])`
	insertKnowledgeCategoriesSQL = `INSERT INTO external_knowledge_categories (knowledge_id, category_id, position, minutes, points)
			SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::smallint[], $4::integer[], $5::numeric[])`
)

// lookupUsersSQL: store.lookupUsers.
const lookupUsersSQL = `SELECT user_name, id FROM users WHERE user_name = ANY($1)`
