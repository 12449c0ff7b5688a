package store

import "strings"

// normalUserName is how user names are stored and compared: trimmed,
// lower case.
func normalUserName(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// deref is *s, or "" when s is nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
