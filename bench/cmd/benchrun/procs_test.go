package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestBuildsBothServersFromTheBenchModule finds the repository from a
// folder of the bench module (a Go module of its own) and builds
// learngate and the baseline from there, as make bench does.
func TestBuildsBothServersFromTheBenchModule(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	want, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if root != want {
		t.Fatalf("repoRoot() = %s, want %s (the folder of the learngate go.mod)", root, want)
	}
	lg, bl, err := buildServers(context.Background(), root, t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, bin := range []string{lg, bl} {
		if fi, err := os.Stat(bin); err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("%s: not an executable (%v)", bin, err)
		}
	}
}
