// Package handlertest holds the test helpers that the handlers packages'
// tests share (handlers, handlers/papi, handlers/web): the node every
// harness builds on (node.go), one HTTP call through a router
// (request.go), a test identity provider's key (idp_key.go), the jobs
// workers their tests run (workers.go), the screenshot check of the
// browser tests (screenshot.go) and small body builders. Tests import it;
// the service never does.
package handlertest

import "strings"

// Nested is depth opening brackets, then as many closing ones when closed.
func Nested(depth int, closed bool) string {
	s := strings.Repeat("[", depth)
	if closed {
		s += strings.Repeat("]", depth)
	}
	return s
}

// Truncate is s cut to n bytes, "..." marking a cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// Array is a JSON array of n ones.
func Array(n int) string {
	return "[" + strings.Repeat("1,", n-1) + "1]"
}
