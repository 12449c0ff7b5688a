package store

import (
	"regexp"
	"strings"
)

// dollarTag matches the opening of a dollar-quoted string: $$ or $tag$.
var dollarTag = regexp.MustCompile(`^\$[A-Za-z_][A-Za-z_0-9]*\$|^\$\$`)

// splitStatements splits a script of SQL statements (such as pg_dump
// writes) at each semicolon outside quotes, dollar quotes and comments,
// and returns the statements, trimmed, empty ones left out. Citus refuses
// several DDL statements in one query string (it passes the string on to
// its workers as one prepared statement), so a script runs statement by
// statement. Strings use standard_conforming_strings (no backslash
// escapes), as pg_dump's do.
func splitStatements(script string) []string {
	var out []string
	start := 0
	emit := func(end int) {
		if s := strings.TrimSpace(script[start:end]); s != "" {
			out = append(out, s)
		}
		start = end + 1
	}
	for i := 0; i < len(script); i++ {
		switch c := script[i]; {
		case c == '\'' || c == '"':
			for i++; i < len(script); i++ {
				if script[i] == c {
					if i+1 < len(script) && script[i+1] == c {
						i++ // a doubled quote inside the string
						continue
					}
					break
				}
			}
		case c == '$':
			tag := dollarTag.FindString(script[i:])
			if tag == "" {
				continue
			}
			end := strings.Index(script[i+len(tag):], tag)
			if end < 0 {
				i = len(script)
				continue
			}
			i += len(tag) + end + len(tag) - 1
		case c == '-' && strings.HasPrefix(script[i:], "--"):
			if nl := strings.IndexByte(script[i:], '\n'); nl >= 0 {
				i += nl
			} else {
				i = len(script)
			}
		case c == '/' && strings.HasPrefix(script[i:], "/*"):
			if end := strings.Index(script[i+2:], "*/"); end >= 0 {
				i += end + 3
			} else {
				i = len(script)
			}
		case c == ';':
			emit(i)
		}
	}
	if start < len(script) {
		emit(len(script))
	}
	return out
}
