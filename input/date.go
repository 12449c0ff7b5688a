package input

import (
	"strings"
	"time"
)

// DateLayout is the layout of dates in responses: yyyy-mm-dd.
const DateLayout = "2006-01-02"

// Date parses a request date in one of the spec's three formats, after
// trimming surrounding white space:
//
//   - yyyy-mm-dd (2024-03-31)
//   - dd/mm/yyyy (31/03/2024)
//   - dd/mm/yy (31/03/24): a two-digit year 00–68 is 2000–2068 and 69–99 is
//     1969–1999, the same pivot as Go's "06" layout.
//
// Parsing is strict: every part has exactly the digits shown, the date must
// exist in the calendar (31/02/2024 fails) and the year must be 0001–9999.
// The result is midnight UTC. Any other value or type, including "" and
// null, gives IllegalValue (check IsClear first where empty clears).
func Date(field string, v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, IllegalValue(field, v)
	}
	t, ok := parseDate(strings.TrimSpace(s))
	if !ok {
		return time.Time{}, IllegalValue(field, v)
	}
	return t, nil
}

// DateTimeUTC parses a list filter time (updated_after, updated_before):
// exactly yyyy-mm-ddThh:mm:ss after trimming white space, no fraction and no
// offset, read as UTC (docs/decisions.md, "Lists and paging"). Anything else gives IllegalValue.
func DateTimeUTC(field string, v string) (time.Time, error) {
	s := strings.TrimSpace(v)
	if len(s) != 19 || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, IllegalValue(field, v)
	}
	day, ok := parseDate(s[:10])
	if !ok || s[4] != '-' {
		return time.Time{}, IllegalValue(field, v)
	}
	h, okH := digits(s[11:13])
	m, okM := digits(s[14:16])
	sec, okS := digits(s[17:19])
	if !okH || !okM || !okS || h > 23 || m > 59 || sec > 59 {
		return time.Time{}, IllegalValue(field, v)
	}
	return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second), nil
}

// FormatDate formats t as yyyy-mm-dd, the form of dates in responses, in
// t's own location (Date's results are UTC).
func FormatDate(t time.Time) string {
	return t.Format(DateLayout)
}

// parseDate parses s in one of Date's three formats; s is already trimmed.
func parseDate(s string) (time.Time, bool) {
	var y, m, d int
	var okY, okM, okD bool
	switch {
	case len(s) == 10 && s[4] == '-' && s[7] == '-':
		y, okY = digits(s[0:4])
		m, okM = digits(s[5:7])
		d, okD = digits(s[8:10])
	case len(s) == 10 && s[2] == '/' && s[5] == '/':
		d, okD = digits(s[0:2])
		m, okM = digits(s[3:5])
		y, okY = digits(s[6:10])
	case len(s) == 8 && s[2] == '/' && s[5] == '/':
		d, okD = digits(s[0:2])
		m, okM = digits(s[3:5])
		y, okY = digits(s[6:8])
		if y < 69 {
			y += 2000
		} else {
			y += 1900
		}
	default:
		return time.Time{}, false
	}
	if !okY || !okM || !okD || y < 1 || m < 1 || m > 12 || d < 1 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d { // normalised into the next month: no such day
		return time.Time{}, false
	}
	return t, true
}

// digits parses s as an unsigned decimal made only of ASCII digits.
func digits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}
