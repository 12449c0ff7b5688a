package handlers

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"learngate/handlers/handlertest"
)

// Error messages quote at most input.MaxQuoted characters of a client's
// value (docs/decisions.md, "Bodies and hostile input"); TestBadInputOverlong checks every body
// route with these.

// maxMessageLength is the longest error message a value may appear in: a
// sentence around a value cut to input.MaxQuoted characters.
const maxMessageLength = 300

// longestMessage returns the longest string of an error body: its messages.
// The user endpoints' 422 echoes the submitted fields by design (params,
// user_name, email): those are not messages and are skipped.
func longestMessage(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var body any
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("body is not JSON: %q", handlertest.Truncate(w.Body.String(), 300))
	}
	if obj, ok := body.(map[string]any); ok {
		if _, is422 := obj["reason"]; is422 {
			delete(obj, "params")
			delete(obj, "user_name")
			delete(obj, "email")
		}
	}
	longest := ""
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if len(v) > len(longest) {
				longest = v
			}
		case []any:
			for _, item := range v {
				walk(item)
			}
		case map[string]any:
			for _, item := range v {
				walk(item)
			}
		}
	}
	walk(body)
	return longest
}
