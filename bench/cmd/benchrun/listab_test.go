package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestABChecksRatiosAndLargestSlowdown: topic_id's page 1 and last page
// (not its middle page) over the unfiltered topic enrolments page 1, each
// x- page over the unfiltered users page 1, on both sides, and the
// largest after/before over pages and walks, one tenant at a time.
func TestABChecksRatiosAndLargestSlowdown(t *testing.T) {
	at := func(millis float64) timing {
		return timing{n: 10, p50: time.Duration(millis * float64(time.Millisecond))}
	}
	row := func(tenant, list, filter string, page, pages int, before, after float64) abRow {
		return abRow{tenant: tenant, listQuery: listQuery{list: list, filter: filter}, page: page, pages: pages,
			before: at(before), after: at(after)}
	}
	rows := []abRow{
		row("mid", "users", "none", 1, 500, 10, 10),
		row("mid", "users", "none", 500, 500, 10, 10.5),
		row("mid", "users", "x- text", 1, 40, 30, 18),
		row("mid", "users", "x- text", 40, 40, 32, 22),
		row("mid", "topic enrolments", "none", 1, 2500, 8, 8),
		row("mid", "topic enrolments", "topic_id", 1, 25, 25, 12),
		row("mid", "topic enrolments", "topic_id", 13, 25, 30, 31.5),
		row("mid", "topic enrolments", "topic_id", 25, 25, 37.7, 11),
		row("huge", "users", "none", 1, 10000, 10, 50), // another tenant: not in mid's checks
	}
	walks := []abWalk{{tenant: "mid",
		before: walk{name: "every topic enrolment", cursor: []time.Duration{10 * time.Millisecond}},
		after:  walk{name: "every topic enrolment", cursor: []time.Duration{12 * time.Millisecond}}}}
	got := abChecks("mid", rows, walks)
	want := []struct {
		name          string
		after, before float64
		pass          bool
	}{
		{"users x- text page 1 of 40 / unfiltered users page 1", 1.8, 3.0, true},
		{"users x- text page 40 of 40 / unfiltered users page 1", 2.2, 3.2, false},
		{"topic enrolments topic_id page 1 of 25 / unfiltered topic enrolments page 1", 1.5, 3.125, true},
		{"topic enrolments topic_id page 25 of 25 / unfiltered topic enrolments page 1", 1.375, 4.7125, true},
		{"largest after/before: walk every topic enrolment (cursor p50)", 1.2, 0, false},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d checks %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.name != w.name || !near(g.after, w.after) || !near(g.before, w.before) || g.pass() != w.pass {
			t.Errorf("check %d = %q after %.4f before %.4f pass %v; want %q %.4f %.4f %v", i, g.name, g.after, g.before,
				g.pass(), w.name, w.after, w.before, w.pass)
		}
	}

	// Without walks the largest is a page; an unmeasured base leaves the ratio 0, a FAIL.
	got = abChecks("mid", rows[2:], nil)
	if last := got[len(got)-1]; !strings.HasPrefix(last.name, "largest after/before: topic enrolments topic_id page 13") ||
		!near(last.after, 1.05) || !last.pass() {
		t.Errorf("largest = %+v, want topic_id page 13 at 1.05×, pass", last)
	}
	if got[0].after != 0 || got[0].pass() {
		t.Errorf("x- check without the unfiltered users page = %+v, want unmeasured and failing", got[0])
	}
}

// TestMeasuredPagesFirstMiddleLast: the pages the page table and the list
// A/B part measure, for lists of every length.
func TestMeasuredPagesFirstMiddleLast(t *testing.T) {
	for _, c := range []struct {
		total int
		want  []int
	}{{0, []int{1}}, {1, []int{1}}, {2, []int{1, 2}}, {3, []int{1, 2, 3}}, {25, []int{1, 13, 25}}} {
		if got := measuredPages(c.total); !slices.Equal(got, c.want) {
			t.Errorf("measuredPages(%d) = %v, want %v", c.total, got, c.want)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
