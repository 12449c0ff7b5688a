package input

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Paging defaults and limits (docs/decisions.md, "Lists and paging").
const (
	// DefaultPerPage is the page size when per_page is absent, 0 or negative.
	DefaultPerPage = 25
	// MaxPerPage is the largest page size; larger per_page values are reduced to it.
	MaxPerPage = 100
	// MaxPage is the largest page number; larger values are reduced to it, so that
	// (page-1)*perPage never overflows. Such a page is past the end: empty records.
	MaxPage = math.MaxInt32
)

// Int parses a whole number sent as a JSON number or a numeric string (see
// Decimal for the accepted string form). Integral values written with a
// fraction or exponent (2.0, 1e3) are accepted; fractions (1.5), values
// outside int64, NaN, infinities, "" and every other type give IllegalValue.
func Int(field string, v any) (int64, error) {
	switch n := v.(type) {
	case int:
		return int64(n), nil
	case int64:
		return n, nil
	}
	if s, ok := numericText(v); ok {
		// Exact for every int64, where float64 would round.
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, nil
		}
	}
	f, ok := number(v)
	if !ok || f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, IllegalValue(field, v)
	}
	return int64(f), nil
}

// Decimal parses a number sent as a JSON number or a numeric string. A
// numeric string is, after trimming white space, an optional sign, decimal
// digits with an optional decimal point, and an optional exponent (12, -0.5,
// .5, 1e3); hex, underscores, "Inf" and "NaN" are refused. -0 gives 0. Values
// that overflow float64, "" and every other type give IllegalValue.
func Decimal(field string, v any) (float64, error) {
	f, ok := number(v)
	if !ok {
		return 0, IllegalValue(field, v)
	}
	return f, nil
}

// Points parses a Decimal and rounds it to 2 decimal places, half away from
// zero, as the number is written in decimal: 1.005 gives 1.01 and -1.005
// gives -1.01 (float64 arithmetic alone would give 1.00).
func Points(field string, v any) (float64, error) {
	f, err := Decimal(field, v)
	if err != nil {
		return 0, err
	}
	return round2(f), nil
}

// round2 rounds f to 2 decimal places, half away from zero, working on f's
// shortest decimal form so that the digits the client wrote decide.
func round2(f float64) float64 {
	s := strconv.FormatFloat(math.Abs(f), 'f', -1, 64)
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) <= 2 {
		return f
	}
	// A float64 with a fraction is below 2^52, so whole+2 digits fit in int64.
	n, err := strconv.ParseInt(whole+frac[:2], 10, 64)
	if err != nil {
		return f
	}
	if frac[2] >= '5' {
		n++
	}
	digits := strconv.FormatInt(n, 10)
	for len(digits) < 3 {
		digits = "0" + digits
	}
	r, err := strconv.ParseFloat(digits[:len(digits)-2]+"."+digits[len(digits)-2:], 64)
	if err != nil {
		return f
	}
	if f < 0 {
		r = -r
	}
	if r == 0 {
		return 0 // no -0
	}
	return r
}

// PageParams parses the list query parameters page and per_page, given as
// the raw query strings ("" when absent; surrounding white space trimmed).
// page is 1-based: absent, 0 or negative gives 1, above MaxPage gives
// MaxPage. per_page: absent, 0 or negative gives DefaultPerPage, above
// MaxPerPage gives MaxPerPage. A value that is not a whole number gives
// IllegalValue naming "page" or "per_page"; page is checked first.
func PageParams(page, perPage string) (int, int, error) {
	p, err := pageParam("page", page, 1, MaxPage)
	if err != nil {
		return 0, 0, err
	}
	pp, err := pageParam("per_page", perPage, DefaultPerPage, MaxPerPage)
	if err != nil {
		return 0, 0, err
	}
	return p, pp, nil
}

// pageParam parses one paging parameter: def when absent or below 1, max when above max.
func pageParam(name, raw string, def, max int) (int, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return def, nil
	}
	if !isInteger(s) {
		return 0, IllegalValue(name, raw)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err != nil && s[0] == '-', err == nil && n < 1:
		return def, nil
	case err != nil, n > int64(max):
		return max, nil // a huge number is still a number
	}
	return int(n), nil
}

// number returns v as a finite float64 when v is a JSON number, a Go integer
// or a numeric string. -0 becomes 0, so it never reaches a response as "-0".
func number(v any) (float64, bool) {
	f, ok := rawNumber(v)
	if f == 0 {
		return 0, ok
	}
	return f, ok
}

// rawNumber is number without the -0 rule.
func rawNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	s, ok := numericText(v)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// numericText returns the trimmed text of a string or json.Number when it is
// a decimal number (see Decimal).
func numericText(v any) (string, bool) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = string(x)
	default:
		return "", false
	}
	s = strings.TrimSpace(s)
	return s, isDecimal(s)
}

// isDecimal reports whether s is [+-]digits[.digits][(e|E)[+-]digits], with
// at least one digit in the mantissa and in any exponent.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	mantissa := 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		mantissa++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && isDigit(s[i]); i++ {
			mantissa++
		}
	}
	if mantissa == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exponent := 0
		for ; i < len(s) && isDigit(s[i]); i++ {
			exponent++
		}
		if exponent == 0 {
			return false
		}
	}
	return i == len(s)
}

// isInteger reports whether s is [+-]digits.
func isInteger(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
