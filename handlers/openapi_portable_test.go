package handlers

import (
	"fmt"
	"slices"
	"testing"
)

// The document's rules for client generators (docs/decisions.md, "Portable
// to four generators"; make clients proves them with the generators). These
// tests keep the rules that need no generator to check.

// TestOpenAPITagGroupsListEachTagOnce: the reference page shows a tag once
// per group that lists it, with the same HTML ids, so every tag is in
// exactly one x-tagGroups group, and every group's tags exist.
func TestOpenAPITagGroupsListEachTagOnce(t *testing.T) {
	t.Parallel()
	doc := mustContract(t).doc
	groups, ok := doc.Extensions["x-tagGroups"].([]any)
	if !ok || len(groups) == 0 {
		t.Fatalf("x-tagGroups is %T, want a list of groups", doc.Extensions["x-tagGroups"])
	}
	count := map[string]int{}
	for _, g := range groups {
		group, _ := g.(map[string]any)
		tags, _ := group["tags"].([]any)
		for _, tag := range tags {
			name, _ := tag.(string)
			if doc.Tags.Get(name) == nil {
				t.Errorf("x-tagGroups group %v lists tag %q, which the document does not have", group["name"], name)
			}
			count[name]++
		}
	}
	for _, tag := range doc.Tags {
		if count[tag.Name] != 1 {
			t.Errorf("tag %q is in %d x-tagGroups groups, want 1", tag.Name, count[tag.Name])
		}
	}
}

// TestOpenAPIBatchRowsListTheirFields: the parts of a batch row list their
// properties and have no additionalProperties or patternProperties, which
// generators turn into an index signature under which a misspelt field
// compiles (make clients checks the compile itself).
func TestOpenAPIBatchRowsListTheirFields(t *testing.T) {
	t.Parallel()
	schemas := mustContract(t).doc.Components.Schemas
	var parts []string
	for _, ref := range schemas["BatchUserRow"].Value.AllOf {
		parts = append(parts, ref.Ref)
	}
	if want := []string{"#/components/schemas/UserFields", "#/components/schemas/EnrolmentFields"}; !slices.Equal(parts, want) {
		t.Fatalf("BatchUserRow is allOf %v, want %v", parts, want)
	}
	for _, name := range []string{"UserFields", "EnrolmentFields", "ExternalKnowledgeInput"} {
		s := schemas[name].Value
		if s.AdditionalProperties.Has != nil || s.AdditionalProperties.Schema != nil || len(s.PatternProperties) > 0 || len(s.Properties) == 0 {
			t.Errorf("%s: %d properties, additionalProperties %+v, patternProperties %v; want listed properties alone",
				name, len(s.Properties), s.AdditionalProperties, s.PatternProperties)
		}
	}
	for n := 1; n <= 5; n++ {
		for _, suffix := range []string{"", "_due_date", "_conquered_date", "_certified_date", "_skill_attained"} {
			field := fmt.Sprintf("enrolment_code_%d%s", n, suffix)
			if schemas["EnrolmentFields"].Value.Properties[field] == nil {
				t.Errorf("EnrolmentFields has no %s", field)
			}
		}
	}
}

// TestContractBatchRowsAsTheServerTakesThem: typing rows strictly changed
// no behaviour the document describes. A batch may still hold rows that are
// not objects (reported in error_list), custom fields, enrolment fields and
// properties the server ignores; an external knowledge batch with a record
// that is not an object is still refused (400).
func TestContractBatchRowsAsTheServerTakesThem(t *testing.T) {
	t.Parallel()
	result := `{"created":1,"updated":0,"unchanged":0,"enrolled":0,"invitations_sent":0,"invitations_failed":0,"errors":4,` +
		`"error_list":[{"error_reason":"Each person must be a JSON object"},{"error_reason":"Each person must be a JSON object"},` +
		`{"error_reason":"Each person must be a JSON object"},{"error_reason":"Each person must be a JSON object"}]}`
	rows := `{"people":[null,1,"x",[],{"user_name":"ann","first_name":"Ann","last_name":"Lee","email":"ann@example.com",` +
		`"X-City":"Auckland","x-Skills":["Go"],"enrolment_code_5":"T-1","enrolment_code_5_due_date":"31/12/2025","org_admin":true}]}`
	if err := exchange(t, publicListener, "POST", "/papi/users/batch_save", rows, 200, result); err != nil {
		t.Errorf("a batch with rows that are not objects, custom and ignored fields: %v", err)
	}
	records := `{"external_knowledges":["ann"]}`
	if err := exchange(t, publicListener, "POST", "/papi/external_knowledges/batch_save", records, 200,
		`{"created":1,"updated":0,"unchanged":0}`); err == nil {
		t.Error("an external knowledge batch with a record that is not an object succeeded and passed the contract check")
	}
}
