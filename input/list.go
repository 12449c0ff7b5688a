package input

import (
	"net/url"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NameList parses a list of names (groups, goals, skills_attained, list
// custom fields) sent as one string joined with ';' or as a JSON array of
// strings. Items are trimmed, empty items dropped, and later items equal to
// an earlier one ignoring case (Unicode simple folding) dropped, keeping the
// first spelling; order is kept. Array items are not split on ';'.
//
// "", null and [] give an empty, non-nil slice: the spec's "empty removes
// all". Numbers, booleans, objects, arrays holding anything but strings and
// names holding a NUL character (which no stored name can hold) give
// IllegalValue.
func NameList(field string, v any) ([]string, error) {
	var raw []string
	switch x := v.(type) {
	case nil:
	case string:
		raw = strings.Split(x, ";")
	case []string:
		raw = x
	case []any:
		raw = make([]string, 0, len(x))
		for _, item := range x {
			s, ok := item.(string)
			if !ok {
				return nil, IllegalValue(field, v)
			}
			raw = append(raw, s)
		}
	default:
		return nil, IllegalValue(field, v)
	}
	names := make([]string, 0, len(raw))
	seen := make(map[string]bool, len(raw))
	for _, s := range raw {
		if strings.IndexByte(s, 0) >= 0 {
			return nil, IllegalValue(field, v)
		}
		s = strings.TrimSpace(s)
		key := foldKey(s)
		if s == "" || seen[key] {
			continue
		}
		seen[key] = true
		names = append(names, s)
	}
	return names, nil
}

// foldKey maps s to a key shared by exactly the strings equal to it under
// Unicode simple case folding. Bytes that are not valid UTF-8 are kept as
// they are, so distinct invalid bytes stay distinct.
func foldKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteByte(s[i])
		} else {
			b.WriteRune(foldRune(r))
		}
		i += size
	}
	return b.String()
}

// foldRune returns the smallest rune in r's simple case folding orbit.
func foldRune(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < least {
			least = f
		}
	}
	return least
}

// CustomFields returns the custom fields of an input object: each property
// whose name starts with "X-" (case-sensitive, as the spec writes it), keyed
// by the name after the prefix, with its value untouched. A bare "X-" gives
// the key "" so the caller reports it as an unknown custom field. The map is
// empty, never nil, when there are none.
func CustomFields(body map[string]any) map[string]any {
	fields := make(map[string]any)
	for k, v := range body {
		if name, ok := strings.CutPrefix(k, "X-"); ok {
			fields[name] = v
		}
	}
	return fields
}

// CustomFieldFilters returns the custom field filters of a list query: each
// parameter whose name starts with "x-" in any case, keyed by the name after
// the prefix as sent, with its first value untouched. Parameters with
// nothing after the prefix are skipped. When two parameters differ only in
// the prefix's case ("X-a", "x-a") the one that sorts first wins. The map is
// empty, never nil, when there are none. A name or value that QueryText
// refuses gives its IllegalValue.
func CustomFieldFilters(query url.Values) (map[string]string, error) {
	keys := make([]string, 0, len(query))
	for k := range query {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	filters := make(map[string]string)
	for _, k := range keys {
		if len(k) <= 2 || !strings.EqualFold(k[:2], "x-") {
			continue
		}
		name := k[2:]
		if _, dup := filters[name]; dup {
			continue
		}
		if _, err := QueryText(k, k); err != nil {
			return nil, err
		}
		v, err := QueryText(k, query.Get(k))
		if err != nil {
			return nil, err
		}
		filters[name] = v
	}
	return filters, nil
}

// IDList parses a query parameter holding comma-separated whole numbers
// (topic_ids, pathway_ids): items are trimmed and empty items dropped;
// each must be a whole number as Int accepts it. Nothing but commas and
// white space gives nil, meaning no filter. Any other item gives
// IllegalValue naming field with the whole value as sent.
func IDList(field, raw string) ([]int64, error) {
	var ids []int64
	for _, item := range strings.Split(raw, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		id, err := Int(field, item)
		if err != nil {
			return nil, IllegalValue(field, raw)
		}
		ids = append(ids, id)
	}
	return ids, nil
}
