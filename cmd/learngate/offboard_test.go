package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestTenantDeleteRemovesItsFiles: `learngate tenant delete` removes the
// tenant's certificate files from LEARNGATE_BLOB_DIR with its data; another
// tenant's files stay.
func TestTenantDeleteRemovesItsFiles(t *testing.T) {
	migratedCLIEnv(t)
	mustRun(t, "migrate", "-q")
	blobDir := os.Getenv("LEARNGATE_BLOB_DIR")
	files := map[string]string{}
	for _, slug := range []string{"acme", "globex"} {
		m := createdPattern.FindStringSubmatch(mustRun(t, "tenant", "create", slug))
		if m == nil {
			t.Fatalf("tenant create %s printed no schema", slug)
		}
		files[slug] = filepath.Join(blobDir, m[2], "certificates", "job.pdf")
		if err := os.MkdirAll(filepath.Dir(files[slug]), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(files[slug], []byte("%PDF-1.4"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out := mustRun(t, "tenant", "delete", "acme", "--confirm", "acme"); out != "deleted tenant acme\n" {
		t.Fatalf("output = %q", out)
	}
	if _, err := os.Stat(filepath.Dir(filepath.Dir(files["acme"]))); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("acme's folder after offboarding: %v, want it gone", err)
	}
	if _, err := os.Stat(files["globex"]); err != nil {
		t.Fatalf("globex's certificate: %v", err)
	}
}
