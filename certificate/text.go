package certificate

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/go-text/typesetting/di"
	"github.com/go-text/typesetting/font"
	"github.com/go-text/typesetting/language"
	"github.com/go-text/typesetting/shaping"
	"golang.org/x/image/math/fixed"

	"learngate"
)

// shapeSize is the size text is shaped at: positions come out in
// thousandths of an em (times 64, fixed.Int26_6).
const shapeSize = 1000

// glyph is one shaped glyph of a line, positioned in thousandths of an em
// from the line's origin on the baseline.
type glyph struct {
	font *loadedFont
	id   font.GID
	x, y float64
	// advance is the glyph's shaped advance.
	advance float64
	// text is the text of the glyph's cluster when the glyph is the
	// cluster's first, else "": what ToUnicode maps it to.
	text string
}

// shapedLine is a line of text shaped in its fonts.
type shapedLine struct {
	text   string
	glyphs []glyph
	width  float64
}

// MissingCharactersError says that a text has characters that no embedded
// font draws. Its Field says which text (the learner's name, the title...).
type MissingCharactersError struct {
	Field string
	Chars []rune
}

// Error lists the characters with their code points.
func (e *MissingCharactersError) Error() string {
	parts := make([]string, len(e.Chars))
	for i, r := range e.Chars {
		parts[i] = fmt.Sprintf("%c (U+%04X)", r, r)
	}
	return fmt.Sprintf("The %s has characters that no certificate font has: %s", e.Field, strings.Join(parts, ", "))
}

// invalid is e as the service's error: an Invalid error whose message
// tells the client what cannot be printed.
func (e *MissingCharactersError) invalid() error {
	return &learngate.Error{Code: learngate.Invalid, Message: e.Error(), Err: e}
}

// shaper shapes the lines of one certificate; it is not safe for
// concurrent use (go-text Faces and shapers cache).
type shaper struct {
	lib   *library
	lang  string
	hb    shaping.HarfbuzzShaper
	faces map[*loadedFont]*font.Face
}

// newShaper returns a shaper for text in the learner's language lang (a
// code of input.Languages, any case).
func newShaper(lib *library, lang string) *shaper {
	return &shaper{lib: lib, lang: strings.ToLower(lang), faces: map[*loadedFont]*font.Face{}}
}

// face returns the per-render Face of f.
func (s *shaper) face(f *loadedFont) *font.Face {
	fc, ok := s.faces[f]
	if !ok {
		fc = font.NewFace(f.font)
		s.faces[f] = fc
	}
	return fc
}

// ignorable reports whether r is drawn by the shaper as nothing (joiners,
// variation selectors): no font needs to have it.
func ignorable(r rune) bool {
	return r == 0x200B || r == 0x200C || r == 0x200D || r == 0x2060 || (r >= 0xFE00 && r <= 0xFE0F)
}

// shape shapes text (one line; control characters become spaces) in bold
// or regular. field names the text in a MissingCharactersError.
func (s *shaper) shape(text, field string, bold bool) (shapedLine, error) {
	runes := []rune(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, text))
	assigned, reg, err := s.assign(runes, bold, field)
	if err != nil {
		return shapedLine{}, err
	}
	line := shapedLine{text: string(runes)}
	for start := 0; start < len(runes); {
		end := start + 1
		for end < len(runes) && assigned[end] == assigned[start] {
			end++
		}
		lang := language.NewLanguage(s.lang)
		if assigned[start].cjk {
			lang = regionLanguage[reg]
		}
		s.shapeRun(&line, runes[start:end], assigned[start], lang)
		start = end
	}
	return line, nil
}

// assign picks the font of each rune: the font of its script's family
// (the family of the text around it for characters of no script), else
// the first font of fallbackOrder that has it. It also returns the CJK
// region of the line.
func (s *shaper) assign(runes []rune, bold bool, field string) ([]*loadedFont, region, error) {
	reg := regionFor(s.lang, runes)
	families := make([]string, len(runes))
	prev := ""
	for i, r := range runes {
		if families[i] = familyOf(r); families[i] == "" {
			families[i] = prev
		}
		prev = families[i]
	}
	next := famLatin // leading characters of no script take the first script's family
	for i := len(runes) - 1; i >= 0; i-- {
		if families[i] == "" {
			families[i] = next
		}
		next = families[i]
	}
	out := make([]*loadedFont, len(runes))
	var missing []rune
	for i, r := range runes {
		key := fontKey{family: families[i], bold: bold}
		if key.family == famCJK && !bold { // the bold font has every region (fonts.go)
			key.region = reg
		}
		f, err := s.lib.get(key)
		if err != nil {
			return nil, reg, err
		}
		if !ignorable(r) && !s.covers(f, r) {
			if f = s.fallback(r, bold, reg); f == nil {
				if !strings.ContainsRune(string(missing), r) {
					missing = append(missing, r)
				}
				continue
			}
		}
		out[i] = f
	}
	if len(missing) > 0 {
		return nil, reg, (&MissingCharactersError{Field: field, Chars: missing}).invalid()
	}
	return out, reg, nil
}

// fallbackOrder is the order in which the families are tried for a
// character that its own family's font lacks (a fullwidth Latin letter is
// in the CJK fonts, a dash of Devanagari text in Noto Sans).
var fallbackOrder = []string{famLatin, famCJK, famDevanagari, famGurmukhi, famTamil, famTelugu, famThai}

// fallback returns the first font of fallbackOrder that has r, or nil.
func (s *shaper) fallback(r rune, bold bool, reg region) *loadedFont {
	for _, fam := range fallbackOrder {
		key := fontKey{family: fam, bold: bold}
		if fam == famCJK && !bold {
			key.region = reg
		}
		if f, err := s.lib.get(key); err == nil && s.covers(f, r) {
			return f
		}
	}
	return nil
}

// covers reports whether f has a glyph for r.
func (s *shaper) covers(f *loadedFont, r rune) bool {
	g, ok := s.face(f).NominalGlyph(r)
	return ok && g != 0
}

// shapeRun shapes runes in f and language lang and appends the glyphs to line.
func (s *shaper) shapeRun(line *shapedLine, runes []rune, f *loadedFont, lang language.Language) {
	script := language.Common
	for _, r := range runes {
		if sc := language.LookupScript(r); sc != language.Common && sc != language.Inherited {
			script = sc
			break
		}
	}
	out := s.hb.Shape(shaping.Input{
		Text: runes, RunStart: 0, RunEnd: len(runes), Direction: di.DirectionLTR,
		Face: s.face(f), Size: fixed.I(shapeSize), Script: script, Language: lang,
	})
	pen := line.width
	lastCluster := -1
	for _, g := range out.Glyphs {
		gl := glyph{
			font: f, id: g.GlyphID, advance: fromFixed(g.Advance),
			x: pen + fromFixed(g.XOffset), y: fromFixed(g.YOffset),
		}
		if c := g.TextIndex(); c != lastCluster {
			gl.text = string(runes[c : c+g.RunesCount()])
			lastCluster = c
		}
		pen += gl.advance
		line.glyphs = append(line.glyphs, gl)
	}
	line.width = pen
}

// fromFixed converts a 26.6 fixed-point value to a float.
func fromFixed(v fixed.Int26_6) float64 { return float64(v) / 64 }
