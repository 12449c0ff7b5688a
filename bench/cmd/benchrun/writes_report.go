package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"learngate/bench/charts"
)

// bcryptFacts are what the password arm is compared with.
type bcryptFacts struct {
	cost           int           // of a password learngate stored (0: unknown)
	one            time.Duration // one hash at that cost in the harness's process (the fastest measured)
	gomaxprocs     int           // learngate's
	gomaxprocsFrom string        // where gomaxprocs comes from
}

// floor is the least time 100 hashes can take on learngate's processors.
func (b bcryptFacts) floor() time.Duration {
	if b.one == 0 || b.gomaxprocs == 0 {
		return 0
	}
	return b.one * usersPerBatch / time.Duration(b.gomaxprocs)
}

// bcryptCost reads the cost of a bcrypt hash.
func bcryptCost(hash string) (int, error) {
	if hash == "" {
		return 0, fmt.Errorf("no password stored")
	}
	return bcrypt.Cost([]byte(hash))
}

// measureBcrypt is the fastest of 5 bcrypt hashes at cost made one after
// another in this process: the floor is a least time, and on a shared
// machine the fastest hash is the one least slowed by other work. The run
// measures it again after every round and keeps the fastest.
func measureBcrypt(cost int) time.Duration {
	var best time.Duration
	for i := range 5 {
		began := time.Now()
		_, _ = bcrypt.GenerateFromPassword([]byte(fmt.Sprintf("Bench-pass-floor-%d", i)), cost)
		if d := time.Since(began); best == 0 || d < best {
			best = d
		}
	}
	return best
}

// learngateGOMAXPROCS reads go_sched_gomaxprocs_threads from learngate's
// ops /metrics; when it cannot, it gives this process's GOMAXPROCS (the
// same machine and environment) and says so.
func learngateGOMAXPROCS(client *http.Client, opsBase string) (int, string) {
	req, err := http.NewRequest(http.MethodGet, opsBase+"/metrics", nil)
	if err == nil {
		req.Header.Set("Authorization", "Bearer "+benchOpsToken)
		if resp, err := client.Do(req); err == nil {
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 64*1024), 1024*1024)
			for sc.Scan() {
				if v, ok := strings.CutPrefix(sc.Text(), "go_sched_gomaxprocs_threads "); ok {
					if n, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && n >= 1 {
						return int(n), "learngate's go_sched_gomaxprocs_threads"
					}
				}
			}
		}
	}
	return runtime.GOMAXPROCS(0), "the harness's, learngate's metric missing"
}

// benchOpsToken is the ops token of learngateEnv.
const benchOpsToken = "bench-ops-token-0123456789"

// arm finds the arm of key and side.
func arm(arms []*writeArm, key, side string) *writeArm {
	for _, a := range arms {
		if a.key == key && a.side == side {
			return a
		}
	}
	return nil
}

// measured says whether a was measured without errors.
func measured(a *writeArm) bool {
	return a != nil && a.mismatch == "" && a.merged.Requests > 0 && a.merged.Errors == 0
}

// ratio is a's p50 over b's, "n/a" when either is missing.
func ratio(a, b *writeArm) (float64, string) {
	if !measured(a) || !measured(b) || b.merged.P50 == 0 {
		return 0, "n/a"
	}
	r := float64(a.merged.P50) / float64(b.merged.P50)
	return r, fmt.Sprintf("%.2f×", r)
}

// verdictOf is pass/FAIL of a ratio against at most limit; "" without a target.
func verdictOf(r float64, text string, limit float64) string {
	switch {
	case limit == 0:
		return "reported"
	case text == "n/a":
		return "FAIL (not measured)"
	case r <= limit:
		return "pass"
	}
	return "FAIL"
}

// writesSection is the markdown of the write scenarios.
func writesSection(arms []*writeArm, b bcryptFacts) string {
	var s strings.Builder
	s.WriteString("### Batch writes\n\n")
	s.WriteString("Interleaved rounds of every row below, learngate on bench-s01 (and the baseline where it has the route); ")
	s.WriteString("ratios of p50 latencies.\n\n")
	s.WriteString("| scenario | side | concurrency | req/s | p50 | p99 | compared with | ratio | target | result |\n")
	s.WriteString("|---|---|---:|---:|---:|---:|---|---:|---|---|\n")
	row := func(a *writeArm, with, ratioText, target, result string) {
		if a == nil {
			return
		}
		if a.mismatch != "" {
			fmt.Fprintf(&s, "| %s | %s | %d | | | | | | %s | FAIL: wrong answer, not measured (%.160s) |\n",
				a.label, a.side, a.concurrency, target, strings.ReplaceAll(a.mismatch, "\n", " "))
			return
		}
		if a.merged.Errors > 0 {
			result = fmt.Sprintf("FAIL (%d errors: %.120s)", a.merged.Errors, a.merged.FirstError)
		}
		fmt.Fprintf(&s, "| %s | %s | %d | %.1f | %s | %s | %s | %s | %s | %s |\n", a.label, a.side, a.concurrency,
			a.merged.RPS(), ms(a.merged.P50), ms(a.merged.P99), with, ratioText, target, result)
	}
	plain, blPlain := arm(arms, "plain", "learngate"), arm(arms, "plain", "baseline")
	r, t := ratio(plain, blPlain)
	row(plain, "baseline", t, "≤ 1.50×", verdictOf(r, t, 1.5))
	row(blPlain, "", "", "", "")
	r, t = ratio(arm(arms, "codes", "learngate"), plain)
	row(arm(arms, "codes", "learngate"), "100 new users", t, "≤ 1.50×", verdictOf(r, t, 1.5))
	r, t = ratio(arm(arms, "twice", "learngate"), plain)
	row(arm(arms, "twice", "learngate"), "100 new users", t, "", verdictOf(r, t, 0))
	plain1 := arm(arms, "plain1", "learngate")
	row(plain1, "", "", "", "")
	r, t = ratio(arm(arms, "passwords", "learngate"), plain1)
	row(arm(arms, "passwords", "learngate"), "100 new users, concurrency 1", t, "", verdictOf(r, t, 0))
	kn, blKn := arm(arms, "knowledge", "learngate"), arm(arms, "knowledge", "baseline")
	r, t = ratio(kn, blKn)
	row(kn, "baseline", t, "≤ 1.50×", verdictOf(r, t, 1.5))
	row(blKn, "", "", "", "")

	s.WriteString("\n")
	if measured(kn) {
		p50 := float64(kn.merged.P50) / float64(time.Millisecond)
		fmt.Fprintf(&s, "External knowledge, learngate p50 %.2f ms against the target %.2f ms (1.2 × 34.40 ms, the last full run before these scenarios): %s.\n\n",
			p50, knowledgeTargetMillis, map[bool]string{true: "pass", false: "FAIL"}[p50 <= knowledgeTargetMillis])
	}
	if b.cost > 0 {
		fmt.Fprintf(&s, "Passwords: bcrypt cost %d (read from a hash learngate stored), one hash %s in the harness's process (fastest of 5 after each round), ",
			b.cost, ms(b.one))
		fmt.Fprintf(&s, "learngate GOMAXPROCS %d (%s): floor of 100 hashes = 100 × %s / %d = %s per batch",
			b.gomaxprocs, b.gomaxprocsFrom, ms(b.one), b.gomaxprocs, ms(b.floor()))
		if pw := arm(arms, "passwords", "learngate"); measured(pw) && measured(plain1) {
			fmt.Fprintf(&s, "; the password batch took %s more than the plain one at concurrency 1",
				ms(pw.merged.P50-plain1.merged.P50))
		}
		s.WriteString(".\n")
	} else {
		s.WriteString("Passwords: the bcrypt cost could not be read from a stored hash; no floor computed.\n")
	}
	return s.String()
}

// chartDir is where the run writes its charts: docs/images for a full run
// (the figures docs/performance.md shows), .data/bench-charts for a quick
// one, whose noisy figures must not replace them.
func chartDir(o options) string {
	if o.quick {
		return filepath.Join(".data", "bench-charts")
	}
	return filepath.Join("docs", "images")
}

// writesChart draws bench-writes.svg: p50 of every write row, learngate
// and the baseline side by side where both were measured, and next to the
// password batch the bcrypt floor.
func writesChart(rep *report, arms []*writeArm, b bcryptFacts) error {
	var labels []string
	var lg, bl, floor []float64
	for _, a := range arms {
		if a.side != "learngate" {
			continue
		}
		labels = append(labels, a.short)
		lg = append(lg, millis(a))
		bl = append(bl, millis(arm(arms, a.key, "baseline")))
		f := 0.0
		if a.key == "passwords" {
			f = float64(b.floor()) / float64(time.Millisecond)
		}
		floor = append(floor, f)
	}
	dir := chartDir(rep.o)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, "bench-writes.svg")
	err := charts.Bars(path, "Batch writes of 100 rows, p50 (baseline: plain users and knowledge only)", "p50 (ms)",
		labels, []charts.Series{{Name: "learngate", Y: lg}, {Name: "baseline", Y: bl},
			{Name: "bcrypt floor: 100 hashes / GOMAXPROCS", Y: floor}})
	if err != nil {
		return err
	}
	progress("writes: chart %s", path)
	return nil
}

// millis is a's p50 in milliseconds, 0 when it was not measured.
func millis(a *writeArm) float64 {
	if !measured(a) {
		return 0
	}
	return float64(a.merged.P50) / float64(time.Millisecond)
}
