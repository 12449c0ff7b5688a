package certificate

import (
	"bytes"
	"testing"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
)

// TestCJKTextTakesItsRegionsDesign shapes characters whose design differs
// by region and checks that each comes out as the glyph of its region's
// own font in NotoSansCJK-Bold.ttc (JP 0, KR 1, SC 2, TC 3, HK 4).
func TestCJKTextTakesItsRegionsDesign(t *testing.T) {
	loaders, err := ot.NewLoaders(bytes.NewReader(cjkBold))
	if err != nil {
		t.Fatal(err)
	}
	text := "直骨化今次"
	cases := []struct {
		lang, name string
		index      int
	}{
		{"ja", "山田直骨化今次", 0},
		{"ko", "김直骨化今次", 1},
		{"zh-Hans", "王直骨化今次", 2},
		{"zh-Hant-HK", "陳直骨化今次", 4},
		{"en", "骨化今次直", 2},    // Han alone: Simplified Chinese
		{"en", "やまだ直骨化今次", 0}, // kana: Japanese
		{"en", "김 直骨化今次", 1},  // Hangul: Korean
	}
	for _, c := range cases {
		ft, err := font.NewFont(loaders[c.index])
		if err != nil {
			t.Fatal(err)
		}
		regional := font.NewFace(ft)
		line, err := newShaper(fonts(), c.lang).shape(c.name, "learner name", true)
		if err != nil {
			t.Fatal(err)
		}
		got := map[font.GID]bool{}
		for _, g := range line.glyphs {
			got[g.id] = true
		}
		for _, r := range text {
			want, _ := regional.NominalGlyph(r)
			if !got[want] {
				t.Errorf("%s in %s: %c is not glyph %d of font %d", c.name, c.lang, r, want, c.index)
			}
		}
	}
}
