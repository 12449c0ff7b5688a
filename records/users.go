package records

import (
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"learngate"
	"learngate/input"
)

// maxUserTextLength is the longest text field of a user, in characters.
const maxUserTextLength = 255

// Filtered replaces the password wherever a request is echoed.
const Filtered = "[FILTERED]"

// userParser converts a user body into a learngate.UserInput field by field,
// in the order of the spec's User input fields table. The first 400 stops
// it; 422 sentences (well-formed values that are not valid) are collected.
type userParser struct {
	body     map[string]any
	creating bool
	in       learngate.UserInput
	bad      []string
	// newPassword is the accepted new password. It stays here: the
	// UserInput only ever holds its hash.
	newPassword string
}

// ParseUser parses body for a create (creating) or an update of the
// user called current, hashing its password (see hashPasswords) once every
// other check has passed. tenantTZ is the default time zone.
func ParseUser(body map[string]any, creating bool, current, tenantTZ string) (learngate.UserInput, error) {
	in, password, err := parseUserFields(body, creating, current, tenantTZ)
	if err != nil || password == "" {
		return in, err
	}
	hashes, err := hashPasswords([]string{password})
	if err != nil {
		return learngate.UserInput{}, err
	}
	in.PasswordHash = &hashes[0]
	return in, nil
}

// parseUserFields is ParseUser without the hashing: the UserInput
// carries no new password, which is returned as password ("" when none);
// the caller hashes it and sets PasswordHash.
func parseUserFields(body map[string]any, creating bool, current, tenantTZ string) (in learngate.UserInput, password string, err error) {
	p := &userParser{body: body, creating: creating}
	if err := p.parse(current, tenantTZ); err != nil {
		return learngate.UserInput{}, "", err
	}
	if len(p.bad) > 0 {
		return learngate.UserInput{}, "", &learngate.Error{Code: learngate.Unprocessable, Message: p.bad[0], Details: p.bad}
	}
	return p.in, p.newPassword, nil
}

func (p *userParser) parse(current, tenantTZ string) error {
	in := &p.in
	var err error
	if in.UserName, err = p.userName(current); err != nil {
		return err
	}
	if in.FirstName, err = p.required("first_name"); err != nil {
		return err
	}
	if in.LastName, err = p.required("last_name"); err != nil {
		return err
	}
	if in.Email, err = p.required("email"); err != nil {
		return err
	}
	if in.Email != nil && !validEmail(*in.Email) {
		p.invalid("email", *in.Email)
	}
	if in.Type, err = p.choice("type", input.UserTypes, input.DefaultUserType); err != nil {
		return err
	}
	for i := range in.ManagerEmails {
		if in.ManagerEmails[i], err = p.optionalEmail(managerEmailField(i)); err != nil {
			return err
		}
	}
	if in.MentorEmail, err = p.optionalEmail("mentor_email"); err != nil {
		return err
	}
	if in.Language, err = p.ignorable("language", input.Languages, "en"); err != nil {
		return err
	}
	if in.Timezone, err = p.timezone(tenantTZ); err != nil {
		return err
	}
	if in.LMSLearnerID, err = p.text("lms_learner_id"); err != nil {
		return err
	}
	if in.LMSReference, err = p.text("lms_reference"); err != nil {
		return err
	}
	if in.Login, err = p.choice("login", input.Logins, "internal"); err != nil {
		return err
	}
	for _, b := range []struct {
		field string
		dst   **bool
	}{
		{"active", &in.Active}, {"creator", &in.Creator}, {"user_notifications_enabled", &in.UserNotificationsEnabled},
		{"force_pwd_reset_next_login", &in.ForcePwdResetNextLogin},
		{"manager_email_report_1st_month", &in.ManagerEmailReport1stMonth},
		{"manager_email_report_15th_month", &in.ManagerEmailReport15thMonth},
	} {
		if *b.dst, err = p.boolean(b.field); err != nil {
			return err
		}
	}
	if err := p.password(); err != nil {
		return err
	}
	if in.DeactivateScheduledDate, err = p.scheduledDate("deactivate_scheduled_date"); err != nil {
		return err
	}
	if in.ReactivateScheduledDate, err = p.scheduledDate("reactivate_scheduled_date"); err != nil {
		return err
	}
	for _, f := range []struct {
		field string
		dst   **string
	}{
		{"team_leader_report_frequency", &in.TeamLeaderReportFrequency},
		{"learner_report_frequency", &in.LearnerReportFrequency},
		{"assessor_report_frequency", &in.AssessorReportFrequency},
	} {
		if v, ok := p.body[f.field]; ok {
			freq, err := input.ReportFrequency(f.field, v)
			if err != nil {
				return err
			}
			*f.dst = &freq
		}
	}
	if in.DefaultLandingPage, err = p.landingPage(); err != nil {
		return err
	}
	for i := range in.Roles {
		if in.Roles[i], err = p.text(fmt.Sprintf("role_%d", i+1)); err != nil {
			return err
		}
	}
	if in.Groups, err = p.names("groups"); err != nil {
		return err
	}
	if in.Goals, err = p.names("goals"); err != nil {
		return err
	}
	in.CustomFields = input.CustomFields(p.body)
	// send_invitation queues the invitation with the save (POST and PUT;
	// batch saves follow send_invitations). org_admin and admin_type are ignored.
	invite, err := p.boolean("send_invitation")
	if err != nil {
		return err
	}
	in.SendInvitation = invite != nil && *invite
	return nil
}

func managerEmailField(i int) string {
	if i == 0 {
		return "manager_email"
	}
	return fmt.Sprintf("manager_%d_email", i+1)
}

// invalid records the 422 sentence "Invalid <field> '<value>'".
func (p *userParser) invalid(field, value string) {
	p.bad = append(p.bad, fmt.Sprintf("Invalid %s '%s'", field, input.Quote(value)))
}

// text returns the trimmed text of field, or nil when it was not sent; ""
// (or null) clears an optional field.
// Values that are not strings are 400; over-long ones are recorded as 422.
func (p *userParser) text(field string) (*string, error) {
	v, ok := p.body[field]
	if !ok {
		return nil, nil
	}
	s, err := input.Text(field, v)
	if err != nil {
		return nil, err
	}
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > maxUserTextLength {
		p.bad = append(p.bad, fmt.Sprintf("%s is too long (at most %d characters)", field, maxUserTextLength))
	}
	return &s, nil
}

// required is text for a field every user has: needed on create, never
// cleared on update. Missing or empty is 400 naming the field.
func (p *userParser) required(field string) (*string, error) {
	s, err := p.text(field)
	if err != nil {
		return nil, err
	}
	if (s == nil && p.creating) || (s != nil && *s == "") {
		return nil, input.IllegalValue(field, p.body[field])
	}
	return s, nil
}

// userName is required on create and lower-cased. On update it may only
// repeat the addressed user's name (any case); it is never changed.
func (p *userParser) userName(current string) (*string, error) {
	if !p.creating {
		v, ok := p.body["user_name"]
		if !ok || input.IsClear(v) {
			return nil, nil
		}
		s, err := input.Text("user_name", v)
		if err != nil {
			return nil, err
		}
		if !strings.EqualFold(strings.TrimSpace(s), current) {
			p.bad = append(p.bad, fmt.Sprintf("user_name cannot be changed ('%s' given for user '%s')", input.Quote(s), strings.ToLower(current)))
		}
		return nil, nil
	}
	s, err := p.required("user_name")
	if err != nil {
		return nil, err
	}
	name := strings.ToLower(*s)
	if !validUserName(name) {
		p.invalid("user_name", *s)
	}
	return &name, nil
}

// validUserName: no white space, control characters or '/', so that the
// name can stand in a path (GET /users/{user_name}).
func validUserName(s string) bool {
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '/' || r == utf8.RuneError {
			return false
		}
	}
	return true
}

// validEmail accepts a plain address (no display name) whose domain has a dot.
func validEmail(s string) bool {
	if len(s) > 254 {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s {
		return false
	}
	domain := s[strings.LastIndexByte(s, '@')+1:]
	return strings.Contains(domain, ".") && !strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".")
}

// optionalEmail is text whose non-empty values must be addresses.
func (p *userParser) optionalEmail(field string) (*string, error) {
	s, err := p.text(field)
	if s != nil && *s != "" && !validEmail(*s) {
		p.invalid(field, *s)
	}
	return s, err
}

// choice parses a field with a fixed list of values; clearing it restores def.
func (p *userParser) choice(field string, allowed []string, def string) (*string, error) {
	v, ok := p.body[field]
	if !ok {
		return nil, nil
	}
	if input.IsClear(v) {
		return &def, nil
	}
	c, err := input.OneOf(field, v, allowed)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// ignorable is choice for fields whose unrecognised values are ignored.
func (p *userParser) ignorable(field string, allowed []string, def string) (*string, error) {
	v, ok := p.body[field]
	if !ok {
		return nil, nil
	}
	if input.IsClear(v) {
		return &def, nil
	}
	c, found, err := input.OneOfOrIgnore(field, v, allowed)
	if err != nil || !found {
		return nil, err
	}
	return &c, nil
}

// landingPage is ignorable where clearing it, or "Default", gives the
// default page ("").
func (p *userParser) landingPage() (*string, error) {
	const field = "default_landing_page"
	v, ok := p.body[field]
	if !ok {
		return nil, nil
	}
	if s, isString := v.(string); input.IsClear(v) || (isString && strings.EqualFold(strings.TrimSpace(s), "Default")) {
		none := ""
		return &none, nil
	}
	c, found, err := input.OneOfOrIgnore(field, v, input.LandingPages)
	if err != nil || !found {
		return nil, err
	}
	return &c, nil
}

// timezone: an IANA zone name; clearing it, or leaving it out on create,
// gives the tenant's zone.
func (p *userParser) timezone(tenantTZ string) (*string, error) {
	v, ok := p.body["timezone"]
	if !ok && !p.creating {
		return nil, nil
	}
	if !ok || input.IsClear(v) {
		return &tenantTZ, nil
	}
	s, err := p.text("timezone")
	if err != nil {
		return nil, err
	}
	if _, err := time.LoadLocation(*s); err != nil || *s == "Local" {
		p.invalid("timezone", *s)
	}
	return s, nil
}

func (p *userParser) boolean(field string) (*bool, error) {
	v, ok := p.body[field]
	if !ok {
		return nil, nil
	}
	b, err := input.Bool(field, v)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// password checks the password (kept as sent, never trimmed; see
// acceptedPassword) into newPassword. "" removes it on update.
func (p *userParser) password() error {
	v, ok := p.body["password"]
	if !ok {
		return nil
	}
	s, valid, err := acceptedPassword(v)
	switch {
	case err != nil:
		return err
	case s == "":
		if !p.creating {
			p.in.PasswordHash = &s
		}
	case !valid:
		p.bad = append(p.bad, PasswordRule)
	default:
		p.newPassword = s
	}
	return nil
}

// acceptedPassword reads a password value: a string (else 400, the value
// Filtered) of 8 to 72 characters (and at most 72 bytes, bcrypt's limit)
// with a digit, an upper case and a lower case letter; valid is false for
// any other non-empty text.
func acceptedPassword(v any) (s string, valid bool, err error) {
	s, err = input.Text("password", v)
	if err != nil {
		return "", false, input.IllegalValue("password", Filtered)
	}
	var digit, upper, lower bool
	for _, r := range s {
		digit = digit || unicode.IsDigit(r)
		upper = upper || unicode.IsUpper(r)
		lower = lower || unicode.IsLower(r)
	}
	n := utf8.RuneCountInString(s)
	return s, n >= 8 && n <= 72 && len(s) <= 72 && digit && upper && lower, nil
}

// scheduledDate parses a deactivate or reactivate date; clearing gives a zero Day.
func (p *userParser) scheduledDate(field string) (*learngate.ScheduledDate, error) {
	v, ok := p.body[field]
	if !ok {
		return nil, nil
	}
	if input.IsClear(v) {
		return &learngate.ScheduledDate{}, nil
	}
	day, err := input.Date(field, v)
	if err != nil {
		return nil, err
	}
	raw, _ := v.(string) // input.Date accepts only strings
	return &learngate.ScheduledDate{Day: day, Raw: raw}, nil
}

// names parses groups or goals: nil when not sent.
func (p *userParser) names(field string) ([]string, error) {
	v, ok := p.body[field]
	if !ok {
		return nil, nil
	}
	return input.NameList(field, v)
}
