package main

import (
	"context"
	"database/sql"
	"fmt"

	"learngate/bench/datagen"
	"learngate/bench/load"
)

// sideBySideAndSizes serves the dataset with learngate and two baselines
// (the big tenant for reads, the write tenant for batch writes), measures
// the scenarios and the tenant-size curve, and stops them.
func sideBySideAndSizes(ctx context.Context, o options, rep *report, tenants []datagen.Tenant, dbURL, lgBin, blBin string) error {
	big, _ := datagen.Find(tenants, datagen.BigSlug)
	write, _ := datagen.Find(tenants, datagen.WriteSlug)
	if err := cleanWrites(ctx, dbURL, write.Schema); err != nil {
		return err
	}
	addrs := make([]string, 4)
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
	for _, w := range []struct {
		p    *process
		addr string
		path string
	}{{lg, addrs[0], "/healthz"}, {blRead, addrs[2], "/papi/ping"}, {blWrite, addrs[3], "/papi/ping"}} {
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
		progress("scenario: %s", sc.name)
		identical, err := checkIdentical(client, sc)
		if err != nil {
			return fmt.Errorf("identity check: %w", err)
		}
		m := measure(ctx, client, sc, o, func(s string) { progress("%s", s) })
		m.identical = identical
		rep.sideBySide = append(rep.sideBySide, m)
	}

	for _, slug := range []string{datagen.SmallSlug, datagen.BigSlug, datagen.HugeSlug} {
		t, ok := datagen.Find(tenants, slug)
		if !ok {
			continue
		}
		for _, page := range []int{1, 500} {
			progress("tenant-size curve: %s (%d users) page %d", slug, t.Users, page)
			res, totalOK, err := usersPage(ctx, client, o, on(addrs[0], t, true), t.Users, page)
			if err != nil {
				return err
			}
			rep.curves = append(rep.curves, curvePoint{curve: "tenant size", point: slug, users: t.Users,
				page: fmt.Sprint(page), res: res, totalOK: totalOK})
		}
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
	_, err = db.ExecContext(ctx, `DELETE FROM `+schema+`.external_knowledges WHERE title LIKE 'Bench course %';
		DELETE FROM `+schema+`.users WHERE user_name LIKE 'lg%-%' OR user_name LIKE 'bl%-%'`)
	if err != nil {
		return fmt.Errorf("clean earlier writes: %w", err)
	}
	return nil
}

// schemaCurve builds a database of its own with one measured tenant and
// adds filler tenants step by step (o.schemaSteps schemas in all), serving
// it with learngate and measuring, at each step, page 1 and page 500 of the
// measured tenant and page 1 round-robin over every tenant. The database
// is rebuilt on every run (the curve grows it) and dropped at the end.
func schemaCurve(ctx context.Context, o options, rep *report, lgBin string) error {
	dbName := "learngate_bench_schemas"
	if o.quick {
		dbName += "_quick"
	}
	dbURL, err := databaseURL(o.adminURL, dbName)
	if err != nil {
		return err
	}
	if err := createDatabase(ctx, o.adminURL, dbName, true); err != nil {
		return err
	}
	defer func() {
		if err := dropDatabase(o.adminURL, dbName); err != nil {
			progress("drop %s: %v", dbName, err)
		}
	}()
	db, reg, err := openRegistry(ctx, dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	progress("schema curve: database %s, measured tenant with %d users", dbName, o.schemaMain)
	main, err := datagen.Create(ctx, db, reg, datagen.TenantSpec{Slug: "scale-main", Users: o.schemaMain,
		TopicEnrolments: o.schemaMain, Knowledge: o.schemaMain / 10})
	if err != nil {
		return err
	}
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
	on := func(t datagen.Tenant) target {
		return target{base: "http://" + addr, host: t.Slug + "." + baseDomain, key: t.Key}
	}
	all := []target{on(main)}
	client := load.NewClient(1)
	for _, step := range o.schemaSteps {
		for len(all) < step {
			t, err := datagen.Create(ctx, db, reg, datagen.TenantSpec{Slug: fmt.Sprintf("scale-%04d", len(all)+1),
				Users: o.schemaFillers, TopicEnrolments: o.schemaFillers, Knowledge: o.schemaFillers / 10})
			if err != nil {
				return err
			}
			all = append(all, on(t))
			if len(all)%100 == 0 {
				progress("schema curve: %d tenants", len(all))
			}
		}
		point := fmt.Sprintf("%d schemas", step)
		for _, page := range []int{1, 500} {
			progress("schema curve: %s, page %d", point, page)
			res, totalOK, err := usersPage(ctx, client, o, on(main), o.schemaMain, page)
			if err != nil {
				return err
			}
			rep.curves = append(rep.curves, curvePoint{curve: "schemas", point: point, users: o.schemaMain,
				page: fmt.Sprint(page), res: res, totalOK: totalOK})
		}
		progress("schema curve: %s, page 1 round-robin over all tenants", point)
		rep.curves = append(rep.curves, curvePoint{curve: "schemas", point: point, users: o.schemaFillers,
			page: "1, all tenants in turn", res: roundRobin(ctx, client, o, all), totalOK: true})
	}
	return nil
}

// dropDatabase drops database name.
func dropDatabase(adminURL, name string) error {
	admin, err := sql.Open("postgres", adminURL)
	if err != nil {
		return err
	}
	defer admin.Close()
	_, err = admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
	return err
}
