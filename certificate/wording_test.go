package certificate

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"learngate/input"
)

var wordingText = flag.String("wording-text", "", "write the characters of each CJK region's wording to DIR/{jp,kr,sc,hk}.txt (scripts/certificate-fonts.sh)")

// cjkWording maps each language with a regular CJK subset font to its
// region's file name.
var cjkWording = map[string]string{"ja": "jp", "ko": "kr", "zh-hans": "sc", "zh-hant-hk": "hk"}

// wordingChars returns every character language lang's wording can draw
// in regular weight, and printable ASCII.
func wordingChars(lang string) string {
	w := wordingFor(lang)
	var b strings.Builder
	for r := rune(0x20); r < 0x7f; r++ {
		b.WriteRune(r)
	}
	for _, s := range []string{w.Certifies, w.Topic, w.Pathway, w.Conquered, w.Until, w.ID} {
		b.WriteString(s)
	}
	for m := time.January; m <= time.December; m++ {
		b.WriteString(w.date(time.Date(2025, m, 1, 0, 0, 0, 0, time.UTC)))
	}
	return b.String()
}

func TestCJKWordingFontsCoverTheWording(t *testing.T) {
	if *wordingText != "" {
		for lang, region := range cjkWording {
			if err := os.WriteFile(filepath.Join(*wordingText, region+".txt"), []byte(wordingChars(lang)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for lang := range cjkWording {
		s := newShaper(fonts(), lang)
		if _, err := s.shape(wordingChars(lang), "wording", false); err != nil {
			t.Errorf("%s: %v: run scripts/certificate-fonts.sh", lang, err)
		}
	}
}

func TestEveryLanguageHasAWordingAndADate(t *testing.T) {
	day := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	want := map[string]string{
		"en": "1 June 2025", "de": "1. Juni 2025", "fr": "1er juin 2025", "es": "1 de junio de 2025",
		"ja": "2025年6月1日", "ko": "2025년 6월 1일", "zh-Hant-HK": "2025年6月1日", "th": "1 มิถุนายน พ.ศ. 2568",
		"vi": "ngày 1 tháng 6 năm 2025", "hi-IN": "1 जून 2025", "fj": "1 June 2025", "xx": "1 June 2025",
	}
	for lang, date := range want {
		if got := wordingFor(lang).date(day); got != date {
			t.Errorf("%s: date %q, want %q", lang, got, date)
		}
	}
	for _, lang := range input.Languages {
		w := wordingFor(lang)
		for _, s := range []string{w.Heading, w.Certifies, w.Topic, w.Pathway} {
			if strings.TrimSpace(s) == "" || strings.Contains(s, "%") {
				t.Errorf("%s: wording %q", lang, s)
			}
		}
		for _, s := range []string{w.Conquered, w.Until, w.ID} {
			if strings.Count(s, "%s") != 1 {
				t.Errorf("%s: %q should hold one %%s", lang, s)
			}
		}
	}
}
