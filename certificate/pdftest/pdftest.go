// Package pdftest reads back what tests need from the PDFs that package
// certificate writes: the document information dictionary and, for
// uncompressed output, the text of each line with its font and size. It
// understands gopdf's output (Type0 fonts with Identity-H glyph ids and a
// ToUnicode CMap per font), not PDF in general.
package pdftest

import (
	"bytes"
	"encoding/hex"
	"fmt"
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
	toUnicodeRef    = regexp.MustCompile(`/ToUnicode (\d+) 0 R`)
	descendantRef   = regexp.MustCompile(`/DescendantFonts \[(\d+) 0 R\]`)
	descriptorRef   = regexp.MustCompile(`/FontDescriptor (\d+) 0 R`)
	fontNamePattern = regexp.MustCompile(`/FontName /([^\s/>]+)`)
	bfrangePattern  = regexp.MustCompile(`<([0-9A-Fa-f]{4})><([0-9A-Fa-f]{4})><([0-9A-Fa-f]{4})>`)
	opPattern       = regexp.MustCompile(`/(F\d+) ([0-9.]+) Tf|\[<([0-9A-Fa-f>< -]*)>\] TJ`)
	infoPattern     = regexp.MustCompile(`/(Title|Subject|Author|Creator|Producer) <FEFF([0-9A-Fa-f]*)>`)
)

// Info returns the entries of the document information dictionary that
// gopdf writes as UTF-16 hex strings (Title, Subject, Author, Creator, Producer).
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

// Text returns the lines of an uncompressed gopdf document, in drawing order.
func Text(pdf []byte) ([]Line, error) {
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		return nil, fmt.Errorf("not a PDF")
	}
	objects := map[string]string{}
	for _, m := range objectPattern.FindAllSubmatch(pdf, -1) {
		objects[string(m[1])] = string(m[2])
	}
	fonts := map[string]loadedFont{}
	for _, obj := range objects {
		if !strings.Contains(obj, "/Font <<") {
			continue
		}
		for _, m := range fontRefPattern.FindAllStringSubmatch(obj, -1) {
			f, err := loadFont(objects, m[2])
			if err != nil {
				return nil, fmt.Errorf("font %s: %w", m[1], err)
			}
			fonts[m[1]] = f
		}
	}
	var lines []Line
	var cur Line
	for _, obj := range objects {
		if !strings.Contains(obj, "TJ") {
			continue
		}
		for _, m := range opPattern.FindAllStringSubmatch(obj, -1) {
			if m[1] != "" {
				size, _ := strconv.ParseFloat(m[2], 64)
				cur = Line{Font: m[1], BaseFont: fonts[m[1]].base, Size: size}
				continue
			}
			f, ok := fonts[cur.Font]
			if !ok {
				return nil, fmt.Errorf("text in unknown font %q", cur.Font)
			}
			glyphs := strings.Map(func(r rune) rune {
				if strings.ContainsRune("0123456789abcdefABCDEF", r) {
					return r
				}
				return -1
			}, m[3])
			var b strings.Builder
			for i := 0; i+4 <= len(glyphs); i += 4 {
				r, ok := f.toUni[strings.ToUpper(glyphs[i:i+4])]
				if !ok {
					return nil, fmt.Errorf("glyph %s of %s has no ToUnicode entry", glyphs[i:i+4], cur.Font)
				}
				b.WriteRune(r)
			}
			l := cur
			l.Text = b.String()
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// loadedFont is a font's BaseFont and its glyph id → character map.
type loadedFont struct {
	base  string
	toUni map[string]rune
}

// loadFont reads the Type0 font object id: its ToUnicode map and the
// FontName of its descendant's descriptor.
func loadFont(objects map[string]string, id string) (loadedFont, error) {
	obj := objects[id]
	tu := toUnicodeRef.FindStringSubmatch(obj)
	if tu == nil {
		return loadedFont{}, fmt.Errorf("object %s has no ToUnicode", id)
	}
	f := loadedFont{toUni: map[string]rune{}}
	for _, m := range bfrangePattern.FindAllStringSubmatch(objects[tu[1]], -1) {
		if !strings.EqualFold(m[1], m[2]) {
			return loadedFont{}, fmt.Errorf("bfrange %s-%s spans several glyphs", m[1], m[2])
		}
		u, _ := strconv.ParseUint(m[3], 16, 32)
		f.toUni[strings.ToUpper(m[1])] = rune(u)
	}
	if d := descendantRef.FindStringSubmatch(obj); d != nil {
		if fd := descriptorRef.FindStringSubmatch(objects[d[1]]); fd != nil {
			if n := fontNamePattern.FindStringSubmatch(objects[fd[1]]); n != nil {
				f.base = n[1]
			}
		}
	}
	return f, nil
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
