package input_test

import (
	"encoding/json"
	"testing"
	"time"

	"learngate"
	"learngate/input"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestDate(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want time.Time
		ok   bool
	}{
		{"iso", "2024-03-31", day(2024, 3, 31), true},
		{"dd/mm/yyyy", "31/03/2024", day(2024, 3, 31), true},
		{"dd/mm/yy 2000s", "31/03/24", day(2024, 3, 31), true},
		{"yy 00", "01/01/00", day(2000, 1, 1), true},
		{"yy 68", "01/01/68", day(2068, 1, 1), true},
		{"yy 69", "01/01/69", day(1969, 1, 1), true},
		{"yy 99", "01/01/99", day(1999, 1, 1), true},
		{"leap day", "29/02/2024", day(2024, 2, 29), true},
		{"leap day iso", "2000-02-29", day(2000, 2, 29), true},
		{"trimmed", "  2024-01-05\t", day(2024, 1, 5), true},
		{"year 1", "0001-01-01", day(1, 1, 1), true},
		{"year 9999", "31/12/9999", day(9999, 12, 31), true},
		{"31 feb", "31/02/2024", time.Time{}, false},
		{"29 feb non-leap", "29/02/2023", time.Time{}, false},
		{"29 feb 1900", "1900-02-29", time.Time{}, false},
		{"month 13", "2024-13-01", time.Time{}, false},
		{"month 0", "2024-00-10", time.Time{}, false},
		{"day 0", "00/01/2024", time.Time{}, false},
		{"day 32", "32/01/2024", time.Time{}, false},
		{"31 april", "31/04/24", time.Time{}, false},
		{"year 0", "0000-01-01", time.Time{}, false},
		{"single digits", "1/2/2024", time.Time{}, false},
		{"iso single digits", "2024-1-5", time.Time{}, false},
		{"mm/dd swapped fails", "03/31/2024", time.Time{}, false},
		{"yyyy/mm/dd", "2024/03/31", time.Time{}, false},
		{"dashes dd-mm-yyyy", "31-03-2024", time.Time{}, false},
		{"three digit year", "31/03/202", time.Time{}, false},
		{"datetime", "2024-03-31T00:00:00", time.Time{}, false},
		{"signed", "+024-03-31", time.Time{}, false},
		{"inner space", "2024-03- 1", time.Time{}, false},
		{"empty", "", time.Time{}, false},
		{"null", nil, time.Time{}, false},
		{"number", json.Number("20240331"), time.Time{}, false},
		{"bool", true, time.Time{}, false},
		{"array", []any{"2024-03-31"}, time.Time{}, false},
		{"unicode digits", "２024-03-31", time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := input.Date("expires", tt.in)
			checkErr(t, err, tt.ok, "expires", tt.in)
			if !got.Equal(tt.want) || got.Location() != time.UTC && tt.ok {
				t.Errorf("Date(%#v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestDateExactMessage(t *testing.T) {
	_, err := input.Date("deactivate_scheduled_date", "31/02/2024")
	want := "Illegal value '31/02/2024' for 'deactivate_scheduled_date'"
	if got := learngate.ErrorMessage(err); got != want {
		t.Fatalf("message = %q, want %q", got, want)
	}
}

func TestDateTimeUTC(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want time.Time
		ok   bool
	}{
		{"plain", "2024-03-31T13:45:07", time.Date(2024, 3, 31, 13, 45, 7, 0, time.UTC), true},
		{"midnight", "2024-01-01T00:00:00", day(2024, 1, 1), true},
		{"last second", "2023-12-31T23:59:59", time.Date(2023, 12, 31, 23, 59, 59, 0, time.UTC), true},
		{"trimmed", " 2024-03-31T13:45:07 ", time.Date(2024, 3, 31, 13, 45, 7, 0, time.UTC), true},
		{"offset", "2024-03-31T13:45:07Z", time.Time{}, false},
		{"numeric offset", "2024-03-31T13:45:07+01:00", time.Time{}, false},
		{"space for plus", "2024-03-31T13:45:07 01:00", time.Time{}, false},
		{"fraction", "2024-03-31T13:45:07.5", time.Time{}, false},
		{"no seconds", "2024-03-31T13:45", time.Time{}, false},
		{"space separator", "2024-03-31 13:45:07", time.Time{}, false},
		{"lower t", "2024-03-31t13:45:07", time.Time{}, false},
		{"hour 24", "2024-03-31T24:00:00", time.Time{}, false},
		{"minute 60", "2024-03-31T10:60:00", time.Time{}, false},
		{"leap second", "2016-12-31T23:59:60", time.Time{}, false},
		{"bad day", "2024-02-30T10:00:00", time.Time{}, false},
		{"date only", "2024-03-31", time.Time{}, false},
		{"dd/mm/yyyy date part", "31/03/2024T10:00:00", time.Time{}, false},
		{"empty", "", time.Time{}, false},
		{"signs", "2024-03-31T+1:00:00", time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := input.DateTimeUTC("updated_after", tt.in)
			checkErr(t, err, tt.ok, "updated_after", tt.in)
			if !got.Equal(tt.want) {
				t.Errorf("DateTimeUTC(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
	_, err := input.DateTimeUTC("updated_before", "yesterday")
	if got := learngate.ErrorMessage(err); got != "Illegal value 'yesterday' for 'updated_before'" {
		t.Fatalf("message = %q", got)
	}
}

func TestFormatDate(t *testing.T) {
	tests := []struct {
		in   time.Time
		want string
	}{
		{day(2024, 3, 1), "2024-03-01"},
		{day(1, 1, 1), "0001-01-01"},
		{time.Date(1999, 12, 31, 23, 0, 0, 0, time.FixedZone("x", -5*3600)), "1999-12-31"},
	}
	for _, tt := range tests {
		if got := input.FormatDate(tt.in); got != tt.want {
			t.Errorf("FormatDate(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Round trip through Date.
	d, err := input.Date("date", "05/06/07")
	if err != nil || input.FormatDate(d) != "2007-06-05" {
		t.Fatalf("Date/FormatDate round trip = %v, %v", input.FormatDate(d), err)
	}
}
