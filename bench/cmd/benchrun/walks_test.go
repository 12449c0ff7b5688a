package main

import (
	"os"
	"testing"
)

// TestNextLinkFollowsRelNext reads the rel="next" link of a Link header as
// docs/api.md shows it, as a path on the loopback server, and ends the walk
// at a header without one.
func TestNextLinkFollowsRelNext(t *testing.T) {
	h := `<https://acme.learngate.example/papi/topic_assignments?cursor=AQIB&per_page=100&updated_after=2025-06-01T00%3A00%3A00>; rel="next", ` +
		`<https://acme.learngate.example/papi/topic_assignments?per_page=100&updated_after=2025-06-01T00%3A00%3A00>; rel="first"`
	got, err := nextLink([]string{h})
	want := "/papi/topic_assignments?cursor=AQIB&per_page=100&updated_after=2025-06-01T00%3A00%3A00"
	if err != nil || got != want {
		t.Fatalf("next = %q, %v; want %q", got, err, want)
	}
	last := `<https://acme.learngate.example/papi/topic_assignments?per_page=100>; rel="first"`
	if got, err := nextLink([]string{last}); err != nil || got != "" {
		t.Fatalf("next of the last page = %q, %v; want none", got, err)
	}
}

// TestProcCPUReadsThisProcess reads this process's CPU time from /proc,
// which grows while it works.
func TestProcCPUReadsThisProcess(t *testing.T) {
	before, err := procCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for i := range 300_000_000 {
		x += i % 7
	}
	after, err := procCPU(os.Getpid())
	if err != nil || after <= before || x == 0 {
		t.Fatalf("cpu before %.2f s, after %.2f s, %v", before, after, err)
	}
}

// TestIDSetCountsEachIDOnce: a walk's duplicate check.
func TestIDSetCountsEachIDOnce(t *testing.T) {
	var s idSet
	for _, c := range []struct {
		id  int64
		new bool
	}{{1, true}, {64, true}, {3_000_000, true}, {64, false}, {1, false}, {65, true}} {
		if got := s.add(c.id); got != c.new {
			t.Errorf("add(%d) = %v, want %v", c.id, got, c.new)
		}
	}
}
