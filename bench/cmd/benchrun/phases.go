package main

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"learngate/bench/datagen"
	"learngate/bench/load"
)

// sideBySideAndSizes serves the dataset with learngate and three baselines
// (the big tenant for reads, the write tenant for batch writes, the huge
// tenant for the page-number table), measures the scenarios, the
// tenant-size curve, the page-number table, the cursor walks and the
// concurrency curve (each unless skipped or left out by -only), and stops them.
func sideBySideAndSizes(ctx context.Context, o options, rep *report, tenants []datagen.Tenant, dbURL, lgBin, blBin string) error {
	big, _ := datagen.Find(tenants, datagen.BigSlug)
	write, _ := datagen.Find(tenants, datagen.WriteSlug)
	huge, _ := datagen.Find(tenants, datagen.HugeSlug)
	if err := cleanWrites(ctx, dbURL, write.Schema); err != nil {
		return err
	}
	addrs := make([]string, 5)
	for i := range addrs {
		var err error
		if addrs[i], err = freeAddr(); err != nil {
			return err
		}
	}
	progress("serve: learngate on %s, baselines on %s (%s) and %s (%s)", addrs[0], addrs[2], big.Slug, addrs[3], write.Slug)
	lg, err := start("learngate", lgBin, learngateEnv(dbURL, o.redisURL, addrs[0], addrs[1]), "serve")
	if err != nil {
		return err
	}
	defer lg.stop()
	blRead, err := start("baseline", blBin, nil, "-addr", addrs[2], "-db", dbURL, "-schema", big.Schema, "-slug", big.Slug)
	if err != nil {
		return err
	}
	defer blRead.stop()
	blWrite, err := start("baseline", blBin, nil, "-addr", addrs[3], "-db", dbURL, "-schema", write.Schema, "-slug", write.Slug)
	if err != nil {
		return err
	}
	defer blWrite.stop()
	blHuge, err := start("baseline", blBin, nil, "-addr", addrs[4], "-db", dbURL, "-schema", huge.Schema, "-slug", huge.Slug)
	if err != nil {
		return err
	}
	defer blHuge.stop()
	for _, w := range []struct {
		p    *process
		addr string
		path string
	}{{lg, addrs[0], "/healthz"}, {blRead, addrs[2], "/papi/ping"}, {blWrite, addrs[3], "/papi/ping"},
		{blHuge, addrs[4], "/papi/ping"}} {
		if err := w.p.waitReady("http://"+w.addr+w.path, "localhost"); err != nil {
			return err
		}
	}

	on := func(addr string, t datagen.Tenant, key bool) target {
		tg := target{base: "http://" + addr, host: t.Slug + "." + baseDomain}
		if key {
			tg.key = t.Key
		}
		return tg
	}
	client := load.NewClient(o.concurrency)
	for _, sc := range scenarios(on(addrs[0], big, true), on(addrs[2], big, false), on(addrs[0], write, true),
		on(addrs[3], write, false), write.Users, runID()) {
		if o.skipSideBySide || !o.runs("sides") {
			break
		}
		progress("scenario: %s", sc.name)
		if _, err := checkIdentical(client, sc); err != nil {
			// Not measured: a comparison of different work means nothing.
			progress("identity check failed: %v", err)
			rep.sideBySide = append(rep.sideBySide, sideBySide{scenario: sc, mismatch: err.Error()})
			continue
		}
		m := measure(ctx, client, sc, o, func(s string) { progress("%s", s) })
		rep.sideBySide = append(rep.sideBySide, m)
	}

	for _, slug := range []string{datagen.TinySlug, datagen.SmallSlug, datagen.MidSlug, datagen.BigSlug, datagen.HugeSlug} {
		t, ok := datagen.Find(tenants, slug)
		if !ok || !o.runs("sides") {
			continue
		}
		// Page 1, page 500 (docs/performance.md) and the last page: "any page".
		pages := []int{1, 500, (t.Users + 99) / 100}
		slices.Sort(pages)
		for _, page := range slices.Compact(pages) {
			progress("tenant-size curve: %s (%d users) page %d", slug, t.Users, page)
			res, totalOK, err := usersPage(ctx, client, o, on(addrs[0], t, true), t.Users, page)
			if err != nil {
				return err
			}
			rep.curves = append(rep.curves, curvePoint{curve: "tenant size", point: slug, users: t.Users,
				page: fmt.Sprint(page), res: res, totalOK: totalOK})
		}
	}
	tiny, okTiny := datagen.Find(tenants, datagen.TinySlug)
	mid, okMid := datagen.Find(tenants, datagen.MidSlug)
	if okTiny && okMid && o.runs("sides") {
		progress("small tenant: %s against %s, page 1, alternating", tiny.Slug, mid.Slug)
		rep.sections = append(rep.sections, smallTenant(ctx, client, on(addrs[0], tiny, true), on(addrs[0], mid, true),
			tiny.Users, mid.Users, 2*o.curveDuration))
	}
	rep.pagesTenant, rep.concTenant = huge.Slug, big.Slug
	if !o.skipPages && o.runs("pages") {
		rep.pages = pageTable(ctx, o, on(addrs[0], huge, true), on(addrs[4], huge, false), huge.TenantSpec)
	}
	if !o.skipWalks && o.runs("walks") {
		rep.walks = cursorWalks(ctx, on(addrs[0], huge, true), huge.TenantSpec)
	}
	if !o.skipConcurrency && o.runs("concurrency") {
		rep.conc = concurrencyCurve(ctx, o, on(addrs[0], big, true), on(addrs[2], big, false),
			lg.cmd.Process.Pid, blRead.cmd.Process.Pid)
	}
	return nil
}

// cleanWrites removes what earlier runs' batch writes added to the write
// tenant (their users are named lg-..., bl-..., lgc-..., blc-...; their
// records titled "Bench course ..."), so every run writes to the same tenant.
func cleanWrites(ctx context.Context, dbURL, schema string) error {
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	// Deleting a user cascades to its enrolments by user_id, and the
	// enrolments' user_id indexes are partial (current ones only), so
	// without a full index each deleted user scans both tables: a previous
	// full run's thousands of users took over 12 minutes. The indexes live
	// only inside this transaction, so the writes measured later pay for
	// none.
	_, err = db.ExecContext(ctx, `BEGIN;
		SET LOCAL search_path TO `+schema+`;
		CREATE INDEX bench_clean_topic_user ON topic_enrolments (user_id);
		CREATE INDEX bench_clean_pathway_user ON pathway_enrolments (user_id);
		DELETE FROM external_knowledges WHERE title LIKE 'Bench course %';
		DELETE FROM users WHERE user_name LIKE 'lg%-%' OR user_name LIKE 'bl%-%';
		DROP INDEX bench_clean_topic_user;
		DROP INDEX bench_clean_pathway_user;
		COMMIT`)
	if err != nil {
		return fmt.Errorf("clean earlier writes: %w", err)
	}
	return nil
}

// schemaSpec is the dataset of one point of the schema curve: the measured
// tenant and n-1 small ones.
func schemaSpec(o options, n int) datagen.Spec {
	spec := datagen.Spec{Tenants: []datagen.TenantSpec{{Slug: "scale-main", Users: o.schemaMain,
		TopicEnrolments: o.schemaMain, Knowledge: o.schemaMain / 10}}}
	for i := 2; i <= n; i++ {
		spec.Tenants = append(spec.Tenants, datagen.TenantSpec{Slug: fmt.Sprintf("scale-%04d", i),
			Users: o.schemaFillers, TopicEnrolments: o.schemaFillers, Knowledge: o.schemaFillers / 10})
	}
	return spec
}

// schemaCurve measures, for each number of schemas of o.schemaSteps, page
// 1 and page 500 of the measured tenant and page 1 round-robin over every
// tenant, each point served by a fresh learngate over a database of its
// own (learngate_bench_schemas_N, reused by later runs like the main
// dataset: onboarding a tenant through the registry, migrations included,
// takes most of a second here, so the 1,000-schema database is the
// slowest part of a first run).
func schemaCurve(ctx context.Context, o options, rep *report, lgBin string) error {
	for _, step := range o.schemaSteps {
		dbName := fmt.Sprintf("learngate_bench_schemas_%d", step)
		if o.quick {
			dbName = fmt.Sprintf("learngate_bench_quick_schemas_%d", step)
		}
		dbURL, err := databaseURL(o.adminURL, dbName)
		if err != nil {
			return err
		}
		spec := schemaSpec(o, step)
		progress("schema curve: database %s, %d tenants", dbName, step)
		tenants, err := ensureDataset(ctx, o.adminURL, dbName, dbURL, spec)
		if err != nil {
			return err
		}
		if err := schemaPoint(ctx, o, rep, lgBin, dbURL, tenants); err != nil {
			return err
		}
	}
	return nil
}

// schemaPoint serves one schema-curve database and measures it.
func schemaPoint(ctx context.Context, o options, rep *report, lgBin, dbURL string, tenants []datagen.Tenant) error {
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	opsAddr, err := freeAddr()
	if err != nil {
		return err
	}
	lg, err := start("learngate", lgBin, learngateEnv(dbURL, o.redisURL, addr, opsAddr), "serve")
	if err != nil {
		return err
	}
	defer lg.stop()
	if err := lg.waitReady("http://"+addr+"/healthz", "localhost"); err != nil {
		return err
	}
	all := make([]target, len(tenants))
	for i, t := range tenants {
		all[i] = target{base: "http://" + addr, host: t.Slug + "." + baseDomain, key: t.Key}
	}
	client := load.NewClient(1)
	point := fmt.Sprintf("%d schemas", len(tenants))
	for _, page := range []int{1, 500} {
		progress("schema curve: %s, page %d", point, page)
		res, totalOK, err := usersPage(ctx, client, o, all[0], tenants[0].Users, page)
		if err != nil {
			return err
		}
		rep.curves = append(rep.curves, curvePoint{curve: "schemas", point: point, users: tenants[0].Users,
			page: fmt.Sprint(page), res: res, totalOK: totalOK})
	}
	progress("schema curve: %s, page 1 round-robin over all tenants", point)
	rep.curves = append(rep.curves, curvePoint{curve: "schemas", point: point, users: o.schemaFillers,
		page: "1, all tenants in turn", res: roundRobin(ctx, client, o, all), totalOK: true})
	return nil
}
