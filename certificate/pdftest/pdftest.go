// Package pdftest reads back what tests need from the PDFs that package
// certificate writes: the document information dictionary and, for
// uncompressed output, the text of each line (its /ActualText span) with
// its font and size. It understands that writer's output, not PDF in
// general; the checks with real readers (pdftotext, pdftoppm) live in
// package certificate's tests.
package pdftest

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Line is one text-showing operation of a page: the text it draws, the
// resource name of its font (F1, F2, ...), that font's BaseFont and its size.
type Line struct {
	Text     string
	Font     string
	BaseFont string
	Size     float64
}

var (
	objectPattern   = regexp.MustCompile(`(?s)(\d+) 0 obj\s*(.*?)endobj`)
	fontRefPattern  = regexp.MustCompile(`/(F\d+) (\d+) 0 R`)
	baseFontPattern = regexp.MustCompile(`/Subtype /Type0 /BaseFont /([^\s/>]+)`)
	spanPattern     = regexp.MustCompile(`(?s)/Span <</ActualText <FEFF([0-9A-Fa-f]*)>>> BDC(.*?)EMC`)
	fontPattern     = regexp.MustCompile(`/(F\d+) ([0-9.]+) Tf`)
	streamPattern   = regexp.MustCompile(`(\d+) 0 obj\n(<<(?:[^>]|>[^>])*?/Length (\d+)>>)\nstream\n`)
	infoPattern     = regexp.MustCompile(`/(Title|Subject|Author|Creator|Producer) <FEFF([0-9A-Fa-f]*)>`)
)

// Info returns the entries of the document information dictionary that
// the writer puts as UTF-16 hex strings (Title, Subject, Author, Creator, Producer).
func Info(pdf []byte) (map[string]string, error) {
	out := map[string]string{}
	for _, m := range infoPattern.FindAllSubmatch(pdf, -1) {
		s, err := utf16Hex(string(m[2]))
		if err != nil {
			return nil, fmt.Errorf("info %s: %w", m[1], err)
		}
		out[string(m[1])] = s
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no document information dictionary")
	}
	return out, nil
}

// Text returns the lines of a certificate, in drawing order: the text of
// each /ActualText span, the first font it uses (its resource name and its
// BaseFont) and that font's size. Compressed streams are inflated first.
func Text(pdf []byte) ([]Line, error) {
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		return nil, fmt.Errorf("not a PDF")
	}
	objects := map[string]string{}
	for _, m := range objectPattern.FindAllSubmatch(pdf, -1) {
		objects[string(m[1])] = string(m[2])
	}
	for _, m := range streamPattern.FindAllSubmatchIndex(pdf, -1) {
		id := string(pdf[m[2]:m[3]])
		n, _ := strconv.Atoi(string(pdf[m[6]:m[7]]))
		if m[1]+n > len(pdf) {
			return nil, fmt.Errorf("object %s: stream past the end of the file", id)
		}
		data := pdf[m[1] : m[1]+n]
		if bytes.Contains(pdf[m[4]:m[5]], []byte("/FlateDecode")) {
			zr, err := zlib.NewReader(bytes.NewReader(data))
			if err != nil {
				return nil, fmt.Errorf("object %s: %w", id, err)
			}
			if data, err = io.ReadAll(zr); err != nil {
				return nil, fmt.Errorf("object %s: %w", id, err)
			}
		}
		objects[id] = string(pdf[m[4]:m[5]]) + "\nstream\n" + string(data)
	}
	fonts := map[string]string{}
	for _, obj := range objects {
		if !strings.Contains(obj, "/Font <<") {
			continue
		}
		for _, m := range fontRefPattern.FindAllStringSubmatch(obj, -1) {
			if b := baseFontPattern.FindStringSubmatch(objects[m[2]]); b != nil {
				fonts[m[1]] = b[1]
			}
		}
	}
	var lines []Line
	for _, obj := range objects {
		if !strings.Contains(obj, "BDC") {
			continue
		}
		for _, span := range spanPattern.FindAllStringSubmatch(obj, -1) {
			text, err := utf16Hex(span[1])
			if err != nil {
				return nil, err
			}
			l := Line{Text: text}
			if m := fontPattern.FindStringSubmatch(span[2]); m != nil {
				l.Font, l.BaseFont = m[1], fonts[m[1]]
				l.Size, _ = strconv.ParseFloat(m[2], 64)
			}
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// utf16Hex decodes hex digits holding UTF-16BE code units.
func utf16Hex(s string) (string, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b)%2 != 0 {
		return "", fmt.Errorf("bad UTF-16 hex string %q", s)
	}
	units := make([]uint16, len(b)/2)
	for i := range units {
		units[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	return string(utf16.Decode(units)), nil
}
