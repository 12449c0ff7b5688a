package input_test

import (
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"learngate"
	"learngate/input"
)

// fuzzValues returns the values a fuzzed string may arrive as: the string
// itself and, when it is valid JSON, its decoded form (with UseNumber).
func fuzzValues(s string) []any {
	values := []any{s}
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err == nil {
		values = append(values, v)
	}
	return values
}

// checkFuzzErr fails unless err is nil or the exact IllegalValue for field and v.
func checkFuzzErr(t *testing.T, err error, field string, v any) {
	t.Helper()
	checkErr(t, err, err == nil, field, v)
}

func FuzzBool(f *testing.F) {
	for _, s := range []string{"true", "YES", " no ", "1", "0", "2", `"true"`, "null", "1.0", "-0", "[true]", "", "y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range fuzzValues(s) {
			got, err := input.Bool("active", v)
			checkFuzzErr(t, err, "active", v)
			if str, ok := v.(string); ok && err == nil {
				word := strings.ToLower(strings.TrimSpace(str))
				if got != (word == "true" || word == "1" || word == "yes") {
					t.Fatalf("Bool(%q) = %v", str, got)
				}
			}
		}
	})
}

var dateShape = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}|\d{2}/\d{2}/\d{4}|\d{2}/\d{2}/\d{2})$`)

func FuzzDate(f *testing.F) {
	for _, s := range []string{"2024-03-31", "31/03/2024", "31/03/24", "31/02/2024", "0000-01-01", "01/01/-1", " 2024-01-01 ", "1/2/2024", `"2024-03-31"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range fuzzValues(s) {
			got, err := input.Date("expires", v)
			checkFuzzErr(t, err, "expires", v)
			str, isString := v.(string)
			if !isString {
				if err == nil {
					t.Fatalf("Date(%#v) accepted a non-string", v)
				}
				continue
			}
			// Reference: the shape by regexp, the calendar by time.Parse.
			trimmed := strings.TrimSpace(str)
			want := false
			if dateShape.MatchString(trimmed) {
				layout := map[int]string{10: "2006-01-02", 8: "02/01/06"}[len(trimmed)]
				if trimmed[2] == '/' && len(trimmed) == 10 {
					layout = "02/01/2006"
				}
				ref, perr := time.Parse(layout, trimmed)
				want = perr == nil && ref.Year() >= 1
				if want && !ref.Equal(got) {
					t.Fatalf("Date(%q) = %v, time.Parse gives %v", str, got, ref)
				}
			}
			if (err == nil) != want {
				t.Fatalf("Date(%q) error = %v, reference accepts = %v", str, err, want)
			}
			if err != nil {
				continue
			}
			if got.Location() != time.UTC || got.Hour() != 0 || got.Minute() != 0 || got.Second() != 0 || got.Nanosecond() != 0 {
				t.Fatalf("Date(%q) = %v, not midnight UTC", str, got)
			}
			again, err := input.Date("expires", input.FormatDate(got))
			if err != nil || !again.Equal(got) {
				t.Fatalf("round trip of %q: %v, %v", str, again, err)
			}
			if trimmed[4] == '-' && input.FormatDate(got) != trimmed {
				t.Fatalf("FormatDate(Date(%q)) = %q", str, input.FormatDate(got))
			}
		}
	})
}

func FuzzNameList(f *testing.F) {
	for _, s := range []string{"a;b", " A ; a ;", "", ";;", `["x","X"," y "]`, `["x",1]`, "null", "3", "\u212A;k", "a\xff;a\xfe", "a;\x00", `["\u0000"]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range fuzzValues(s) {
			got, err := input.NameList("groups", v)
			checkFuzzErr(t, err, "groups", v)
			if err != nil {
				continue
			}
			if got == nil {
				t.Fatalf("NameList(%#v) = nil, want a non-nil slice", v)
			}
			for i, name := range got {
				if name == "" || name != strings.TrimSpace(name) || strings.IndexByte(name, 0) >= 0 {
					t.Fatalf("NameList(%#v) item %q is empty, untrimmed or holds NUL", v, name)
				}
				if str, ok := v.(string); ok && (strings.Contains(name, ";") || !strings.Contains(str, name)) {
					t.Fatalf("NameList(%q) item %q not a ';' part of the input", str, name)
				}
				for _, earlier := range got[:i] {
					if utf8.ValidString(name) && utf8.ValidString(earlier) && strings.EqualFold(name, earlier) {
						t.Fatalf("NameList(%#v) keeps %q and %q", v, earlier, name)
					}
				}
			}
		}
	})
}

func FuzzDecimal(f *testing.F) {
	for _, s := range []string{"1.005", "-2.675", "1e400", "NaN", ".5", "5.", "1e", "0x10", "9223372036854775807", `"12.5"`, "true", "-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range append(fuzzValues(s), json.Number(s)) {
			d, err := input.Decimal("assessment_score", v)
			checkFuzzErr(t, err, "assessment_score", v)
			if err == nil && (math.IsNaN(d) || math.IsInf(d, 0)) {
				t.Fatalf("Decimal(%#v) = %v", v, d)
			}
			p, perr := input.Points("points", v)
			checkFuzzErr(t, perr, "points", v)
			if (err == nil) != (perr == nil) {
				t.Fatalf("Decimal and Points disagree on %#v: %v, %v", v, err, perr)
			}
			if perr == nil {
				if math.IsNaN(p) || math.IsInf(p, 0) || math.Abs(p-d) > 0.005+1e-9*math.Abs(d) {
					t.Fatalf("Points(%#v) = %v, Decimal = %v", v, p, d)
				}
				if p == 0 && math.Signbit(p) {
					t.Fatalf("Points(%#v) = -0", v)
				}
			}
			n, ierr := input.Int("total_time", v)
			checkFuzzErr(t, ierr, "total_time", v)
			if ierr == nil && err == nil && math.Abs(float64(n)-d) > 1e-9*math.Abs(d) {
				t.Fatalf("Int(%#v) = %d, Decimal = %v", v, n, d)
			}
			if ierr == nil && err != nil {
				t.Fatalf("Int accepts %#v but Decimal refuses it: %v", v, err)
			}
		}
	})
}

func FuzzPageParams(f *testing.F) {
	f.Add("", "")
	f.Add("2", "50")
	f.Add("0", "-1")
	f.Add("99999999999999999999", "1000")
	f.Add("x", "1.5")
	f.Add("+", " 7 ")
	f.Fuzz(func(t *testing.T, page, perPage string) {
		p, pp, err := input.PageParams(page, perPage)
		if err != nil {
			// The bad one is named: page when page is bad, else per_page.
			if _, _, perr := input.PageParams(page, ""); perr != nil {
				checkFuzzErr(t, err, "page", page)
			} else {
				checkFuzzErr(t, err, "per_page", perPage)
			}
			return
		}
		if p < 1 || p > input.MaxPage || pp < 1 || pp > input.MaxPerPage {
			t.Fatalf("PageParams(%q, %q) = %d, %d", page, perPage, p, pp)
		}
		if offset := int64(p-1) * int64(pp); offset < 0 {
			t.Fatalf("offset overflow for %d, %d", p, pp)
		}
	})
}

var dateTimeShape = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$`)

func FuzzDateTimeUTC(f *testing.F) {
	for _, s := range []string{"2024-03-31T13:45:07", "2024-03-31T13:45:07Z", "2024-03-31T13:45:07.5", "2024-02-30T00:00:00", "0000-01-01T00:00:00", " 2024-03-31T23:59:59 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := input.DateTimeUTC("updated_after", s)
		checkFuzzErr(t, err, "updated_after", s)
		trimmed := strings.TrimSpace(s)
		want := false
		if dateTimeShape.MatchString(trimmed) {
			ref, perr := time.Parse("2006-01-02T15:04:05", trimmed)
			want = perr == nil && ref.Year() >= 1
			if want && (!ref.Equal(got) || got.Location() != time.UTC) {
				t.Fatalf("DateTimeUTC(%q) = %v, time.Parse gives %v", s, got, ref)
			}
		}
		if (err == nil) != want {
			t.Fatalf("DateTimeUTC(%q) error = %v, reference accepts = %v", s, err, want)
		}
	})
}

func FuzzIDList(f *testing.F) {
	for _, s := range []string{"1,2,3", " 4 , ,5", "", ",", "1,a", "1e3", "-0", "99999999999999999999", "1;2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := input.IDList("topic_ids", s)
		checkFuzzErr(t, err, "topic_ids", s)
		if err != nil {
			return
		}
		items := 0
		for _, item := range strings.Split(s, ",") {
			if strings.TrimSpace(item) != "" {
				items++
			}
		}
		if len(got) != items {
			t.Fatalf("IDList(%q) = %v: %d ids for %d items", s, got, len(got), items)
		}
	})
}

func FuzzChoice(f *testing.F) {
	for _, s := range []string{"staff", " STAFF ", "none", "None", "", "every_day", `"FR"`, "null", "1", "[\"en\"]", "zh-hant-hk", "\u212Aey"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range fuzzValues(s) {
			got, err := input.OneOf("type", v, input.UserTypes)
			checkFuzzErr(t, err, "type", v)
			if err == nil && !contains(input.UserTypes, got) {
				t.Fatalf("OneOf(%#v) = %q, not a canonical value", v, got)
			}
			lang, found, err := input.OneOfOrIgnore("language", v, input.Languages)
			checkFuzzErr(t, err, "language", v)
			if found != (lang != "") || (found && !contains(input.Languages, lang)) {
				t.Fatalf("OneOfOrIgnore(%#v) = %q, %v", v, lang, found)
			}
			freq, err := input.ReportFrequency("learner_report_frequency", v)
			checkFuzzErr(t, err, "learner_report_frequency", v)
			if err == nil && freq != "" && !contains(input.ReportFrequencies, freq) {
				t.Fatalf("ReportFrequency(%#v) = %q", v, freq)
			}
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"plain", " spaced ", "", `"a\u0000b"`, "a\x00b", `"\u0000"`, "\x00", `["a\u0000"]`, "\xff", "null", "1", "[]", `{"a":1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range fuzzValues(s) {
			got, err := input.Text("notes", v)
			checkFuzzErr(t, err, "notes", v)
			if str, ok := v.(string); ok && err == nil && got != str {
				t.Fatalf("Text(%q) = %q, want it as sent", str, got)
			}
			if err == nil && strings.IndexByte(got, 0) >= 0 {
				t.Fatalf("Text(%#v) kept a NUL", v)
			}
		}
		got, err := input.QueryText("email", s)
		checkFuzzErr(t, err, "email", s)
		if err == nil && (got != s || !utf8.ValidString(got) || strings.IndexByte(got, 0) >= 0) {
			t.Fatalf("QueryText(%q) = %q", s, got)
		}
	})
}

func FuzzCustomFieldFilters(f *testing.F) {
	for _, s := range []string{"x-city=a&X-City=b", "x-=1&x-a=%00", "x-a%00=1", "x-city=a%00b", "X-%ff=1", "page=1&x-age=3", "%zz&x-b=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		query, _ := url.ParseQuery(s)
		got, err := input.CustomFieldFilters(query)
		if err != nil {
			var e *learngate.Error
			if !errors.As(err, &e) || e.Code != learngate.Invalid {
				t.Fatalf("CustomFieldFilters(%q) error = %#v", s, err)
			}
			return
		}
		for name, v := range got {
			if name == "" || strings.IndexByte(name+v, 0) >= 0 || !utf8.ValidString(name+v) {
				t.Fatalf("CustomFieldFilters(%q) kept %q=%q", s, name, v)
			}
		}
	})
}

// fullRender is a value rendered whole, as IllegalValue showed it before
// values were cut: the reference FuzzIllegalValue checks the cut against.
func fullRender(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case json.Number:
		return string(v)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// FuzzIllegalValue checks that IllegalValue quotes the first MaxQuoted
// characters of any value exactly as the whole value renders, ending with
// "…" when cut, and never quotes more.
func FuzzIllegalValue(f *testing.F) {
	for _, s := range []string{
		"plain", `"a\u0000b"`, "a\x00b", `[1,1,1]`, `{"b":[1,{"a":"x"}],"a":null}`, `"` + strings.Repeat("é", 150) + `"`,
		`[` + strings.Repeat(`"<&>\"",`, 50) + `1]`, `{"` + strings.Repeat("k", 200) + `":1}`, "[[[[[[[[[[1]]]]]]]]]]",
		strings.Repeat("\xff", 150), `[1e400]`, `[-0.0,1E+2,true,false]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range fuzzValues(s) {
			if _, isBool := v.(bool); isBool {
				continue
			}
			got := input.IllegalValue("f", v).Message
			full := fullRender(v)
			want := "Illegal value '" + input.Quote(full) + "' for 'f'"
			if got != want {
				t.Fatalf("IllegalValue(%q) = %q, want %q", s, got, want)
			}
			if quoted := strings.TrimSuffix(strings.TrimPrefix(got, "Illegal value '"), "' for 'f'"); utf8.RuneCountInString(quoted) > input.MaxQuoted+1 {
				t.Fatalf("IllegalValue(%q) quotes %d characters", s, utf8.RuneCountInString(quoted))
			}
		}
	})
}
