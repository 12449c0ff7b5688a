package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"learngate"
	"learngate/store"
)

// decodeTopicBody decodes s as the handlers decode a body (UseNumber).
func decodeTopicBody(t *testing.T, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var body map[string]any
	if err := dec.Decode(&body); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return body
}

// TestParseTopicRefusalsTable: the first bad field of a topic body, read
// without HTTP, gives the 400 and the message handlers' TestTopicRefused
// checks through the router (docs/decisions.md, "Catalog, topics and
// pathways").
func TestParseTopicRefusalsTable(t *testing.T) {
	long := strings.Repeat("é", 256)
	illegal := func(v, field string) string { return "Illegal value '" + v + "' for '" + field + "'" }
	tests := []struct {
		name string
		body string
		want string
	}{
		{"title missing", `{"minutes":1}`, illegal("", "title")},
		{"title blank", `{"title":"   "}`, illegal("   ", "title")},
		{"title null", `{"title":null}`, illegal("", "title")},
		{"title a number", `{"title":5}`, illegal("5", "title")},
		// The HTTP layer puts "Bad request: " before this one.
		{"title too long", `{"title":"` + long + `"}`, "title is too long (at most 255 characters)"},
		{"knowledge_type 3", `{"title":"T","knowledge_type":3}`, illegal("3", "knowledge_type")},
		{"knowledge_type 1.5", `{"title":"T","knowledge_type":1.5}`, illegal("1.5", "knowledge_type")},
		{"external_id a number", `{"title":"T","external_id":12}`, illegal("12", "external_id")},
		{"show_certificate maybe", `{"title":"T","show_certificate":"maybe"}`, illegal("maybe", "show_certificate")},
		{"certify_days 0", `{"title":"T","certify_days":0}`, illegal("0", "certify_days")},
		{"certify_days too big", `{"title":"T","certify_days":2147483648}`, illegal("2147483648", "certify_days")},
		{"minutes negative", `{"title":"T","minutes":-1}`, illegal("-1", "minutes")},
		{"cpd_minutes fraction", `{"title":"T","cpd_minutes":"2.5"}`, illegal("2.5", "cpd_minutes")},
		{"the first bad field stops it", `{"title":"T","minutes":-1,"show_certificate":"maybe"}`, illegal("maybe", "show_certificate")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseTopic(decodeTopicBody(t, tt.body), true)
			var e *learngate.Error
			if !errors.As(err, &e) || e.Code != learngate.Invalid || e.Message != tt.want {
				t.Fatalf("ParseTopic(%.60s) = %v; want Invalid %q", tt.body, err, tt.want)
			}
		})
	}
}

// TestParseTopicValuesTable: what a valid topic body becomes, loose forms
// included (booleans and numbers as strings), and what an update that
// names no field leaves unset.
func TestParseTopicValuesTable(t *testing.T) {
	str := func(s string) *string { return &s }
	yes := true
	no := false
	num := func(n int) *int { return &n }
	tests := []struct {
		name     string
		body     string
		creating bool
		want     learngate.TopicInput
	}{
		// knowledge_type's default (a topic) is the store's, on create.
		{"title trimmed, the rest unset", `{"title":"  Fire safety  "}`, true,
			learngate.TopicInput{Title: str("Fire safety")}},
		{"loose booleans and numbers",
			`{"title":"T","knowledge_type":"2","show_certificate":"yes","recertification_allowed":false,"certify_days":"30","minutes":"15","cpd_minutes":5}`,
			true,
			learngate.TopicInput{Title: str("T"), KnowledgeType: num(store.KnowledgeArticle), ShowCertificate: &yes,
				RecertificationAllowed: &no, CertifyDays: num(30), Minutes: num(15), CPDMinutes: num(5)}},
		{"an update naming nothing changes nothing", `{}`, false, learngate.TopicInput{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTopic(decodeTopicBody(t, tt.body), tt.creating)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseTopic(%s) = %+v, %v; want %+v", tt.body, got, err, tt.want)
			}
		})
	}
}
