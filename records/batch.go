package records

import (
	"regexp"
	"strings"
	"time"

	"learngate"
	"learngate/input"
)

// The batch conversions, exported for the CSV imports of cmd/learngate
// (`learngate users import`, `learngate external-knowledge import`): the
// batch endpoints and the imports turn records into store rows with these
// functions and no other, so a CSV row is read exactly as a JSON record.

// userBatchFields are the user input fields a batch save row reads, beside
// the X- custom fields and the enrolment field groups (docs/api.md,
// "Users"). send_invitation is not one: a batch follows its
// send_invitations. org_admin and admin_type are ignored by the API.
var userBatchFields = fieldSet(
	"user_name", "first_name", "last_name", "email", "type",
	"manager_email", "manager_2_email", "manager_3_email", "manager_4_email", "manager_5_email", "mentor_email",
	"language", "timezone", "lms_learner_id", "lms_reference", "login",
	"active", "creator", "user_notifications_enabled", "force_pwd_reset_next_login",
	"manager_email_report_1st_month", "manager_email_report_15th_month", "password",
	"deactivate_scheduled_date", "reactivate_scheduled_date",
	"team_leader_report_frequency", "learner_report_frequency", "assessor_report_frequency",
	"default_landing_page", "role_1", "role_2", "role_3", "role_4", "role_5", "groups", "goals",
)

// knowledgeFields are the external knowledge request fields a record reads
// as flat properties, aliases included, beside the category_N_ fields.
// The categories array has no flat form and is not one of them.
var knowledgeFields = fieldSet(
	"user_name", "knowledge_type", "type", "document_type", "development_plan_stage", "development_focus",
	"title", "code", "provider", "date_obtained", "date", "certificate_number", "country_obtained",
	"state_obtained", "region_obtained", "expires", "qualification_level", "assessment_score", "total_time",
	"notes", "klass", "class", "skills_attained",
)

// categoryFieldPattern matches category_N_name, _points and _minutes. An N
// outside 1..3 is still the parser's to refuse, record by record.
var categoryFieldPattern = regexp.MustCompile(`^category_[0-9]+_(name|points|minutes)$`)

func fieldSet(names ...string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return set
}

// IsUserBatchField reports whether a batch save row reads the property
// name: a user input field, an X- custom field or an enrolment field
// (enrolment_code_N and its companions). Other properties are ignored.
func IsUserBatchField(name string) bool {
	return userBatchFields[name] || isCustomField(name) || enrolmentFieldPattern.MatchString(name)
}

// IsKnowledgeField reports whether an external knowledge record reads the
// flat property name: a request field, an alias or a category_N_ field.
func IsKnowledgeField(name string) bool {
	return knowledgeFields[name] || categoryFieldPattern.MatchString(name)
}

// isCustomField: "X-" and at least one character of name.
func isCustomField(name string) bool {
	return len(name) > 2 && strings.HasPrefix(name, "X-")
}

// UserBatchRows converts the people of a users batch save into store rows,
// each read as POST /papi/users/batch_save reads it. tenantTZ is the
// tenant's time zone, the default of new users. Every row is parsed here,
// before the store is called, in both forms the store may need (see
// learngate.BatchRow), and the rows' new passwords are hashed here, in
// parallel (hashPasswords), so that the store only ever sees their hashes
// and never calls parsing code back. A failure to hash is the row's Err,
// which fails the batch.
func UserBatchRows(people []any, tenantTZ string) []learngate.BatchRow {
	rows := make([]learngate.BatchRow, len(people))
	passwords := make([]string, len(people))
	for i, person := range people {
		rows[i], passwords[i] = batchRow(person, tenantTZ)
	}
	hashes, err := hashPasswords(passwords)
	for i := range rows {
		switch {
		case passwords[i] == "":
		case err != nil:
			rows[i].Err = err
		default:
			for _, form := range []*learngate.ParsedUser{&rows[i].New, &rows[i].Update} {
				if form.Err == nil {
					form.In.PasswordHash = &hashes[i]
				}
			}
		}
	}
	return rows
}

// KnowledgeBatchRows converts external knowledge records into store rows,
// each read as POST /papi/external_knowledges/batch_save reads it; a
// record's fault stays in its row's Err. today is the date_obtained of a
// record sent without one (see TenantToday).
func KnowledgeBatchRows(items []any, today time.Time) []learngate.KnowledgeBatchRow {
	rows := make([]learngate.KnowledgeBatchRow, len(items))
	for i, item := range items {
		rows[i] = knowledgeBatchRow(item, today)
	}
	return rows
}

// TenantToday is today's date at now in time zone tz (UTC when tz is not
// a known zone), at midnight UTC as input.Date gives dates.
func TenantToday(tz string, now time.Time) time.Time {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		loc = time.UTC
	}
	y, m, d := now.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// batchRow reads one person of a batch. Its fields are parsed by
// parseUserFields twice, as for POST /users (a new user) and as for PUT
// /users/{user_name} (the existing user it names): which form applies is
// known only inside the store's transaction, and parsing is cheap next to
// a round trip. password is the row's accepted new password ("" when none),
// for the caller to hash into both forms.
func batchRow(person any, tenantTZ string) (row learngate.BatchRow, password string) {
	fields, ok := person.(map[string]any)
	if !ok {
		return learngate.BatchRow{Err: learngate.Errorf(learngate.Invalid, "Each person must be a JSON object")}, ""
	}
	row.Email, _ = fields["email"].(string)
	name, present := fields["user_name"]
	text, isText := name.(string)
	row.UserName = text
	if !present || !isText || strings.TrimSpace(text) == "" {
		row.Err = input.IllegalValue("user_name", name)
		return row, ""
	}
	// A name PostgreSQL cannot hold (a NUL) is this row's error, before
	// the store looks the batch's names up.
	if _, err := input.Text("user_name", name); err != nil {
		row.Err = err
		return row, ""
	}
	current := strings.ToLower(strings.TrimSpace(text))
	var newPassword, updatePassword string
	row.New.In, newPassword, row.New.Err = parseUserFields(fields, true, current, tenantTZ)
	row.Update.In, updatePassword, row.Update.Err = parseUserFields(fields, false, current, tenantTZ)
	row.Enrolments = EnrolmentFields(fields)
	return row, max(newPassword, updatePassword)
}
