package store

import (
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

func TestScopedMigrations(t *testing.T) {
	scope := "SELECT set_config('search_path', 'tenant_7', true);"
	files := scopedMigrations{scope: scope, FS: fstest.MapFS{
		"00001_a.sql": {Data: []byte("-- comment\n-- +goose Up\nCREATE TABLE a (id int);\n\n-- +goose Down\nDROP TABLE a;\n")},
		"00002_b.sql": {Data: []byte("-- +goose NO TRANSACTION\n-- +goose Up\nCREATE INDEX CONCURRENTLY x ON a (id);\n")},
		"README":      {Data: []byte("-- +goose Up\n")},
	}}
	read := func(name string) (string, error) {
		f, err := files.Open(name)
		if err != nil {
			return "", err
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil {
			return "", err
		}
		info, err := f.Stat()
		if err != nil || info.Size() != int64(len(b)) {
			t.Fatalf("%s: size %v, read %d bytes (%v)", name, info, len(b), err)
		}
		return string(b), nil
	}
	got, err := read("00001_a.sql")
	want := "-- comment\n-- +goose Up\n" + scope + "\nCREATE TABLE a (id int);\n\n-- +goose Down\n" + scope + "\nDROP TABLE a;\n"
	if err != nil || got != want {
		t.Fatalf("00001_a.sql = %q, %v; want %q", got, err, want)
	}
	if _, err := read("00002_b.sql"); err == nil || !strings.Contains(err.Error(), "NO TRANSACTION is not supported") {
		t.Fatalf("a NO TRANSACTION migration opened: %v", err)
	}
	if got, err := read("README"); err != nil || got != "-- +goose Up\n" {
		t.Fatalf("a file that is not .sql changed: %q, %v", got, err)
	}
	if names, err := fs.Glob(files, "*.sql"); err != nil || len(names) != 2 {
		t.Fatalf("glob = %v, %v", names, err)
	}
}
