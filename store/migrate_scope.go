package store

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
)

// gooseSection matches the annotation that opens a migration's Up or Down
// section.
var gooseSection = regexp.MustCompile(`(?m)^--\s*\+goose\s+(Up|Down)\s*$`)

// gooseNoTransaction matches the annotation of a migration run outside a
// transaction, where a transaction-local search_path would not hold.
var gooseNoTransaction = regexp.MustCompile(`(?m)^--\s*\+goose\s+NO\s+TRANSACTION\b`)

// scopedMigrations is a folder of goose SQL migrations whose Up and Down
// sections each begin with scope, a statement run first in the migration's
// transaction (the tenant's transaction-local search_path). A migration
// marked NO TRANSACTION cannot be scoped so and fails to open.
type scopedMigrations struct {
	fs.FS
	scope string
}

// Open opens name, with scope added to it when it is an .sql file.
func (s scopedMigrations) Open(name string) (fs.File, error) {
	f, err := s.FS.Open(name)
	if err != nil || path.Ext(name) != ".sql" {
		return f, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	if gooseNoTransaction.Match(b) {
		return nil, fmt.Errorf("tenant migration %s: NO TRANSACTION is not supported (search_path is set per transaction)", name)
	}
	b = gooseSection.ReplaceAll(b, []byte("$0\n"+s.scope))
	return &memFile{Reader: bytes.NewReader(b), info: sizedInfo{FileInfo: info, size: int64(len(b))}}, nil
}

// memFile is a file read from memory.
type memFile struct {
	*bytes.Reader
	info fs.FileInfo
}

// Stat describes the file.
func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }

// Close does nothing.
func (f *memFile) Close() error { return nil }

// sizedInfo is a file's information with another size.
type sizedInfo struct {
	fs.FileInfo
	size int64
}

// Size is the size of the rewritten file.
func (i sizedInfo) Size() int64 { return i.size }
