package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestProgressBar(t *testing.T) {
	t.Run("line", func(t *testing.T) {
		p := &progressBar{label: "importing x.csv", unit: "rows", total: 200}
		want := "importing x.csv [#######-----------------------]  25%  50/200 rows  25 rows/s"
		if got := p.line(50, 2*time.Second); got != want {
			t.Fatalf("line = %q, want %q", got, want)
		}
		empty := &progressBar{label: "migrating", unit: "schemas"}
		if got := empty.line(0, 0); got != "migrating [##############################] 100%  0/0 schemas" {
			t.Fatalf("empty line = %q", got)
		}
	})

	t.Run("nothing when not a terminal", func(t *testing.T) {
		var out strings.Builder
		p := newProgressBar(&out, "importing", "rows", 10)
		p.Update(5)
		p.Update(10)
		p.Finish()
		if out.Len() != 0 {
			t.Fatalf("wrote %q to a non-terminal", out.String())
		}
	})

	t.Run("redrawn in place at most every 100 ms", func(t *testing.T) {
		var out strings.Builder
		clock := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		p := &progressBar{w: &out, label: "l", unit: "rows", total: 300, tty: true, start: clock, now: func() time.Time { return clock }}
		clock = clock.Add(time.Second)
		p.Update(100)
		clock = clock.Add(50 * time.Millisecond)
		p.Update(200) // too soon: skipped
		p.Update(300) // the end is always drawn
		p.Finish()
		want := "\r" + p.line(100, time.Second) + "\x1b[K" + "\r" + p.line(300, 1050*time.Millisecond) + "\x1b[K\n"
		if out.String() != want {
			t.Fatalf("output = %q, want %q", out.String(), want)
		}
	})
}

func TestMigrateSummaryLine(t *testing.T) {
	cliEnv(t)
	mustRun(t, "migrate", "-q")
	mustRun(t, "tenant", "create", "acme")
	mustRun(t, "tenant", "create", "globex")
	out, stderr, err := runStreams(t, "migrate")
	if err != nil || out != "migrations applied\n" {
		t.Fatalf("migrate: %q, %v", out, err)
	}
	if !regexp.MustCompile(`^migrated the shared schema and 2 tenant schemas in [0-9.]+(ms|s)\n$`).MatchString(stderr) {
		t.Fatalf("stderr = %q, want one summary line", stderr)
	}
	if _, stderr, _ := runStreams(t, "migrate", "--quiet"); stderr != "" {
		t.Fatalf("quiet stderr = %q", stderr)
	}
}
