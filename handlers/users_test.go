package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"
	"golang.org/x/crypto/bcrypt"
)

// carl is a valid create body that the refusal tests break one field at a time.
var carl = map[string]any{"user_name": "carl", "first_name": "Carl", "last_name": "Cole", "email": "carl@example.com"}

// want422 is the exact 422 body of a user request that sent params.
func want422(params map[string]any, errs ...string) string {
	echo := with(params, nil)
	if _, ok := echo["password"]; ok {
		echo["password"] = "[FILTERED]"
	}
	return kv{{"user_name", params["user_name"]}, {"email", params["email"]}, {"params", echo},
		{"reason", errs[0]}, {"errors", errs}}.String()
}

// badRequest is the spec's 400 body for value v of field.
func badRequest(v, field string) string {
	b, _ := json.Marshal("Bad request: Illegal value '" + v + "' for '" + field + "'")
	return string(b)
}

func TestCreateUser(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.seedCatalog(t)
	tests := []struct {
		name   string
		body   string
		lookup string // the user_name to GET, in another case
		want   map[string]any
	}{
		{
			name:   "required fields only",
			body:   `{"user_name":"Min","first_name":"Min","last_name":"Imal","email":"min@example.com"}`,
			lookup: "MIN",
			want:   map[string]any{"user_name": "min", "first_name": "Min", "last_name": "Imal", "email": "min@example.com"},
		},
		{
			name: "every field",
			body: `{"user_name":" Ann.Lee@Example.com ","first_name":" Ann ","last_name":"Lee","email":"Ann.Lee@Example.com",
				"type":"employee","manager_email":"boss@example.com","manager_2_email":"b2@example.com",
				"manager_3_email":"b3@example.com","manager_4_email":"b4@example.com","manager_5_email":"b5@example.com",
				"mentor_email":"mentor@example.com","language":"FR","timezone":"Europe/Berlin",
				"lms_learner_id":"L-1","lms_reference":"REF","login":"internal","active":"no","creator":"YES",
				"user_notifications_enabled":0,"force_pwd_reset_next_login":true,"manager_email_report_1st_month":"1",
				"manager_email_report_15th_month":"false","password":"Secret123",
				"deactivate_scheduled_date":"2025-07-01","reactivate_scheduled_date":"15/08/25",
				"team_leader_report_frequency":"Every_Monday","learner_report_frequency":"none",
				"assessor_report_frequency":"every_day","default_landing_page":"dashboard - overview",
				"role_1":"manager","role_3":" Trainer ","groups":["sales","alpha"," Berlin "],"goals":"learn go;Grow",
				"X-City":"Berlin Mitte","X-Age":7,"X-Start":"2024-03-31","X-Skills":["docker","go"],
				"send_invitation":"no","org_admin":true,"admin_type":0,"platform_champion":true,"enrolment_code_1":"TP-1"}`,
			lookup: "ANN.LEE@EXAMPLE.COM",
			want: map[string]any{
				"user_name": "ann.lee@example.com", "first_name": "Ann", "last_name": "Lee", "email": "Ann.Lee@Example.com",
				"manager_email": "boss@example.com", "manager_2_email": "b2@example.com", "manager_3_email": "b3@example.com",
				"manager_4_email": "b4@example.com", "manager_5_email": "b5@example.com", "mentor_email": "mentor@example.com",
				"lms_learner_id": "L-1", "lms_reference": "REF", "creator": true,
				// Midnight of the date in the user's zone (Berlin, summer time).
				"deactivate_scheduled_date": "2025-06-30T22:00:00+00:00", "reactivate_scheduled_date": "2025-08-14T22:00:00+00:00",
				"language": "fr", "timezone": "Europe/Berlin", "user_notifications_enabled": false,
				"team_leader_report_frequency": "every_monday", "assessor_report_frequency": "every_day",
				"default_landing_page": "Dashboard - Overview", "type": "Employee", "active": false,
				"role_1": "Manager", "role_3": "Trainer", "groups": "Alpha;Berlin;sales", "goals": "Grow;Learn Go",
				"X-City": "Berlin Mitte", "X-Age": "7", "X-Start": "2024-03-31", "X-Skills": "Docker;Go",
			},
		},
		{
			name: "unrecognised language and landing page ignored, empty values clear",
			body: `{"user_name":"ivy","first_name":"Ivy","last_name":"Ives","email":"ivy@example.com",
				"language":"klingon","default_landing_page":"Nowhere","type":"STAFF","login":"EXTERNAL",
				"mentor_email":"","manager_email":null,"role_2":"","groups":"","goals":[],"X-City":"","X-Skills":";",
				"team_leader_report_frequency":"","X-Age":"-0.50","X-Start":"29/02/24","active":1,"creator":"False"}`,
			lookup: "Ivy",
			want: map[string]any{"user_name": "ivy", "first_name": "Ivy", "last_name": "Ives", "email": "ivy@example.com",
				"login": "external", "X-Age": "-0.5", "X-Start": "2024-02-29"},
		},
		{
			name: "default landing page by name, tomorrow in the tenant's zone",
			body: `{"user_name":"jo","first_name":"Jo","last_name":"Jones","email":"jo@example.com",
				"default_landing_page":"DEFAULT","deactivate_scheduled_date":"2025-06-02","timezone":""}`,
			lookup: "JO",
			// 2025-06-02 00:00 in Auckland is 2025-06-01 12:00 UTC, after the clock's 09:30.
			want: map[string]any{"user_name": "jo", "first_name": "Jo", "last_name": "Jones", "email": "jo@example.com",
				"deactivate_scheduled_date": "2025-06-01T12:00:00+00:00"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := wantUser(seededCustom, tt.want)
			e.acme.call(t, http.MethodPost, "/papi/users", tt.body, http.StatusOK, want)
			e.acme.call(t, http.MethodGet, "/papi/users/"+tt.lookup, "", http.StatusOK, want)
			e.assertIsolated(t, tt.lookup)
		})
	}

	// The password is stored only as a bcrypt hash.
	hash := e.passwordHash(t, "ann.lee@example.com")
	if hash == nil || bcrypt.CompareHashAndPassword([]byte(*hash), []byte("Secret123")) != nil {
		t.Fatalf("password_hash = %v, want the bcrypt hash of the password", hash)
	}
	if hash := e.passwordHash(t, "min"); hash != nil {
		t.Fatalf("password_hash of a user created without one = %q, want NULL", *hash)
	}
	e.assertUserCounts(t, [5]int{4, 2, 3, 2, 6})
}

// passwordHash reads the stored password hash of one of acme's users.
func (e *usersEnv) passwordHash(t *testing.T, userName string) *string {
	t.Helper()
	ctx := context.Background()
	tn, err := e.h.registry.Show(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	tdb, err := e.h.db.Tenant(tn.Schema)
	if err != nil {
		t.Fatal(err)
	}
	var hash *string
	err = tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &hash, `SELECT password_hash FROM users WHERE user_name = $1`, userName)
	})
	if err != nil {
		t.Fatalf("read password hash of %s: %v", userName, err)
	}
	return hash
}

// userRefusals are bodies that break one rule each, for create (based on
// carl) and, through their fields, for update.
var userRefusals = []struct {
	name   string
	fields map[string]any
	status int
	want   string // for 422: the sentences, joined with "|"
}{
	{"first_name not a string", map[string]any{"first_name": 5}, 400, badRequest("5", "first_name")},
	{"first_name null", map[string]any{"first_name": json.RawMessage("null")}, 400, badRequest("", "first_name")},
	{"last_name empty", map[string]any{"last_name": " "}, 400, badRequest(" ", "last_name")},
	{"email empty", map[string]any{"email": ""}, 400, badRequest("", "email")},
	{"type not listed", map[string]any{"type": "Boss"}, 400, badRequest("Boss", "type")},
	{"manager email not a string", map[string]any{"manager_4_email": true}, 400, badRequest("true", "manager_4_email")},
	{"language not a string", map[string]any{"language": 5}, 400, badRequest("5", "language")},
	{"login not listed", map[string]any{"login": "sso"}, 400, badRequest("sso", "login")},
	{"active not a boolean", map[string]any{"active": "maybe"}, 400, badRequest("maybe", "active")},
	{"creator 2", map[string]any{"creator": 2}, 400, badRequest("2", "creator")},
	{"user_notifications_enabled empty", map[string]any{"user_notifications_enabled": ""}, 400, badRequest("", "user_notifications_enabled")},
	{"force_pwd_reset_next_login y", map[string]any{"force_pwd_reset_next_login": "y"}, 400, badRequest("y", "force_pwd_reset_next_login")},
	{"manager_email_report_1st_month null", map[string]any{"manager_email_report_1st_month": json.RawMessage("null")}, 400,
		badRequest("", "manager_email_report_1st_month")},
	{"manager_email_report_15th_month ja", map[string]any{"manager_email_report_15th_month": "ja"}, 400,
		badRequest("ja", "manager_email_report_15th_month")},
	{"send_invitation sure", map[string]any{"send_invitation": "sure"}, 400, badRequest("sure", "send_invitation")},
	{"password not a string", map[string]any{"password": 12345678}, 400, badRequest("[FILTERED]", "password")},
	{"password with login external", map[string]any{"login": "external", "password": "Secret123"}, 400,
		`"Bad request: a password is not allowed with login 'external'"`},
	{"deactivate date in the past", map[string]any{"deactivate_scheduled_date": "2025-05-31"}, 400,
		badRequest("2025-05-31", "deactivate_scheduled_date")},
	{"deactivate date today", map[string]any{"deactivate_scheduled_date": "01/06/2025"}, 400,
		badRequest("01/06/2025", "deactivate_scheduled_date")},
	{"reactivate date not a date", map[string]any{"reactivate_scheduled_date": "31/02/2026"}, 400,
		badRequest("31/02/2026", "reactivate_scheduled_date")},
	{"reactivate date a number", map[string]any{"reactivate_scheduled_date": 20260101}, 400,
		badRequest("20260101", "reactivate_scheduled_date")},
	{"team leader frequency hourly", map[string]any{"team_leader_report_frequency": "hourly"}, 400,
		badRequest("hourly", "team_leader_report_frequency")},
	{"learner frequency weekly", map[string]any{"learner_report_frequency": "weekly"}, 400, badRequest("weekly", "learner_report_frequency")},
	{"assessor frequency a number", map[string]any{"assessor_report_frequency": 3}, 400, badRequest("3", "assessor_report_frequency")},
	{"landing page a number", map[string]any{"default_landing_page": 1}, 400, badRequest("1", "default_landing_page")},
	{"unknown role", map[string]any{"role_1": "Manager", "role_5": "Ghost"}, 400, badRequest("Ghost", "role_5")},
	{"unknown group", map[string]any{"groups": "sales;Nowhere"}, 400, badRequest("Nowhere", "groups")},
	{"groups not names", map[string]any{"groups": []any{1}}, 400, badRequest("[1]", "groups")},
	{"unknown goal", map[string]any{"groups": "sales", "goals": []any{"Grow", "Fly"}}, 400, badRequest("Fly", "goals")},
	{"unknown custom field", map[string]any{"X-City": "Rome", "X-Planet": "Mars"}, 400, `"Bad request: Unknown custom field 'X-Planet'"`},
	{"custom number not a number", map[string]any{"X-Age": "old"}, 400, badRequest("old", "X-Age")},
	{"custom date not a date", map[string]any{"X-Start": "2024-13-01"}, 400, badRequest("2024-13-01", "X-Start")},
	{"custom list option unknown", map[string]any{"X-Skills": "Go;Cobol"}, 400, badRequest("Cobol", "X-Skills")},
	{"custom string a number", map[string]any{"X-City": 5}, 400, badRequest("5", "X-City")},
	{"invalid email", map[string]any{"email": "carl@"}, 422, "Invalid email 'carl@'"},
	{"invalid manager email", map[string]any{"manager_3_email": "boss"}, 422, "Invalid manager_3_email 'boss'"},
	{"invalid mentor email", map[string]any{"mentor_email": "Mentor <m@example.com>"}, 422, "Invalid mentor_email 'Mentor <m@example.com>'"},
	{"invalid timezone", map[string]any{"timezone": "Mars/Olympus"}, 422, "Invalid timezone 'Mars/Olympus'"},
	{"password too short", map[string]any{"password": "Abc1234"}, 422, passwordRule},
	{"password without upper case", map[string]any{"password": "secret123"}, 422, passwordRule},
	{"password without a digit", map[string]any{"password": "SecretSecret"}, 422, passwordRule},
	{"password over 72 characters", map[string]any{"password": "Aa1" + strings.Repeat("x", 70)}, 422, passwordRule},
	{"first_name too long", map[string]any{"first_name": strings.Repeat("é", 256)}, 422, "first_name is too long (at most 255 characters)"},
	{"two invalid fields", map[string]any{"email": "carl@example", "password": "x"}, 422, "Invalid email 'carl@example'|" + passwordRule},
}

const passwordRule = "Invalid password: it must be 8 to 72 characters with at least one digit, one upper case and one lower case letter"

func TestCreateUserRefused(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.seedCatalog(t)
	type refusal struct {
		name   string
		body   string
		status int
		want   string
	}
	tests := []refusal{
		{"missing user_name", jsonBody(t, with(carl, map[string]any{"user_name": nil})), 400, badRequest("", "user_name")},
		{"blank user_name", jsonBody(t, with(carl, map[string]any{"user_name": "  "})), 400, badRequest("  ", "user_name")},
		{"missing first_name", jsonBody(t, with(carl, map[string]any{"first_name": nil})), 400, badRequest("", "first_name")},
		{"missing last_name", jsonBody(t, with(carl, map[string]any{"last_name": nil})), 400, badRequest("", "last_name")},
		{"missing email", jsonBody(t, with(carl, map[string]any{"email": nil})), 400, badRequest("", "email")},
		{"body an array", `[{"user_name":"carl"}]`, 400, `"Bad request: request body must be a JSON object"`},
		{"body null", `null`, 400, `"Bad request: request body must be a JSON object"`},
		{"malformed JSON", `{"user_name":`, 400, `"Bad request: malformed JSON"`},
		{"two objects", `{"user_name":"a"} {}`, 400, `"Bad request: request body must hold one JSON object"`},
		{"invalid user_name", jsonBody(t, with(carl, map[string]any{"user_name": "Carl Cole"})), 422,
			want422(with(carl, map[string]any{"user_name": "Carl Cole"}), "Invalid user_name 'Carl Cole'")},
		{"user_name with a slash", jsonBody(t, with(carl, map[string]any{"user_name": "a/b"})), 422,
			want422(with(carl, map[string]any{"user_name": "a/b"}), "Invalid user_name 'a/b'")},
	}
	for _, r := range userRefusals {
		body := with(carl, r.fields)
		want := r.want
		if r.status == http.StatusUnprocessableEntity {
			want = want422(body, strings.Split(r.want, "|")...)
		}
		tests = append(tests, refusal{r.name, jsonBody(t, body), r.status, want})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.acme.call(t, http.MethodPost, "/papi/users", tt.body, tt.status, tt.want)
			e.assertUserCounts(t, [5]int{})
			e.acme.call(t, http.MethodGet, "/papi/users", "", http.StatusOK, catalogEmptyList)
			e.acme.call(t, http.MethodGet, "/papi/users/carl", "", http.StatusNotFound, `"not found"`)
		})
	}
	e.assertIsolated(t, "carl")
}

func TestCreateUserTaken(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	bob := `{"user_name":"bob","first_name":"Bob","last_name":"Baker","email":"Bob@Example.com","lms_learner_id":"L1","lms_reference":"R1"}`
	e.acme.call(t, http.MethodPost, "/papi/users", bob, http.StatusOK, "")
	tests := []struct {
		name string
		body map[string]any
		errs []string
	}{
		{"user_name in another case", map[string]any{"user_name": "BOB", "first_name": "B", "last_name": "B", "email": "other@example.com"},
			[]string{"user_name 'bob' is already taken"}},
		{"email in another case", map[string]any{"user_name": "robert", "first_name": "B", "last_name": "B", "email": "bob@EXAMPLE.com"},
			[]string{"email 'bob@EXAMPLE.com' is already taken"}},
		{"lms pair", map[string]any{"user_name": "robert", "first_name": "B", "last_name": "B", "email": "r@example.com",
			"lms_learner_id": "L1", "lms_reference": "R1", "password": "Secret123"},
			[]string{"lms_learner_id 'L1' with lms_reference 'R1' is already taken"}},
		{"all three", map[string]any{"user_name": "Bob", "first_name": "B", "last_name": "B", "email": "BOB@example.com",
			"lms_learner_id": "L1", "lms_reference": "R1"},
			[]string{"user_name 'bob' is already taken", "email 'BOB@example.com' is already taken",
				"lms_learner_id 'L1' with lms_reference 'R1' is already taken"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.acme.call(t, http.MethodPost, "/papi/users", jsonBody(t, tt.body), http.StatusUnprocessableEntity, want422(tt.body, tt.errs...))
			e.assertUserCounts(t, [5]int{1})
		})
	}
	// Half a pair is not taken, nor is another tenant's user_name or email.
	e.acme.call(t, http.MethodPost, "/papi/users",
		`{"user_name":"rob","first_name":"R","last_name":"R","email":"rob@example.com","lms_learner_id":"L1","lms_reference":"R2"}`, http.StatusOK, "")
	e.other.call(t, http.MethodPost, "/papi/users", bob, http.StatusOK, "")
	e.assertUserCounts(t, [5]int{2})
	e.other.call(t, http.MethodGet, "/papi/users/rob", "", http.StatusNotFound, `"not found"`)
	e.other.call(t, http.MethodGet, "/papi/users?email=rob@example.com", "", http.StatusOK, catalogEmptyList)
}

func TestCreateUserConcurrently(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.seedCatalog(t)
	const n = 8
	codes := make(chan int, n)
	bodies := make(chan string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := map[string]any{"user_name": "race", "first_name": "R", "last_name": "R",
				"email": fmt.Sprintf("race%d@example.com", i), "groups": "sales", "X-City": "Rome"}
			w := e.h.papi(http.MethodPost, e.acme.host, "/papi/users", e.acme.key, jsonBody(t, body))
			codes <- w.Code
			if w.Code == http.StatusUnprocessableEntity {
				var got, want bytes.Buffer
				_ = json.Compact(&got, w.Body.Bytes())
				_ = json.Compact(&want, []byte(want422(body, "user_name 'race' is already taken")))
				if got.String() != want.String() {
					bodies <- got.String()
				}
			}
		}()
	}
	wg.Wait()
	close(codes)
	close(bodies)
	created := 0
	for code := range codes {
		switch code {
		case http.StatusOK:
			created++
		case http.StatusUnprocessableEntity:
		default:
			t.Errorf("status %d, want 200 or 422", code)
		}
	}
	for b := range bodies {
		t.Errorf("422 body %s", b)
	}
	if created != 1 {
		t.Fatalf("%d of %d concurrent creates succeeded, want 1", created, n)
	}
	// The losers left nothing behind: one user, one group link, one custom value.
	e.assertUserCounts(t, [5]int{1, 0, 1, 0, 1})
	e.assertIsolated(t, "race")
}

func TestShowUserNotFound(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.acme.call(t, http.MethodPost, "/papi/users", jsonBody(t, carl), http.StatusOK, "")
	for _, path := range []string{"/papi/users/ghost", "/papi/users/carl.", "/papi/users/%20carl"} {
		e.acme.call(t, http.MethodGet, path, "", http.StatusNotFound, `"not found"`)
	}
	e.acme.call(t, http.MethodGet, "/papi/users/CaRl", "", http.StatusOK,
		wantUser(nil, map[string]any{"user_name": "carl", "first_name": "Carl", "last_name": "Cole", "email": "carl@example.com"}))
	e.assertIsolated(t, "carl")
}
