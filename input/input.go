// Package input parses the Public API's loose input values in one place, for
// every handler: booleans written several ways, three date formats, names
// joined with ';' or sent as arrays, numbers sent as strings, X- custom
// fields, list paging parameters and the spec's fixed value lists.
//
// Values arrive as decoded JSON: string, float64 (or json.Number when the
// decoder uses UseNumber), bool, nil, []any or map[string]any. Every parse
// failure is a *learngate.Error with code learngate.Invalid whose Message is
// the spec's 400 sentence, made by IllegalValue, with no "Bad request: "
// prefix (the routes that show one add it). Go int and int64 values are
// accepted wherever a number is, for callers that build values in code.
//
// Whitespace rule: surrounding white space is trimmed from typed values
// (booleans, dates, times, numbers, list items, choices) before they are
// checked; Text returns strings exactly as sent. Error messages show the
// value as the client sent it, cut to MaxQuoted characters (Quote).
package input

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"learngate"
)

// IllegalValue returns the spec's error for a bad value: code Invalid,
// message "Illegal value '<value>' for '<field>'" (the routes that say
// "Bad request: " first get it from handlers' respondError).
// The value is rendered as the client sent it: a string as-is, a number in
// its JSON form, a bool as true/false, null as empty, arrays and objects as
// compact JSON; then cut by Quote, like the field name.
func IllegalValue(field string, value any) *learngate.Error {
	return learngate.Errorf(learngate.Invalid, "Illegal value '%s' for '%s'", Quote(render(value)), Quote(field))
}

// MaxQuoted is the most characters of a client's value an error message
// quotes (docs/decisions.md, "Bodies and hostile input").
const MaxQuoted = 100

// Quote returns s for an error message: as it is when it holds at most
// MaxQuoted characters, else its first MaxQuoted characters followed by
// "…". Every message that quotes a value the client sent goes through it,
// so a 10 MiB value is never echoed back.
func Quote(s string) string {
	if cut := cutChars(s, MaxQuoted); len(cut) < len(s) {
		return cut + "…"
	}
	return s
}

// render writes v the way the client sent it, for error messages. Arrays
// and objects are written as compact JSON (keys sorted) only as far as
// Quote keeps: writing stops past renderLimit bytes and strings inside are
// cut, so a 10 MiB array costs a few hundred bytes, not a copy of itself.
func render(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case json.Number:
		return string(v)
	case bool:
		if v {
			return "true"
		}
		return "false"
	}
	var b strings.Builder
	writeJSON(&b, v)
	return b.String()
}

// renderLimit is the length in bytes past which render stops writing: it
// holds more than MaxQuoted characters, so Quote's cut is exact.
const renderLimit = 4 * (MaxQuoted + 1)

// writeJSON appends v to b as compact JSON until b holds renderLimit bytes.
func writeJSON(b *strings.Builder, v any) {
	switch v := v.(type) {
	case []any:
		b.WriteByte('[')
		for i, item := range v {
			if b.Len() > renderLimit {
				return
			}
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, item)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if b.Len() > renderLimit {
				return
			}
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, k)
			b.WriteByte(':')
			writeJSON(b, v[k])
		}
		b.WriteByte('}')
	case string:
		// Escaping only lengthens a string, so its first MaxQuoted+1
		// characters are all that can show.
		writeEncoded(b, cutChars(v, MaxQuoted+1))
	default:
		writeEncoded(b, v)
	}
}

// writeEncoded appends v as encoding/json writes it, HTML left unescaped.
func writeEncoded(b *strings.Builder, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// NaN, Inf and values JSON cannot hold: never sent by a client.
		b.WriteString(fmt.Sprint(v))
		return
	}
	b.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// cutChars returns the first n characters of s (all of s when shorter).
func cutChars(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// IsClear reports whether v is the spec's "clear this optional field" value:
// null, or a string that is empty after trimming white space. Handlers check
// it before parsing an optional field on update.
func IsClear(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(v) == ""
	}
	return false
}

// Text returns a string value exactly as sent (not trimmed: a password's
// spaces are the user's). null gives "". Numbers, booleans, arrays and
// objects give IllegalValue: text fields must be JSON strings. So does a
// string holding a NUL character (JSON "\u0000"), which PostgreSQL text
// cannot store.
func Text(field string, v any) (string, error) {
	switch s := v.(type) {
	case nil:
		return "", nil
	case string:
		if strings.IndexByte(s, 0) < 0 {
			return s, nil
		}
	}
	return "", IllegalValue(field, v)
}

// Bool parses a spec boolean: true, 1, yes, false, 0 or no, case-insensitive,
// sent as a string (surrounding white space trimmed), a JSON boolean, or the
// JSON numbers 1 and 0. Anything else, including "", "y", 2 and null, gives
// IllegalValue.
func Bool(field string, v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "1", "yes":
			return true, nil
		case "false", "0", "no":
			return false, nil
		}
	case float64, json.Number, int, int64:
		f, ok := number(x)
		if ok && f == 1 {
			return true, nil
		}
		if ok && f == 0 {
			return false, nil
		}
	}
	return false, IllegalValue(field, v)
}

// QueryText returns a query parameter's value as sent, or IllegalValue when
// it holds a NUL character or is not valid UTF-8: PostgreSQL text can hold
// neither, and a filter holding one matches nothing anyway
// (docs/reliability.md, B6).
func QueryText(field, raw string) (string, error) {
	if strings.IndexByte(raw, 0) >= 0 || !utf8.ValidString(raw) {
		return "", IllegalValue(field, raw)
	}
	return raw, nil
}
