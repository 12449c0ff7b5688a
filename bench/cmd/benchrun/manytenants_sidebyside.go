package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// sideBySideDB is the reference database of the side-by-side creation:
// referenceTenants tenants, made when missing, kept between runs.
const (
	sideBySideDB     = "learngate_bench_tenants10"
	referenceTenants = 10
)

// sideBySidePrefix starts the slugs of the tenants the side-by-side
// creation makes and deletes again; the build's tenants are mt-NNNNN, the
// reference database's ab-base-N (as bench/creation-ab.sh names them, so
// both share that database).
const sideBySidePrefix = "sbs-"

// creationSideBySide measures tenant creation at the step against a
// database of referenceTenants tenants: pairs creations in each, made
// alternately, one at a time, by the real `learngate tenant create` (the
// registry's path: rows, schema script, records, activation), so that any
// other load on the machine weighs on both alike. The tenants are deleted
// again (`learngate tenant delete`), so the step's database keeps exactly
// the tenants the build made. It returns the p50 of each side.
func creationSideBySide(ctx context.Context, o options, lgBin, dbURL string, pairs int) (many, ten time.Duration, err error) {
	refURL, err := databaseURL(o.adminURL, sideBySideDB)
	if err != nil {
		return 0, 0, err
	}
	if err := referenceDatabase(ctx, o, lgBin, refURL); err != nil {
		return 0, 0, err
	}
	envOf := func(url string) []string { return learngateEnv(url, o.redisURL, "127.0.0.1:0", "127.0.0.1:0") }
	var made []string
	defer func() {
		for _, slug := range made {
			for _, url := range []string{dbURL, refURL} {
				// A slug is made in both; deleting a missing one fails harmlessly.
				_ = runCLI(context.WithoutCancel(ctx), lgBin, envOf(url), "tenant", "delete", slug, "--confirm", slug)
			}
		}
	}()
	stamp := time.Now().UTC().Format("150405")
	var inMany, inTen []time.Duration
	for i := range pairs {
		slug := fmt.Sprintf("%s%s-%d", sideBySidePrefix, stamp, i)
		made = append(made, slug)
		order := []string{dbURL, refURL}
		if i%2 == 1 {
			order = []string{refURL, dbURL}
		}
		for _, url := range order {
			began := time.Now()
			if err := runCLI(ctx, lgBin, envOf(url), "tenant", "create", slug); err != nil {
				return 0, 0, err
			}
			if url == dbURL {
				inMany = append(inMany, time.Since(began))
			} else {
				inTen = append(inTen, time.Since(began))
			}
		}
	}
	many, _ = percentiles(inMany)
	ten, _ = percentiles(inTen)
	return many, ten, nil
}

// referenceDatabase makes sideBySideDB, migrated, with referenceTenants
// tenants, unless it holds them already.
func referenceDatabase(ctx context.Context, o options, lgBin, refURL string) error {
	if err := createDatabase(ctx, o.adminURL, sideBySideDB, false); err != nil {
		return err
	}
	env := learngateEnv(refURL, o.redisURL, "127.0.0.1:0", "127.0.0.1:0")
	if _, err := runMigrate(ctx, lgBin, env); err != nil {
		return err
	}
	db, err := sql.Open("postgres", refURL)
	if err != nil {
		return err
	}
	defer db.Close()
	var have int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM public.tenants WHERE slug NOT LIKE '`+sideBySidePrefix+`%'`).
		Scan(&have); err != nil {
		return err
	}
	for i := have; i < referenceTenants; i++ {
		if err := runCLI(ctx, lgBin, env, "tenant", "create", fmt.Sprintf("ab-base-%d", i+1)); err != nil {
			return err
		}
	}
	return nil
}

// runCLI runs learngate with args and env, bounded to 2 minutes.
func runCLI(ctx context.Context, lgBin string, env []string, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, lgBin, args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("learngate %v: %w: %.300s", args, err, out)
	}
	return nil
}
