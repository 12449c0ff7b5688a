package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"

	"learngate"
	"learngate/bench/datagen"
	"learngate/bench/load"
)

// The write scenarios (docs/performance.md, "Batch writes"): batches of
// users that cost learngate more than plain new users, measured next to
// the plain batch in the same interleaved rounds, and the external
// knowledge batch against the baseline.

// usersPerBatch is the size of every batch of the write scenarios.
const usersPerBatch = 100

// knowledgeTargetMillis is the external knowledge batch's p50 target: 1.2× the
// 34.40 ms of docs/performance.md's last full run before these scenarios.
const knowledgeTargetMillis = 1.2 * 34.40

// userWrite is one kind of users batch_save.
type userWrite struct {
	key   string // names the arm in the run: plain, codes, twice, plain1, passwords
	label string // row of the table
	short string // label of the chart
	// oneAtATime measures it at concurrency 1 (the password batch, whose
	// bcrypt work is compared with one request's floor).
	oneAtATime bool
	body       func(prefix string, batch int64, n int) []byte
	result     learngate.BatchResult // the exact answer expected
}

// userWrites are the users batches of the write scenarios.
func userWrites() []userWrite {
	plain := learngate.BatchResult{Created: usersPerBatch, ErrorList: []learngate.BatchError{}}
	codes := plain
	codes.Enrolled = usersPerBatch * load.CodesPerUser
	twice := plain
	twice.Created, twice.Updated = usersPerBatch-1, 1
	return []userWrite{
		{key: "plain", label: "100 new users", short: "plain", body: load.BatchUsers, result: plain},
		{key: "codes", label: fmt.Sprintf("100 new users, %d enrolment codes each", load.CodesPerUser),
			short: fmt.Sprintf("%d codes each", load.CodesPerUser), body: load.BatchUsersWithCodes, result: codes},
		{key: "twice", label: "100 rows, one user named twice", short: "one named twice",
			body: load.BatchUsersNamedTwice, result: twice},
		{key: "plain1", label: "100 new users", short: "plain (1 at a time)", oneAtATime: true,
			body: load.BatchUsers, result: plain},
		{key: "passwords", label: "100 new users with passwords", short: "passwords (1 at a time)", oneAtATime: true,
			body: load.BatchUsersWithPasswords, result: plain},
	}
}

// resultBody is the JSON of a batch result, as the service writes it.
func resultBody(r learngate.BatchResult) string {
	b, _ := json.Marshal(r) // plain struct: never fails
	return string(b)
}

// fresh makes the bodies of one arm: body with prefix and a counter, so
// every request creates new users.
func fresh(prefix string, body func(string, int64, int) []byte) func() []byte {
	var n atomic.Int64
	return func() []byte { return body(prefix, n.Add(1), usersPerBatch) }
}

// writeArm is one measured series of the write scenarios.
type writeArm struct {
	key, label, short, side string
	concurrency             int
	req                     load.Request
	want                    string // the exact answer of the check request
	rounds                  []load.Result
	merged                  load.Result
	mismatch                string // the check's failure; then not measured
}

// writeArms are the arms in the order of the interleaved rounds: each
// users batch on learngate (the plain one on the baseline too, right after
// learngate's), then external knowledge on learngate and the baseline.
func writeArms(o options, lg, bl target, writeUsers int, run string) []*writeArm {
	var arms []*writeArm
	for _, w := range userWrites() {
		conc := o.concurrency
		if w.oneAtATime {
			conc = 1
		}
		prefix := "lgw" + w.key + "-" + run // cleanWrites removes lg%-% users
		arms = append(arms, &writeArm{key: w.key, label: "POST /papi/users/batch_save, " + w.label, short: w.short,
			side: "learngate", concurrency: conc, want: resultBody(w.result),
			req: lg.post("/papi/users/batch_save", fresh(prefix, w.body))})
		if w.key == "plain" {
			arms = append(arms, &writeArm{key: "plain", label: arms[len(arms)-1].label, short: w.short,
				side: "baseline", concurrency: conc, want: resultBody(w.result),
				req: bl.post("/papi/users/batch_save", fresh("blw-"+run, w.body))})
		}
	}
	// Records are only ever created: one body maker serves both sides.
	knowledge := freshKnowledge(writeUsers)
	const knowledgeWant = `{"created":100,"updated":0,"unchanged":0}`
	for _, side := range []struct {
		name string
		t    target
	}{{"learngate", lg}, {"baseline", bl}} {
		arms = append(arms, &writeArm{key: "knowledge", label: "POST /papi/external_knowledges/batch_save, 100 records",
			short: "knowledge, 100 records", side: side.name, concurrency: o.concurrency, want: knowledgeWant,
			req: side.t.post("/papi/external_knowledges/batch_save", knowledge)})
	}
	return arms
}

// runWrites serves the write tenant with learngate and the baseline,
// checks each arm's answer, measures the arms in interleaved rounds, and
// adds the table and the chart (bench-writes.svg) to rep.
func runWrites(ctx context.Context, o options, rep *report, tenants []datagen.Tenant, dbURL, lgBin, blBin string) error {
	write, ok := datagen.Find(tenants, datagen.WriteSlug)
	if !ok {
		return fmt.Errorf("writes: no tenant %s in the dataset", datagen.WriteSlug)
	}
	if err := cleanWrites(ctx, dbURL, write.Schema); err != nil {
		return err
	}
	addr, opsAddr, blAddr, err := freeAddrs3()
	if err != nil {
		return err
	}
	progress("writes: learngate on %s, baseline on %s (%s)", addr, blAddr, write.Slug)
	lg, err := start("learngate", lgBin, learngateEnv(dbURL, o.redisURL, addr, opsAddr), "serve")
	if err != nil {
		return err
	}
	defer lg.stop()
	bl, err := start("baseline", blBin, nil, "-addr", blAddr, "-db", dbURL, "-schema", write.Schema, "-slug", write.Slug)
	if err != nil {
		return err
	}
	defer bl.stop()
	if err := lg.waitReady("http://"+addr+"/healthz", "localhost"); err != nil {
		return err
	}
	if err := bl.waitReady("http://"+blAddr+"/papi/ping", "localhost"); err != nil {
		return err
	}

	run := runID()
	host := write.Slug + "." + baseDomain
	arms := writeArms(o, target{base: "http://" + addr, host: host, key: write.Key},
		target{base: "http://" + blAddr, host: host}, write.Users, run)
	client := load.NewClient(o.concurrency)
	for _, a := range arms {
		if err := checkWrite(client, a); err != nil {
			a.mismatch = err.Error()
			progress("writes: check failed, %s not measured: %v", a.label, err)
		}
	}
	var b bcryptFacts
	b.gomaxprocs, b.gomaxprocsFrom = learngateGOMAXPROCS(client, "http://"+opsAddr)
	b.cost, err = storedPasswordCost(ctx, dbURL, write.Schema, "lgwpasswords-"+run+"-1-0")
	if err != nil {
		progress("writes: bcrypt cost of a stored password: %v", err)
	}
	if b.cost > 0 {
		b.one = measureBcrypt(b.cost)
	}

	for r := range o.rounds {
		for _, a := range arms {
			if a.mismatch != "" {
				continue
			}
			res := load.Run(ctx, client, load.Config{Concurrency: a.concurrency, Warmup: o.warmup, Duration: o.duration, Request: a.req})
			a.rounds = append(a.rounds, res)
			progress("  writes round %d %-28s %-9s c%d %7.1f req/s p50 %s p99 %s errors %d", r+1, a.short, a.side,
				a.concurrency, res.RPS(), ms(res.P50), ms(res.P99), res.Errors)
		}
		if b.cost > 0 {
			b.one = min(b.one, measureBcrypt(b.cost))
		}
	}
	for _, a := range arms {
		a.merged = load.Merge(a.rounds)
	}
	rep.sections = append(rep.sections, writesSection(arms, b))
	return writesChart(rep, arms, b)
}

// checkWrite sends the arm's first request and requires the exact answer
// expected (the run's first batch of each arm is this check).
func checkWrite(client *http.Client, a *writeArm) error {
	status, body, err := fetch(client, a.req)
	if err != nil {
		return err
	}
	if status != http.StatusOK || string(body) != a.want {
		return fmt.Errorf("%s %s: %d %.300s, want 200 %s", a.side, a.label, status, body, a.want)
	}
	return nil
}

// storedPasswordCost is the bcrypt cost of the password learngate stored
// for user (a user of the password arm's check batch): the cost it really
// uses, read back rather than assumed.
func storedPasswordCost(ctx context.Context, dbURL, schema, user string) (int, error) {
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var hash sql.NullString
	err = db.QueryRowContext(ctx, `SELECT password_hash FROM `+schema+`.users WHERE user_name = $1`, user).Scan(&hash)
	if err != nil {
		return 0, fmt.Errorf("password of %s: %w", user, err)
	}
	return bcryptCost(hash.String)
}

// freeAddrs3 returns three free loopback addresses.
func freeAddrs3() (a, b, c string, err error) {
	out := make([]string, 3)
	for i := range out {
		if out[i], err = freeAddr(); err != nil {
			return "", "", "", err
		}
	}
	return out[0], out[1], out[2], nil
}
