package input_test

import (
	"encoding/json"
	"math"
	"testing"

	"learngate"
	"learngate/input"
)

func TestInt(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want int64
		ok   bool
	}{
		{"json number", json.Number("90"), 90, true},
		{"float", float64(90), 90, true},
		{"string", "90", 90, true},
		{"string trimmed", " 90 ", 90, true},
		{"negative", "-3", -3, true},
		{"plus", "+3", 3, true},
		{"whole with fraction", json.Number("2.0"), 2, true},
		{"exponent", "1e3", 1000, true},
		{"max int64 exact", "9223372036854775807", math.MaxInt64, true},
		{"min int64 exact", json.Number("-9223372036854775808"), math.MinInt64, true},
		{"int", 7, 7, true},
		{"int64 max", int64(math.MaxInt64), math.MaxInt64, true},
		{"fraction", "1.5", 0, false},
		{"float fraction", 1.5, 0, false},
		{"too big", "9223372036854775808", 0, false},
		{"too big float", 1e19, 0, false},
		{"huge exponent", "1e400", 0, false},
		{"empty", "", 0, false},
		{"blank", " ", 0, false},
		{"nan string", "NaN", 0, false},
		{"inf string", "Inf", 0, false},
		{"nan float", math.NaN(), 0, false},
		{"inf float", math.Inf(1), 0, false},
		{"hex", "0x10", 0, false},
		{"underscore", "1_000", 0, false},
		{"words", "ten", 0, false},
		{"bool", true, 0, false},
		{"null", nil, 0, false},
		{"array", []any{json.Number("1")}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := input.Int("total_time", tt.in)
			checkErr(t, err, tt.ok, "total_time", tt.in)
			if got != tt.want {
				t.Errorf("Int(%#v) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestDecimal(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want float64
		ok   bool
	}{
		{"json number", json.Number("87.5"), 87.5, true},
		{"float", 87.5, 87.5, true},
		{"string", "87.5", 87.5, true},
		{"string trimmed", "\t87.5 ", 87.5, true},
		{"leading dot", ".5", 0.5, true},
		{"trailing dot", "5.", 5, true},
		{"exponent", "-1.5E2", -150, true},
		{"leading zeros", "007", 7, true},
		{"tiny underflows to 0", "1e-400", 0, true},
		{"minus zero is zero", "-0", 0, true},
		{"float minus zero is zero", math.Copysign(0, -1), 0, true},
		{"overflow", "1e400", 0, false},
		{"json overflow", json.Number("-1e400"), 0, false},
		{"empty", "", 0, false},
		{"dot only", ".", 0, false},
		{"sign only", "-", 0, false},
		{"bad exponent", "1e", 0, false},
		{"two dots", "1.2.3", 0, false},
		{"comma", "1,5", 0, false},
		{"nan", "nan", 0, false},
		{"infinity", "-Infinity", 0, false},
		{"hex float", "0x1p4", 0, false},
		{"inner space", "1 5", 0, false},
		{"nan float", math.NaN(), 0, false},
		{"inf float", math.Inf(-1), 0, false},
		{"bool", false, 0, false},
		{"null", nil, 0, false},
		{"object", map[string]any{"v": 1.0}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := input.Decimal("assessment_score", tt.in)
			checkErr(t, err, tt.ok, "assessment_score", tt.in)
			if got != tt.want || math.Signbit(got) != math.Signbit(tt.want) {
				t.Errorf("Decimal(%#v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
	_, err := input.Decimal("assessment_score", "abc")
	if got := learngate.ErrorMessage(err); got != "Illegal value 'abc' for 'assessment_score'" {
		t.Fatalf("message = %q", got)
	}
}

func TestPoints(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want float64
		ok   bool
	}{
		{"two places", "12.34", 12.34, true},
		{"one place", json.Number("12.5"), 12.5, true},
		{"whole", float64(12), 12, true},
		{"half up", "1.005", 1.01, true},
		{"half away negative", "-1.005", -1.01, true},
		{"below half", "1.004999", 1.0, true},
		{"above half", "2.675", 2.68, true},
		{"rounds up a whole", "0.999", 1, true},
		{"carry", "9.995", 10, true},
		{"small", "0.004", 0, true},
		{"negative small is zero", "-0.004", 0, true},
		{"minus zero", "-0.00", 0, true},
		{"exponent", "1.2345e1", 12.35, true},
		{"float input", 0.125, 0.13, true},
		{"big whole", 1e21, 1e21, true},
		{"big fraction", "4503599627370495.5", 4503599627370495.5, true},
		{"bad", "x", 0, false},
		{"null", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := input.Points("category_1_points", tt.in)
			checkErr(t, err, tt.ok, "category_1_points", tt.in)
			if got != tt.want || math.Signbit(got) != math.Signbit(tt.want) {
				t.Errorf("Points(%#v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestPageParams(t *testing.T) {
	tests := []struct {
		name          string
		page, perPage string
		wantPage      int
		wantPerPage   int
		badField      string
		badValue      string
	}{
		{"defaults", "", "", 1, input.DefaultPerPage, "", ""},
		{"given", "3", "50", 3, 50, "", ""},
		{"trimmed", " 2 ", " 10 ", 2, 10, "", ""},
		{"max per page", "1", "100", 1, 100, "", ""},
		{"per page reduced", "1", "101", 1, input.MaxPerPage, "", ""},
		{"per page huge", "1", "99999999999999999999999", 1, input.MaxPerPage, "", ""},
		{"per page zero", "1", "0", 1, input.DefaultPerPage, "", ""},
		{"per page negative", "1", "-5", 1, input.DefaultPerPage, "", ""},
		{"per page very negative", "1", "-99999999999999999999999", 1, input.DefaultPerPage, "", ""},
		{"page zero", "0", "", 1, input.DefaultPerPage, "", ""},
		{"page negative", "-2", "", 1, input.DefaultPerPage, "", ""},
		{"page plus", "+4", "", 4, input.DefaultPerPage, "", ""},
		{"page huge", "99999999999999999999", "", input.MaxPage, input.DefaultPerPage, "", ""},
		{"page above max", "2147483648", "", input.MaxPage, input.DefaultPerPage, "", ""},
		{"page words", "two", "", 0, 0, "page", "two"},
		{"page fraction", "1.5", "", 0, 0, "page", "1.5"},
		{"page blank sign", "-", "", 0, 0, "page", "-"},
		{"per page words", "1", "lots", 0, 0, "per_page", "lots"},
		{"per page exponent", "1", "1e2", 0, 0, "per_page", "1e2"},
		{"both bad reports page", "x", "y", 0, 0, "page", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, perPage, err := input.PageParams(tt.page, tt.perPage)
			checkErr(t, err, tt.badField == "", tt.badField, tt.badValue)
			if page != tt.wantPage || perPage != tt.wantPerPage {
				t.Errorf("PageParams(%q, %q) = %d, %d, want %d, %d", tt.page, tt.perPage, page, perPage, tt.wantPage, tt.wantPerPage)
			}
		})
	}
	_, _, err := input.PageParams("1", "abc")
	if got := learngate.ErrorMessage(err); got != "Illegal value 'abc' for 'per_page'" {
		t.Fatalf("message = %q", got)
	}
}
