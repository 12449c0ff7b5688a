package input_test

import (
	"encoding/json"
	"strings"
	"testing"

	"learngate"
	"learngate/input"
)

func TestOneOf(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
		ok   bool
	}{
		{"canonical", "Staff", "Staff", true},
		{"lower", "student", "Student", true},
		{"upper trimmed", " WORKER ", "Worker", true},
		{"unknown", "Boss", "", false},
		{"empty", "", "", false},
		{"null", nil, "", false},
		{"number", json.Number("1"), "", false},
		{"bool", true, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := input.OneOf("type", tt.in, input.UserTypes)
			checkErr(t, err, tt.ok, "type", tt.in)
			if got != tt.want {
				t.Errorf("OneOf(%#v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	_, err := input.OneOf("type", "Boss", input.UserTypes)
	if got := learngate.ErrorMessage(err); got != "Illegal value 'Boss' for 'type'" {
		t.Fatalf("message = %q", got)
	}
}

func TestOneOfOrIgnore(t *testing.T) {
	tests := []struct {
		name  string
		in    any
		want  string
		found bool
		ok    bool
	}{
		{"language canonical", "zh-Hant-HK", "zh-Hant-HK", true, true},
		{"language any case", "HI-in", "hi-IN", true, true},
		{"unrecognised ignored", "klingon", "", false, true},
		{"empty ignored", "", "", false, true},
		{"null ignored", nil, "", false, true},
		{"number refused", json.Number("5"), "", false, false},
		{"bool refused", false, "", false, false},
		{"array refused", []any{"en"}, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found, err := input.OneOfOrIgnore("language", tt.in, input.Languages)
			checkErr(t, err, tt.ok, "language", tt.in)
			if got != tt.want || found != tt.found {
				t.Errorf("OneOfOrIgnore(%#v) = %q, %v, want %q, %v", tt.in, got, found, tt.want, tt.found)
			}
		})
	}
	got, found, err := input.OneOfOrIgnore("default_landing_page", "dashboard - calendar", input.LandingPages)
	if err != nil || !found || got != "Dashboard - Calendar" {
		t.Errorf("landing page = %q, %v, %v", got, found, err)
	}
}

func TestReportFrequency(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
		ok   bool
	}{
		{"value", "every_monday", "every_monday", true},
		{"any case", "Once_A_Month", "once_a_month", true},
		{"none clears", "none", "", true},
		{"NONE clears", " NONE ", "", true},
		{"empty clears", "", "", true},
		{"null clears", nil, "", true},
		{"other", "hourly", "", false},
		{"number", json.Number("1"), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := input.ReportFrequency("learner_report_frequency", tt.in)
			checkErr(t, err, tt.ok, "learner_report_frequency", tt.in)
			if got != tt.want {
				t.Errorf("ReportFrequency(%#v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLists(t *testing.T) {
	tests := []struct {
		name string
		list []string
		n    int
	}{
		{"UserTypes", input.UserTypes, 17},
		{"Languages", input.Languages, 24},
		{"ReportFrequencies", input.ReportFrequencies, 11},
		{"LandingPages", input.LandingPages, 7},
		{"Logins", input.Logins, 2},
		{"KnowledgeTypes", input.KnowledgeTypes, 6},
		{"DevelopmentPlanStages", input.DevelopmentPlanStages, 3},
		{"DevelopmentFocuses", input.DevelopmentFocuses, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.list) != tt.n {
				t.Errorf("len = %d, want %d", len(tt.list), tt.n)
			}
			seen := map[string]bool{}
			for _, v := range tt.list {
				if seen[strings.ToLower(v)] {
					t.Errorf("duplicate %q", v)
				}
				seen[strings.ToLower(v)] = true
			}
		})
	}
	if _, err := input.OneOf("type", input.DefaultUserType, input.UserTypes); err != nil {
		t.Errorf("DefaultUserType %q not in UserTypes", input.DefaultUserType)
	}
}
