// Package shelldoc runs the shell blocks of learngate's Markdown documents as
// a reader pastes them, in one bash, and checks what each command prints
// against the output the document shows (make docs-test): the README's
// quick start and the tour of docs/operations.md cannot drift from what the
// server answers.
//
// A block takes part when its info string is "sh" followed by a tag
// (```sh tour). In it, a comment "# => text" shows a command's output: at
// the end of the command's line, or on lines of its own right after it
// (several lines: several lines of output). In the shown output "..."
// stands for any text. A command without "# =>" must only succeed.
package shelldoc

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// Command is one shell command of a document and the output it shows.
type Command struct {
	// File and Line say where the command starts.
	File string
	Line int
	// Text is the command as written, over one or more lines.
	Text string
	// Want holds the lines of output the document shows; nil when it
	// shows none.
	Want []string
}

// Where is "file:line" of the command.
func (c Command) Where() string { return fmt.Sprintf("%s:%d", c.File, c.Line) }

// expectMark starts a comment that shows output.
const expectMark = "# =>"

// Extract returns the commands of md's fenced blocks whose info string is
// "sh " followed by tag, in order. file names md in the commands.
func Extract(file string, md []byte, tag string) ([]Command, error) {
	var cmds []Command
	var cur *Command // the command being read (continued lines)
	var open bool    // inside a block of the tag
	var other bool   // inside another fenced block
	var last = -1    // index in cmds of the command output lines attach to
	sc := bufio.NewScanner(bytes.NewReader(md))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fence := strings.HasPrefix(strings.TrimLeft(line, " "), "```")
		switch {
		case !open && !other && fence:
			info := strings.Fields(strings.TrimPrefix(strings.TrimLeft(line, " "), "```"))
			if len(info) >= 2 && info[0] == "sh" && info[1] == tag {
				open, last = true, -1
			} else {
				other = true
			}
			continue
		case other:
			other = !fence
			continue
		case !open:
			continue
		case fence && cur == nil:
			open = false
			continue
		case fence:
			return nil, fmt.Errorf("%s:%d: the block ends inside the command of line %d", file, n, cur.Line)
		}

		if cur == nil {
			trimmed := strings.TrimSpace(line)
			if want, ok := strings.CutPrefix(trimmed, expectMark); ok {
				if last < 0 {
					return nil, fmt.Errorf("%s:%d: %q shows output, but no command comes before it", file, n, expectMark)
				}
				cmds[last].Want = append(cmds[last].Want, strings.TrimPrefix(want, " "))
				continue
			}
			if trimmed == "" || strings.HasPrefix(trimmed, "#") {
				last = -1 // a note or a gap: what follows is not this command's output
				continue
			}
			cur = &Command{File: file, Line: n}
			cur.Text = line
		} else {
			cur.Text += "\n" + line
		}
		comment, continues := scanLine(cur.Text)
		if continues {
			continue
		}
		if want, ok := strings.CutPrefix(comment, expectMark); ok {
			cur.Want = []string{strings.TrimPrefix(want, " ")}
		}
		cmds = append(cmds, *cur)
		cur, last = nil, len(cmds)-1
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if open {
		return nil, fmt.Errorf("%s: a ```sh %s block is not closed", file, tag)
	}
	return cmds, nil
}

// scanLine reads text as bash would its quoting, roughly: it returns the
// comment that ends its last line, if any, and whether the command goes on
// to the next line (a quote still open, or a final backslash).
func scanLine(text string) (comment string, continues bool) {
	var single, double bool
	lineStart := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\n':
			lineStart = i + 1
			if !single && !double {
				comment = ""
			}
		case single:
			single = c != '\''
		case c == '\\':
			if i+1 == len(text) {
				return "", true
			}
			i++
		case double:
			double = c != '"'
		case c == '\'':
			single = true
		case c == '"':
			double = true
		case c == '#' && (i == lineStart || text[i-1] == ' ' || text[i-1] == '\t'):
			comment = strings.TrimSpace(text[i : strings.IndexByte(text[i:]+"\n", '\n')+i])
			// The rest of the line is the comment's.
			for i+1 < len(text) && text[i+1] != '\n' {
				i++
			}
		}
	}
	return comment, single || double
}

// Match reports whether got is the output want shows: equal, where each
// "..." of want stands for any text (newlines included).
func Match(want, got string) bool {
	parts := strings.Split(want, "...")
	if len(parts) == 1 {
		return want == got
	}
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	rest := got[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return strings.HasSuffix(rest, parts[len(parts)-1])
}
