package main

// Copies of the statements the baseline runs as learngate runs them, word
// for word: the store's own constants (store/ keeps them unexported), and
// the three statements of its unfiltered topic enrolment page, which the
// store composes from topicEnrolmentRanks. The baseline is the benchmark's
// yardstick, so it holds its SQL itself; TestCopiedSQLMatchesTheStore
// (sql_test.go) reads store/'s source and fails when a copy here no longer
// matches the store's statement (white space aside): re-copy it then, or
// the benchmark compares learngate with different work. Every statement
// runs in a transaction that begins with scopeSQL, as store.TenantDB.run
// does.

// scopeSQL is the store's scopeSQL.
const scopeSQL = `SELECT set_config('search_path', $1, true)`

// userColumns is the store's userColumns.
const userColumns = `id, user_name, first_name, last_name, email,
	manager_email, manager_2_email, manager_3_email, manager_4_email, manager_5_email,
	mentor_email, lms_learner_id, lms_reference, org_admin, admin_type, creator, current_sign_in_at,
	deactivate_scheduled_date, reactivate_scheduled_date, language, created_by, timezone,
	user_notifications_enabled, force_pwd_reset_next_login, manager_email_report_1st_month,
	manager_email_report_15th_month, team_leader_report_frequency, learner_report_frequency,
	assessor_report_frequency, default_landing_page, login, type, active, platform_champion,
	password_hash, created_at, updated_at`

// topicEnrolmentSkillsSQL is the store's topicEnrolmentSkillsSQL.
const topicEnrolmentSkillsSQL = `SELECT * FROM (
	SELECT es.enrolment_id, s.id, s.name FROM topic_enrolment_skills es JOIN skills s ON s.id = es.skill_id
	WHERE es.enrolment_id = ANY($1)
	UNION
	SELECT e.id, s.id, s.name FROM topic_enrolments e
		JOIN topic_skills ts ON ts.topic_id = e.topic_id JOIN skills s ON s.id = ts.skill_id
	WHERE e.id = ANY($1) AND e.status = 'Conquered'
) x ORDER BY enrolment_id, lower(name), name`

// topicCategoriesSQL is the store's topicCategoriesSQL.
const topicCategoriesSQL = `SELECT tc.topic_id, c.name, tc.minutes, tc.points
		FROM topic_categories tc JOIN categories c ON c.id = tc.category_id
		WHERE tc.topic_id = ANY($1) ORDER BY tc.topic_id, lower(c.name), c.name`

// teamLeadersSQL is the store's teamLeadersSQL.
const teamLeadersSQL = `WITH p AS MATERIALIZED (SELECT id, lower(email) AS email FROM unnest($1::bigint[], $2::text[]) AS u (id, email))
	SELECT p.id FROM p WHERE EXISTS (
	SELECT 1 FROM users o WHERE o.id <> p.id AND (o.manager_email_lower = p.email
		OR o.manager_2_email_lower = p.email OR o.manager_3_email_lower = p.email
		OR o.manager_4_email_lower = p.email OR o.manager_5_email_lower = p.email))`

// insertKnowledgesSQL is the store's insertKnowledgesSQL.
const insertKnowledgesSQL = `INSERT INTO external_knowledges (id, user_id, knowledge_type, title, code, provider,
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

// webhookTargetsSQL is the store's webhookTargetsSQL.
const webhookTargetsSQL = `SELECT id, events FROM webhook_endpoints WHERE enabled ORDER BY id`

// userLinksSQL is the store's userLinksSQL.
const userLinksSQL = `
		SELECT ur.user_id, 'role' AS kind, ur.position, 0 AS field_id, r.name AS value
		FROM user_roles ur JOIN roles r ON r.id = ur.role_id WHERE ur.user_id = ANY($1)
		UNION ALL
		SELECT ug.user_id, 'group', 0, 0, g.name FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = ANY($1)
		UNION ALL
		SELECT ug.user_id, 'goal', 0, 0, g.name FROM user_goals ug JOIN goals g ON g.id = ug.goal_id WHERE ug.user_id = ANY($1)
		UNION ALL
		SELECT v.user_id, 'custom', 0, v.field_id, v.value FROM user_custom_values v WHERE v.user_id = ANY($1)`

// lookupUsersSQL is the store's lookupUsersSQL.
const lookupUsersSQL = `SELECT user_name, id FROM users WHERE user_name = ANY($1)`

// insertKnowledgeSkillsSQL is the store's insertKnowledgeSkillsSQL.
const insertKnowledgeSkillsSQL = `INSERT INTO external_knowledge_skills (knowledge_id, skill_id)
			SELECT * FROM unnest($1::bigint[], $2::bigint[])`

// insertKnowledgeCategoriesSQL is the store's insertKnowledgeCategoriesSQL.
const insertKnowledgeCategoriesSQL = `INSERT INTO external_knowledge_categories (knowledge_id, category_id, position, minutes, points)
			SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::smallint[], $4::integer[], $5::numeric[])`

// customFieldsSQL is the store's customFieldsSQL.
const customFieldsSQL = `SELECT id, name, field_type, options FROM custom_fields`

// customFieldNamesSQL is the store's customFieldNamesSQL.
const customFieldNamesSQL = `SELECT id, name FROM custom_fields ORDER BY id`

// batchUsersSQL is the store's batchUsersSQL.
const batchUsersSQL = `SELECT id, user_name, first_name, last_name, email,
	manager_email, manager_2_email, manager_3_email, manager_4_email, manager_5_email,
	mentor_email, lms_learner_id, lms_reference, org_admin, admin_type, creator, current_sign_in_at,
	deactivate_scheduled_date, reactivate_scheduled_date, language, created_by, timezone,
	user_notifications_enabled, force_pwd_reset_next_login, manager_email_report_1st_month,
	manager_email_report_15th_month, team_leader_report_frequency, learner_report_frequency,
	assessor_report_frequency, default_landing_page, login, type, active, platform_champion,
	password_hash, created_at, updated_at, lower(email) AS email_key
		FROM users WHERE user_name = ANY (ARRAY(SELECT unnest($1::text[]))) ORDER BY id FOR UPDATE`

// allocateKnowledgeIDsSQL is the store's allocateKnowledgeIDsSQL.
const allocateKnowledgeIDsSQL = `SELECT nextval(pg_get_serial_sequence('external_knowledges', 'id'))
		FROM generate_series(1, $1)`

// topicEnrolmentSelect is the store's topicEnrolmentSelect: the rows and
// joins of a topic enrolment page, whose ids the list engine finds.
const topicEnrolmentSelect = `SELECT e.id, e.created_at, e.updated_at, e.completed_topic_at, e.status, e.due_date,
	e.relationship,
	CASE WHEN e.status = 'Conquered' THEN t.minutes + e.progress_minutes ELSE 0 END AS conquered_minutes,
	CASE WHEN e.status = 'Conquered' THEN t.cpd_minutes + e.progress_minutes ELSE 0 END AS conquered_cpd_minutes,
	e.enrolled_by, e.certified_date, e.recertification_allowed, e.version,
	u.id AS user_id, u.first_name AS user_first_name, u.last_name AS user_last_name, u.user_name,
	t.id AS topic_id, t.title AS topic_title, t.knowledge_type, t.show_certificate, t.external_id
FROM topic_enrolments e JOIN users u ON u.id = e.user_id JOIN topics t ON t.id = e.topic_id`
