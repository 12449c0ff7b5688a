// Package importer loads CSV files of users and of external knowledge into
// a tenant through the batch code of the Public API: each row is read by
// the same conversion as a JSON record of POST /papi/users/batch_save or
// POST /papi/external_knowledges/batch_save (records.UserBatchRows,
// records.KnowledgeBatchRows) and saved by the same store functions, in
// chunks of ChunkSize rows. Files are streamed, never held in memory.
package importer

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ChunkSize is the number of rows saved together: the batch endpoints' limit.
const ChunkSize = 100

// ClearMarker is the cell text (any letter case, surrounding spaces
// ignored) that clears a field, as an empty string does in the API. An
// empty cell leaves the field as it is.
const ClearMarker = "[clear]"

// utf8BOM is the byte order mark spreadsheet programs put at the start of
// a UTF-8 CSV file.
const utf8BOM = "\ufeff"

// Row is one data row of a CSV file.
type Row struct {
	// Number is the line of the file where the row starts (the header is
	// line 1): the row number a spreadsheet shows, unless a cell above
	// holds line breaks.
	Number int
	// Fields holds the row's non-empty cells of the columns read, by
	// column name, as strings; a ClearMarker cell is "".
	Fields map[string]any
}

// String returns the cell of column name, "" when empty or cleared.
func (r Row) String(name string) string {
	s, _ := r.Fields[name].(string)
	return s
}

// Format describes the columns of a kind of file.
type Format struct {
	// Required names the columns the header must have.
	Required []string
	// Known reports whether a column is read; the others are ignored.
	Known func(name string) bool
	// Delimiter separates cells; 0 means ','.
	Delimiter rune
}

// Source streams the rows of a CSV file whose header and syntax were
// checked when it was opened.
type Source struct {
	path    string
	file    *os.File
	reader  *csv.Reader
	columns []string // the name of each column; "" for a column not read
	rows    int
	ignored []string
}

// Open checks the CSV file at path and returns a Source positioned at its
// first data row. The whole file is read once first (streamed), so that a
// malformed file is refused before anything is saved: a missing required
// column, a column named twice, a syntax error or a row whose number of
// cells differs from the header's (naming the line), text that is not
// UTF-8, or an empty file. Columns that are not Known are ignored (see
// Ignored), as the API ignores unknown properties. Errors start with path.
func Open(path string, f Format) (*Source, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	s := &Source{path: path, file: file}
	if err := s.check(f); err != nil {
		file.Close()
		return nil, err
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		file.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.reader = newReader(file, f.Delimiter)
	if _, err := s.reader.Read(); err != nil { // the header, checked above
		file.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// newReader reads CSV from r after a byte order mark, if any. Every record
// must have as many cells as the first (the header).
func newReader(r io.Reader, delimiter rune) *csv.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(len(utf8BOM)); err == nil && string(b) == utf8BOM {
		_, _ = br.Discard(len(utf8BOM))
	}
	cr := csv.NewReader(br)
	if delimiter != 0 {
		cr.Comma = delimiter
	}
	cr.ReuseRecord = true
	return cr
}

// check reads the header and every row once, counting the rows.
func (s *Source) check(f Format) error {
	r := newReader(s.file, f.Delimiter)
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: the file is empty: the first line must name the columns", s.path)
	}
	if err != nil {
		return s.syntaxError(err)
	}
	if err := s.readHeader(header, f); err != nil {
		return err
	}
	for {
		record, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return s.syntaxError(err)
		}
		for _, cell := range record {
			if !utf8.ValidString(cell) {
				line, _ := r.FieldPos(0)
				return fmt.Errorf("%s: line %d: the text is not UTF-8: save the file as \"CSV UTF-8\"", s.path, line)
			}
		}
		if !blank(record) {
			s.rows++
		}
	}
}

// readHeader names the columns: names are trimmed and lower-cased, except
// custom fields, whose prefix is written X- and whose name is kept.
func (s *Source) readHeader(header []string, f Format) error {
	seen := make(map[string]int, len(header))
	s.columns = make([]string, len(header))
	for i, raw := range header {
		if !utf8.ValidString(raw) {
			return fmt.Errorf("%s: line 1: the text is not UTF-8: save the file as \"CSV UTF-8\"", s.path)
		}
		name := ColumnName(raw)
		switch {
		case name == "":
			s.ignored = append(s.ignored, fmt.Sprintf("column %d (no name)", i+1))
			continue
		case seen[name] != 0:
			return fmt.Errorf("%s: column %s appears twice (columns %d and %d)", s.path, name, seen[name], i+1)
		}
		seen[name] = i + 1
		if !f.Known(name) {
			s.ignored = append(s.ignored, name)
			continue
		}
		s.columns[i] = name
	}
	for _, req := range f.Required {
		if seen[req] == 0 {
			hint := ""
			if len(header) == 1 && f.Delimiter != ';' && strings.Contains(header[0], ";") {
				hint = " (the header holds ';': is the file separated by semicolons? use --delimiter ';')"
			}
			return fmt.Errorf("%s: missing column %s%s", s.path, req, hint)
		}
	}
	return nil
}

// ColumnName is the field name a CSV header cell stands for: trimmed and
// lower case, but for custom fields ("X-" in any case), which keep their name.
func ColumnName(header string) string {
	name := strings.TrimSpace(header)
	if len(name) > 2 && strings.EqualFold(name[:2], "x-") {
		return "X-" + name[2:]
	}
	return strings.ToLower(name)
}

// syntaxError names the line of a CSV syntax error.
func (s *Source) syntaxError(err error) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", s.path, err)
	}
	if errors.Is(pe.Err, csv.ErrFieldCount) {
		return fmt.Errorf("%s: line %d: the row does not have as many cells as the header has columns (%d)",
			s.path, pe.StartLine, len(s.columns))
	}
	return fmt.Errorf("%s: line %d: malformed CSV: %v", s.path, pe.Line, pe.Err)
}

// Rows is the number of data rows in the file, blank rows not counted.
func (s *Source) Rows() int { return s.rows }

// Ignored lists the columns that are not read, as named in the header.
func (s *Source) Ignored() []string { return s.ignored }

// blank reports whether every cell of record is empty or white space, as
// in the trailing rows some spreadsheet programs write.
func blank(record []string) bool {
	for _, cell := range record {
		if strings.TrimSpace(cell) != "" {
			return false
		}
	}
	return true
}

// Next returns the next row that is not blank, or io.EOF after the last.
func (s *Source) Next() (Row, error) {
	record, err := s.reader.Read()
	for err == nil && blank(record) {
		record, err = s.reader.Read()
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			return Row{}, io.EOF
		}
		return Row{}, s.syntaxError(err) // the file changed since it was checked
	}
	line, _ := s.reader.FieldPos(0)
	row := Row{Number: line, Fields: make(map[string]any, len(record))}
	for i, cell := range record {
		name := s.columns[i]
		trimmed := strings.TrimSpace(cell)
		switch {
		case name == "" || trimmed == "":
		case strings.EqualFold(trimmed, ClearMarker):
			row.Fields[name] = ""
		default:
			row.Fields[name] = cell
		}
	}
	return row, nil
}

// Close closes the file.
func (s *Source) Close() error { return s.file.Close() }

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

// Check makes sure the errors file can be written, so that an import
// never saves rows whose problems it then cannot list.
func (e *ErrorsFile) Check() error {
	f, err := os.OpenFile(e.path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("cannot write the errors file: %w", err)
	}
	return f.Close()
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
