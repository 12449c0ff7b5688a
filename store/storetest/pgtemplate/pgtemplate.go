// Package pgtemplate makes test databases as copies of a migrated template
// database (CREATE DATABASE ... TEMPLATE), so that a test gets a migrated
// database for the price of a file copy instead of running every
// migration. The template is built once per migration set: its name is
// derived from a digest of the store's source (the embedded migrations,
// the Go code that runs them) and go.sum (River's job tables), so a change
// to any of them builds a new template, and runs of the same code share
// one. Test processes running at once (go test runs packages in parallel)
// build it under an advisory lock, so exactly one of them builds it.
//
// It imports no learngate package: the tests of package store, which
// cannot import storetest, use it with a build function of their own.
package pgtemplate

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	_ "github.com/lib/pq" // the driver of every test database
)

// buildLockKey is the advisory lock (in the admin database) held while a
// template is looked up and, when missing, built.
const buildLockKey int64 = 0x6c67_7470_6c00 // "lgtpl"

// Prefix starts the name of every template database.
const Prefix = "lgtpl_"

// BuildFunc migrates the empty database at dbURL into the state every
// copy starts from. It must close every connection it opened before it
// returns: a template cannot be copied while anyone is connected to it.
type BuildFunc func(ctx context.Context, dbURL string) error

// known holds the templates this process has seen exist, so that only the
// first copy of a run takes the lock.
var known sync.Map

// Create creates database name on the server of adminURL as a copy of the
// template of digest, building the template with build first when it does
// not exist yet. Database settings are not copied with a template: the
// caller sets those it wants (storetest's synchronous_commit = off; store's
// bench tenants keep durable commits, since VACUUM marks no page
// all-visible before an asynchronous commit is flushed, and their EXPLAIN
// tests expect index-only scans right after a VACUUM).
func Create(ctx context.Context, adminURL, name, digest string, build BuildFunc) error {
	admin, err := sql.Open("postgres", adminURL)
	if err != nil {
		return err
	}
	defer admin.Close()
	template := Prefix + digest
	if _, ok := known.Load(adminURL + " " + template); !ok {
		if err := ensure(ctx, admin, adminURL, template, build); err != nil {
			return err
		}
		known.Store(adminURL+" "+template, true)
	}
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name+` TEMPLATE `+template); err != nil {
		return fmt.Errorf("copy template %s: %w", template, err)
	}
	return nil
}

// ensure builds template under the build lock unless it exists. The
// template is built under a name of its own and renamed when complete, so
// a build that dies half-way leaves no template behind (only a database
// named Prefix+"build_..." that nothing uses).
func ensure(ctx context.Context, admin *sql.DB, adminURL, template string, build BuildFunc) error {
	conn, err := admin.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, buildLockKey); err != nil {
		return fmt.Errorf("take template lock: %w", err)
	}
	defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, buildLockKey) //nolint:errcheck // closing the session releases it too
	var exists bool
	if err := conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, template).Scan(&exists); err != nil {
		return fmt.Errorf("look up template %s: %w", template, err)
	}
	if exists {
		return nil
	}
	building := Prefix + "build_" + randomSuffix()
	if _, err := conn.ExecContext(ctx, `CREATE DATABASE `+building); err != nil {
		return fmt.Errorf("create template %s: %w", template, err)
	}
	if _, err := conn.ExecContext(ctx, `ALTER DATABASE `+building+` SET synchronous_commit = off`); err != nil {
		return fmt.Errorf("set up template %s: %w", template, err)
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		return err
	}
	u.Path = "/" + building
	if err := build(ctx, u.String()); err != nil {
		_, _ = conn.ExecContext(context.Background(), `DROP DATABASE IF EXISTS `+building+` WITH (FORCE)`)
		return fmt.Errorf("build template %s: %w", template, err)
	}
	for _, stmt := range []string{
		`ALTER DATABASE ` + building + ` RENAME TO ` + template,
		`ALTER DATABASE ` + template + ` WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`,
	} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("finish template %s: %s: %w", template, stmt, err)
		}
	}
	return nil
}

// SourceDigest returns 16 hex characters of a digest of the store's Go
// source (not its tests) and migrations and of the module's go.mod and
// go.sum, found from this file's path in the source tree; when that tree
// is not there (a test binary run elsewhere), a digest of the running
// executable, which holds the same code.
func SourceDigest() (string, error) {
	h := sha256.New()
	_, file, _, ok := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	if ok {
		if err := hashSources(h, root); err == nil {
			return hex.EncodeToString(h.Sum(nil))[:16], nil
		}
	}
	h.Reset()
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// hashSources writes into h, in a fixed order, the path and content of
// go.mod, go.sum, store/*.go but its tests, and every file under
// store/migrations.
func hashSources(h io.Writer, root string) error {
	files := []string{"go.mod", "go.sum"}
	goFiles, err := filepath.Glob(filepath.Join(root, "store", "*.go"))
	if err != nil {
		return err
	}
	for _, f := range goFiles {
		if !strings.HasSuffix(f, "_test.go") {
			rel, _ := filepath.Rel(root, f)
			files = append(files, rel)
		}
	}
	err = filepath.WalkDir(filepath.Join(root, "store", "migrations"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files = append(files, rel)
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(b))
		h.Write(b) //nolint:errcheck // a hash never fails to write
	}
	return nil
}

// randomSuffix returns 12 random hex characters.
func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
