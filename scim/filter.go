package scim

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	filter "github.com/scim2/filter-parser/v2"

	"learngate/input"
)

// ParseFilter parses a filter query parameter (RFC 7644 §3.4.2.2). It also
// accepts Microsoft Entra ID's form attr[valueFilter].sub op value, which is
// read as attr[valueFilter and sub op value]. Anything it cannot parse,
// and a filter longer than MaxFilterLength, is 400 invalidFilter.
func ParseFilter(raw string) (expr filter.Expression, err error) {
	if strings.TrimSpace(raw) == "" {
		return nil, Errorf(InvalidFilter, "the filter is empty")
	}
	if len(raw) > MaxFilterLength || !utf8.ValidString(raw) || strings.ContainsRune(raw, 0) {
		return nil, Errorf(InvalidFilter, "the filter is not valid")
	}
	defer func() {
		if recover() != nil {
			expr, err = nil, Errorf(InvalidFilter, "the filter is not valid")
		}
	}()
	expr, err = filter.ParseFilterNumber([]byte(rewriteEntraValuePaths(strings.TrimSpace(raw))))
	if err != nil {
		// The parser's own text ("parse conflict [00:001]: expected op.Or
		// ...") helps no client and shows its internals: ours instead.
		return nil, Errorf(InvalidFilter, "%s", filterSyntax)
	}
	if err := checkNumbers(expr, InvalidFilter, "filter"); err != nil {
		return nil, err
	}
	return expr, nil
}

// filterSyntax is the message of a filter that does not parse.
const filterSyntax = `the filter is not valid: write it as attribute operator value, such as userName eq "bjensen" (RFC 7644, section 3.4.2.2)`

// checkNumbers refuses (400 with scimType) a compare value that is a
// number out of range: an integer beyond int64, or a number with a
// fraction or an exponent beyond float64. Numbers are parsed as
// json.Number (ParseFilterNumber), kept as the client wrote them: the
// parser's own reading fails on 1e999 with strconv's text and wraps
// 99999999999999999999 around to -9223372036854775808.
func checkNumbers(e filter.Expression, scimType, what string) error {
	switch x := e.(type) {
	case *filter.LogicalExpression:
		if err := checkNumbers(x.Left, scimType, what); err != nil {
			return err
		}
		return checkNumbers(x.Right, scimType, what)
	case *filter.NotExpression:
		return checkNumbers(x.Expression, scimType, what)
	case *filter.ValuePath:
		return checkNumbers(x.ValueFilter, scimType, what)
	case *filter.AttributeExpression:
		n, ok := x.CompareValue.(json.Number)
		if !ok || numberInRange(string(n)) {
			return nil
		}
		return Errorf(scimType, "the number %s in the %s is out of range", input.Quote(string(n)), what)
	}
	return nil
}

// numberInRange reports whether the JSON number n fits: in an int64 when
// it is an integer, in a float64 otherwise.
func numberInRange(n string) bool {
	if !strings.ContainsAny(n, ".eE") {
		_, err := strconv.ParseInt(n, 10, 64)
		return err == nil
	}
	_, err := strconv.ParseFloat(n, 64)
	return err == nil
}

// ParsePath parses a PATCH operation's path (RFC 7644 §3.5.2): 400
// invalidPath when it cannot be parsed.
func ParsePath(raw string) (p filter.Path, err error) {
	if len(raw) > MaxFilterLength || !utf8.ValidString(raw) || strings.ContainsRune(raw, 0) {
		return filter.Path{}, Errorf(InvalidPath, "the path is not valid")
	}
	defer func() {
		if recover() != nil {
			p, err = filter.Path{}, Errorf(InvalidPath, "the path is not valid")
		}
	}()
	p, err = filter.ParsePathNumber([]byte(strings.TrimSpace(raw)))
	if err != nil {
		return filter.Path{}, Errorf(InvalidPath, "the path %q is not valid", input.Quote(raw))
	}
	if p.ValueExpression != nil {
		if err := checkNumbers(p.ValueExpression, InvalidPath, "path"); err != nil {
			return filter.Path{}, err
		}
	}
	return p, nil
}

// StringValue returns a filter's compare value as text: the parser keeps a
// quoted string's escapes, which are undone here as JSON's.
func StringValue(v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var out string
	if err := json.Unmarshal([]byte(`"`+s+`"`), &out); err != nil {
		return s, true
	}
	return out, true
}

// rewriteEntraValuePaths turns each attr[f].sub op value (outside quoted
// strings) into attr[f and sub op value], or (attr[f] and attr[sub op
// value]) when f holds an or. Input that is not of that form
// is returned unchanged, for the parser to judge.
func rewriteEntraValuePaths(s string) string {
	for range 16 { // a filter has few value paths; the bound keeps the work linear in practice
		open, close, ok := findEntraValuePath(s)
		if !ok {
			return s
		}
		rest := s[close+1:] // ".sub op value..."
		sub, n := ident(rest[1:])
		after := rest[1+n:]
		trimmed := strings.TrimLeft(after, " ")
		op, m := ident(trimmed)
		if sub == "" || len(trimmed) == len(after) || m == 0 {
			return s
		}
		cond := sub + " " + op
		tail := trimmed[m:]
		if !strings.EqualFold(op, "pr") {
			v := strings.TrimLeft(tail, " ")
			vl := valueLength(v)
			if vl == 0 || len(v) == len(tail) {
				return s
			}
			cond += " " + v[:vl]
			tail = v[vl:]
		}
		inner := s[open+1 : close]
		if hasOr(inner) {
			// The parser takes no parentheses inside brackets: the two
			// conditions become two value paths (learngate's users have one
			// email, so they test the same one).
			st := start(s, open)
			s = s[:st] + "(" + s[st:close+1] + " and " + s[st:open] + "[" + cond + "])" + tail
			continue
		}
		s = s[:open+1] + inner + " and " + cond + "]" + tail
	}
	return s
}

// hasOr reports whether filter holds the word or outside quoted strings.
func hasOr(filter string) bool {
	inQuote := false
	for i := 0; i < len(filter); i++ {
		switch c := filter[i]; {
		case inQuote && c == '\\':
			i++
		case c == '"':
			inQuote = !inQuote
		case !inQuote && (c == 'o' || c == 'O') && i+1 < len(filter) && (filter[i+1] == 'r' || filter[i+1] == 'R') &&
			(i == 0 || filter[i-1] == ' ' || filter[i-1] == ')') && (i+2 == len(filter) || filter[i+2] == ' ' || filter[i+2] == '('):
			return true
		}
	}
	return false
}

// start returns where the attribute path before s[open] ('[') begins.
func start(s string, open int) int {
	i := open
	for i > 0 && s[i-1] != ' ' && s[i-1] != '(' {
		i--
	}
	return i
}

// findEntraValuePath finds the first ']' (outside quotes) followed by '.',
// and its '['.
func findEntraValuePath(s string) (open, close int, ok bool) {
	var opens []int
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inQuote && c == '\\':
			i++
		case c == '"':
			inQuote = !inQuote
		case inQuote:
		case c == '[':
			opens = append(opens, i)
		case c == ']' && len(opens) > 0:
			open = opens[len(opens)-1]
			opens = opens[:len(opens)-1]
			if i+1 < len(s) && s[i+1] == '.' {
				return open, i, true
			}
		}
	}
	return 0, 0, false
}

// ident returns the attribute name or operator at the start of s.
func ident(s string) (string, int) {
	n := 0
	for n < len(s) {
		c := s[n]
		if c == '_' || c == '-' || c == '$' || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z') {
			n++
			continue
		}
		break
	}
	return s[:n], n
}

// valueLength is the length of the compare value at the start of s: a
// quoted string with its escapes, or a bare word.
func valueLength(s string) int {
	if s == "" {
		return 0
	}
	if s[0] == '"' {
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return 0
	}
	n := 0
	for n < len(s) && s[n] != ' ' && s[n] != ')' && s[n] != ']' {
		n++
	}
	return n
}

// AttrKey names an attribute path for lookups: lower case, the core
// schemas' URN dropped, the enterprise extension's kept as "enterprise:",
// the sub-attribute after a dot. ok is false for any other URN.
func AttrKey(p filter.AttributePath) (key string, ok bool) {
	key = strings.ToLower(p.AttributeName)
	switch uri := strings.ToLower(p.URI()); uri {
	case "", strings.ToLower(UserSchema), strings.ToLower(GroupSchema):
	case strings.ToLower(EnterpriseSchema):
		key = "enterprise:" + key
	default:
		return "", false
	}
	if p.SubAttribute != nil {
		key += "." + strings.ToLower(*p.SubAttribute)
	}
	return key, true
}

// describe names an expression in an error message.
func describe(e filter.Expression) string { return fmt.Sprint(e) }
