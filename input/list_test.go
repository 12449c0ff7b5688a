package input_test

import (
	"encoding/json"
	"net/url"
	"reflect"
	"testing"

	"learngate"
	"learngate/input"
)

func TestNameList(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want []string
		ok   bool
	}{
		{"joined", "Sales;Support", []string{"Sales", "Support"}, true},
		{"trimmed", " Sales ; Support ;", []string{"Sales", "Support"}, true},
		{"empty items dropped", ";;Sales;; ;", []string{"Sales"}, true},
		{"dedupe keeps first spelling", "Sales;SALES;support;Support", []string{"Sales", "support"}, true},
		{"dedupe unicode", "Ärzte;ärzte;ÄRZTE", []string{"Ärzte"}, true},
		{"dedupe kelvin sign", "kelvin;\u212Aelvin", []string{"kelvin"}, true},
		{"order kept", "b;a;c", []string{"b", "a", "c"}, true},
		{"single", "Sales", []string{"Sales"}, true},
		{"empty string", "", []string{}, true},
		{"blank", "  ", []string{}, true},
		{"null", nil, []string{}, true},
		{"array", []any{"Sales", " Support ", "sales", ""}, []string{"Sales", "Support"}, true},
		{"array not split", []any{"a;b"}, []string{"a;b"}, true},
		{"empty array", []any{}, []string{}, true},
		{"string slice", []string{"x", "X"}, []string{"x"}, true},
		{"number", json.Number("3"), nil, false},
		{"float", 3.0, nil, false},
		{"bool", true, nil, false},
		{"object", map[string]any{"a": "b"}, nil, false},
		{"array with number", []any{"Sales", json.Number("1")}, nil, false},
		{"array with null", []any{nil}, nil, false},
		{"nested array", []any{[]any{"a"}}, nil, false},
		{"NUL in a joined item", "Go;S\x00QL", nil, false},
		{"NUL in an array item", []any{"Go", "\x00"}, nil, false},
		{"NUL in an empty item", "Go; \x00 ;", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := input.NameList("groups", tt.in)
			checkErr(t, err, tt.ok, "groups", tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("NameList(%#v) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
	_, err := input.NameList("goals", decode(t, `["Sales",1]`))
	if got := learngate.ErrorMessage(err); got != `Illegal value '["Sales",1]' for 'goals'` {
		t.Fatalf("message = %q", got)
	}
}

func TestCustomFields(t *testing.T) {
	body := map[string]any{
		"X-Department": "Sales",
		"X-Start":      "2024-01-01",
		"X-":           "bare",
		"x-lower":      "ignored",
		"user_name":    "bob",
		"Xtra":         "ignored",
		"X-Count":      json.Number("3"),
	}
	want := map[string]any{
		"Department": "Sales",
		"Start":      "2024-01-01",
		"":           "bare",
		"Count":      json.Number("3"),
	}
	if got := input.CustomFields(body); !reflect.DeepEqual(got, want) {
		t.Errorf("CustomFields = %#v, want %#v", got, want)
	}
	if got := input.CustomFields(nil); got == nil || len(got) != 0 {
		t.Errorf("CustomFields(nil) = %#v, want empty map", got)
	}
}

func TestCustomFieldFilters(t *testing.T) {
	query := url.Values{
		"x-Department": {"Sales", "Other"},
		"X-Region":     {"North"},
		"x-":           {"skipped"},
		"page":         {"2"},
		"xregion":      {"ignored"},
		"X-Dup":        {"upper"},
		"x-Dup":        {"lower"},
	}
	want := map[string]string{
		"Department": "Sales",
		"Region":     "North",
		"Dup":        "upper", // "X-Dup" sorts before "x-Dup"
	}
	if got, err := input.CustomFieldFilters(query); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("CustomFieldFilters = %#v, want %#v", got, want)
	}
	if got, err := input.CustomFieldFilters(nil); err != nil || got == nil || len(got) != 0 {
		t.Errorf("CustomFieldFilters(nil) = %#v, want empty map", got)
	}
}

func TestIDList(t *testing.T) {
	tests := []struct {
		in   string
		want []int64
		ok   bool
	}{
		{"1,2,3", []int64{1, 2, 3}, true},
		{" 4 , 5 ,, ", []int64{4, 5}, true},
		{"7", []int64{7}, true},
		{"-1,0", []int64{-1, 0}, true},
		{"2.0", []int64{2}, true},
		{"", nil, true},
		{" , ,", nil, true},
		{"1,a", nil, false},
		{"1;2", nil, false},
		{"1.5", nil, false},
		{"99999999999999999999", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := input.IDList("topic_ids", tt.in)
			checkErr(t, err, tt.ok, "topic_ids", tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("IDList(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}
