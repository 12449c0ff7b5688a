package input_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"learngate"
	"learngate/input"
)

// checkErr fails t unless err is nil when ok, or else a *learngate.Error with
// code Invalid and exactly the IllegalValue message for field and value.
func checkErr(tb testing.TB, err error, ok bool, field string, value any) {
	tb.Helper()
	if ok {
		if err != nil {
			tb.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var e *learngate.Error
	if !errors.As(err, &e) {
		tb.Fatalf("error = %#v, want *learngate.Error", err)
	}
	if e.Code != learngate.Invalid {
		tb.Fatalf("code = %q, want %q", e.Code, learngate.Invalid)
	}
	if want := input.IllegalValue(field, value).Message; e.Message != want {
		tb.Fatalf("message = %q, want %q", e.Message, want)
	}
}

// decode decodes s as JSON the way handlers do, with UseNumber.
func decode(tb testing.TB, s string) any {
	tb.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		tb.Fatalf("decode %s: %v", s, err)
	}
	return v
}

func TestIllegalValue(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  string
	}{
		{"string", "maybe", "Illegal value 'maybe' for 'active'"},
		{"string kept as sent", " Yes please ", "Illegal value ' Yes please ' for 'active'"},
		{"json number", json.Number("2"), "Illegal value '2' for 'active'"},
		{"json number as written", json.Number("1.50e2"), "Illegal value '1.50e2' for 'active'"},
		{"float", 2.5, "Illegal value '2.5' for 'active'"},
		{"whole float", float64(2), "Illegal value '2' for 'active'"},
		{"big float", 1e21, "Illegal value '1e+21' for 'active'"},
		{"true", true, "Illegal value 'true' for 'active'"},
		{"false", false, "Illegal value 'false' for 'active'"},
		{"null", nil, "Illegal value '' for 'active'"},
		{"array", []any{"a", json.Number("1"), "<b>"}, `Illegal value '["a",1,"<b>"]' for 'active'`},
		{"object", map[string]any{"k": "v"}, `Illegal value '{"k":"v"}' for 'active'`},
		{"percent", "100%d", "Illegal value '100%d' for 'active'"},
		{"nan", math.NaN(), "Illegal value 'NaN' for 'active'"},
		{"100 characters kept", strings.Repeat("é", 100), "Illegal value '" + strings.Repeat("é", 100) + "' for 'active'"},
		{"long string cut", strings.Repeat("é", 101), "Illegal value '" + strings.Repeat("é", 100) + "…' for 'active'"},
		{"long array cut", make([]any, 100_000), "Illegal value '[" + strings.Repeat("null,", 19) + "null…' for 'active'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := input.IllegalValue("active", tt.value)
			if e.Code != learngate.Invalid {
				t.Errorf("code = %q", e.Code)
			}
			if e.Message != tt.want {
				t.Errorf("message = %q, want %q", e.Message, tt.want)
			}
		})
	}
}

func TestQuote(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"empty", "", ""},
		{"short", "abc", "abc"},
		{"exactly 100", strings.Repeat("a", 100), strings.Repeat("a", 100)},
		{"101 cut", strings.Repeat("a", 101), strings.Repeat("a", 100) + "…"},
		{"10 MiB cut", strings.Repeat("[1,", 10<<20/3), strings.Repeat("[1,", 33) + "[…"},
		{"characters, not bytes", strings.Repeat("日", 150), strings.Repeat("日", 100) + "…"},
		{"invalid UTF-8 bytes count one each", strings.Repeat("\xff", 120), strings.Repeat("\xff", 100) + "…"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := input.Quote(tt.in); got != tt.want {
				t.Errorf("Quote = %q, want %q", truncated(got), truncated(tt.want))
			}
		})
	}
}

// truncated keeps failure messages short.
func truncated(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}

func TestBool(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want bool
		ok   bool
	}{
		{"true", "true", true, true},
		{"TRUE", "TRUE", true, true},
		{"Yes", "Yes", true, true},
		{"1 string", "1", true, true},
		{"spaces", " no ", false, true},
		{"False", "False", false, true},
		{"0 string", "0", false, true},
		{"json true", true, true, true},
		{"json false", false, false, true},
		{"number 1", float64(1), true, true},
		{"number 0", float64(0), false, true},
		{"json number 1", json.Number("1"), true, true},
		{"json number 0", json.Number("0"), false, true},
		{"json number 1.0", json.Number("1.0"), true, true},
		{"int 1", 1, true, true},
		{"empty", "", false, false},
		{"blank", "  ", false, false},
		{"y", "y", false, false},
		{"on", "on", false, false},
		{"2", float64(2), false, false},
		{"json 2", json.Number("2"), false, false},
		{"string 2", "2", false, false},
		{"string 1.0", "1.0", false, false},
		{"0.5", 0.5, false, false},
		{"null", nil, false, false},
		{"array", []any{"true"}, false, false},
		{"object", map[string]any{}, false, false},
		{"nan", math.NaN(), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := input.Bool("active", tt.in)
			checkErr(t, err, tt.ok, "active", tt.in)
			if got != tt.want {
				t.Errorf("Bool(%#v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestBoolExactMessage(t *testing.T) {
	_, err := input.Bool("creator", decode(t, `"maybe"`))
	if got := learngate.ErrorMessage(err); got != "Illegal value 'maybe' for 'creator'" {
		t.Fatalf("message = %q", got)
	}
	_, err = input.Bool("creator", decode(t, `2`))
	if got := learngate.ErrorMessage(err); got != "Illegal value '2' for 'creator'" {
		t.Fatalf("message = %q", got)
	}
	_, err = input.Bool("creator", decode(t, `null`))
	if got := learngate.ErrorMessage(err); got != "Illegal value '' for 'creator'" {
		t.Fatalf("message = %q", got)
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
		ok   bool
	}{
		{"string", "Bob", "Bob", true},
		{"kept as sent", "  pass word ", "  pass word ", true},
		{"empty", "", "", true},
		{"null", nil, "", true},
		{"number", json.Number("12"), "", false},
		{"float", 12.0, "", false},
		{"bool", true, "", false},
		{"array", []any{"a"}, "", false},
		{"object", map[string]any{}, "", false},
		{"NUL", "a\x00b", "", false},
		{"only NUL", "\x00", "", false},
		{"other control characters kept", "a\tb\x01", "a\tb\x01", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := input.Text("first_name", tt.in)
			checkErr(t, err, tt.ok, "first_name", tt.in)
			if got != tt.want {
				t.Errorf("Text(%#v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestIsClear(t *testing.T) {
	tests := []struct {
		in   any
		want bool
	}{
		{nil, true},
		{"", true},
		{"  ", true},
		{"x", false},
		{false, false},
		{json.Number("0"), false},
		{[]any{}, false},
	}
	for _, tt := range tests {
		if got := input.IsClear(tt.in); got != tt.want {
			t.Errorf("IsClear(%#v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
