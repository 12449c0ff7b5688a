package certificate

import (
	_ "embed" // the font files below
	"fmt"
	"sync"
	"unicode"

	"golang.org/x/image/font/sfnt"
)

// The embedded TrueType fonts; fonts/README.md says where they come from
// and under which licence.
var (
	//go:embed fonts/NotoSans-Regular.ttf
	notoSansRegular []byte
	//go:embed fonts/NotoSans-Bold.ttf
	notoSansBold []byte
	//go:embed fonts/NotoSansDevanagari-Regular.ttf
	notoSansDevanagari []byte
	//go:embed fonts/DroidSansFallbackFull.ttf
	droidSansFallback []byte
)

// Face is one embedded font: the family name it is registered under in a
// PDF, its TrueType data and its parsed form (for its character map).
type Face struct {
	Family string
	data   []byte
	font   *sfnt.Font
}

// Covers reports whether the face has a glyph for r.
func (f *Face) Covers(r rune) bool {
	var buf sfnt.Buffer
	g, err := f.font.GlyphIndex(&buf, r)
	return err == nil && g != 0
}

// Faces are the fonts of a certificate in order of preference: Latin
// first, then Devanagari, then CJK. Regular and Bold differ only in
// their first (Latin) face; the fallbacks have no bold cut.
type Faces struct {
	Regular []*Face
	Bold    []*Face
}

// loadFaces parses the embedded fonts once, on first use.
var loadFaces = sync.OnceValues(func() (*Faces, error) {
	parse := func(family string, data []byte) (*Face, error) {
		f, err := sfnt.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("parse font %s: %w", family, err)
		}
		return &Face{Family: family, data: data, font: f}, nil
	}
	regular, err := parse("NotoSans", notoSansRegular)
	if err != nil {
		return nil, err
	}
	bold, err := parse("NotoSans-Bold", notoSansBold)
	if err != nil {
		return nil, err
	}
	deva, err := parse("NotoSansDevanagari", notoSansDevanagari)
	if err != nil {
		return nil, err
	}
	cjk, err := parse("DroidSansFallback", droidSansFallback)
	if err != nil {
		return nil, err
	}
	return &Faces{Regular: []*Face{regular, deva, cjk}, Bold: []*Face{bold, deva, cjk}}, nil
})

// LoadFaces returns the certificate fonts, parsed once per process.
func LoadFaces() (*Faces, error) { return loadFaces() }

// Run is a stretch of text drawn with one face.
type Run struct {
	Face *Face
	Text string
}

// Replacement is drawn in place of a character that no face has.
const Replacement = '?'

// Runs splits text into runs by coverage: a character stays in the current
// run when the run's face has it (so spaces, punctuation and combining
// marks never switch fonts), else it starts a run in the first face of
// faces that has it. A character that no face has becomes Replacement,
// and control characters become spaces.
func Runs(faces []*Face, text string) []Run {
	var runs []Run
	var cur *Face
	var buf []rune
	flush := func() {
		if len(buf) > 0 {
			runs = append(runs, Run{Face: cur, Text: string(buf)})
			buf = buf[:0]
		}
	}
	for _, r := range text {
		if unicode.IsControl(r) {
			r = ' '
		}
		if cur != nil && cur.Covers(r) {
			buf = append(buf, r)
			continue
		}
		next := firstCovering(faces, r)
		if next == nil {
			r, next = Replacement, cur
			if next == nil {
				next = faces[0]
			}
		}
		if next != cur {
			flush()
			cur = next
		}
		buf = append(buf, r)
	}
	flush()
	return runs
}

// firstCovering returns the first face that has r, or nil.
func firstCovering(faces []*Face, r rune) *Face {
	for _, f := range faces {
		if f.Covers(r) {
			return f
		}
	}
	return nil
}

// Missing returns the characters of text that no face of faces has (in
// order, once each): what Runs would replace.
func Missing(faces []*Face, text string) []rune {
	var out []rune
	seen := map[rune]bool{}
	for _, r := range text {
		if unicode.IsControl(r) || seen[r] {
			continue
		}
		if firstCovering(faces, r) == nil {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}
