package importer

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// ErrorsSuffix is appended to an input file's path to name its errors file.
const ErrorsSuffix = ".errors.csv"

// ErrorsFile is the CSV file that lists the problems of an import, one per
// line, next to the input file. It is created with the first problem; an
// import without problems removes the errors file an earlier run left, so
// that it is never mistaken for this run's.
type ErrorsFile struct {
	path   string
	header []string
	file   *os.File
	w      *csv.Writer
	count  int
}

// NewErrorsFile returns the errors file of the input file at input, with
// the given header; nothing is written until Add.
func NewErrorsFile(input string, header ...string) *ErrorsFile {
	return &ErrorsFile{path: input + ErrorsSuffix, header: header}
}

// Path is where the errors file is written.
func (e *ErrorsFile) Path() string { return e.path }

// Count is the number of problems added.
func (e *ErrorsFile) Count() int { return e.count }

// Add writes one problem: the row number, then cells matching the header's
// remaining columns.
func (e *ErrorsFile) Add(row int, cells ...string) error {
	if e.file == nil {
		f, err := os.Create(e.path)
		if err != nil {
			return fmt.Errorf("errors file: %w", err)
		}
		e.file, e.w = f, csv.NewWriter(f)
		if err := e.w.Write(e.header); err != nil {
			return fmt.Errorf("errors file: %w", err)
		}
	}
	record := make([]string, 0, len(cells)+1)
	record = append(record, strconv.Itoa(row))
	for _, c := range cells {
		record = append(record, inert(c))
	}
	if err := e.w.Write(record); err != nil {
		return fmt.Errorf("errors file: %w", err)
	}
	e.count++
	return nil
}

// Close flushes and closes the file, or removes a stale one when nothing
// was added.
func (e *ErrorsFile) Close() error {
	if e.file == nil {
		if err := os.Remove(e.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove stale errors file: %w", err)
		}
		return nil
	}
	e.w.Flush()
	err := e.w.Error()
	if cerr := e.file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("errors file: %w", err)
	}
	return nil
}

// inert keeps a cell from being read as a formula by a spreadsheet program
// (CSV injection): text starting with =, +, -, @, a tab or a carriage
// return gets a leading apostrophe. The cells echo the imported file.
func inert(cell string) string {
	if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		return "'" + cell
	}
	return cell
}
