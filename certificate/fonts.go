package certificate

import (
	"bytes"
	_ "embed" // the font files below
	"fmt"
	"sync"
	"unicode"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"github.com/go-text/typesetting/language"
)

// The embedded fonts; fonts/README.md says where they come from, under
// which licence, and how the regular CJK subsets are made.
var (
	//go:embed fonts/NotoSans-Regular.ttf
	notoSansRegular []byte
	//go:embed fonts/NotoSans-Bold.ttf
	notoSansBold []byte
	//go:embed fonts/NotoSansDevanagari-Regular.ttf
	devanagariRegular []byte
	//go:embed fonts/NotoSansDevanagari-Bold.ttf
	devanagariBold []byte
	//go:embed fonts/NotoSansGurmukhi-Regular.ttf
	gurmukhiRegular []byte
	//go:embed fonts/NotoSansGurmukhi-Bold.ttf
	gurmukhiBold []byte
	//go:embed fonts/NotoSansTamil-Regular.ttf
	tamilRegular []byte
	//go:embed fonts/NotoSansTamil-Bold.ttf
	tamilBold []byte
	//go:embed fonts/NotoSansTelugu-Regular.ttf
	teluguRegular []byte
	//go:embed fonts/NotoSansTelugu-Bold.ttf
	teluguBold []byte
	//go:embed fonts/NotoSansThai-Regular.ttf
	thaiRegular []byte
	//go:embed fonts/NotoSansThai-Bold.ttf
	thaiBold []byte
	//go:embed fonts/NotoSansCJK-Bold.ttc
	cjkBold []byte
	//go:embed fonts/NotoSansCJKjp-Regular-Wording.otf
	cjkJPRegular []byte
	//go:embed fonts/NotoSansCJKkr-Regular-Wording.otf
	cjkKRRegular []byte
	//go:embed fonts/NotoSansCJKsc-Regular-Wording.otf
	cjkSCRegular []byte
	//go:embed fonts/NotoSansCJKhk-Regular-Wording.otf
	cjkHKRegular []byte
)

// region is a regional design of the CJK fonts: the same character is
// drawn differently in Japan, Korea, mainland China, Taiwan and Hong Kong.
type region int

// The CJK regions, in the order of NotoSansCJK-Bold.ttc's fonts.
const (
	regionJP region = iota // Japanese
	regionKR               // Korean
	regionSC               // Simplified Chinese
	regionTC               // Traditional Chinese (Taiwan)
	regionHK               // Traditional Chinese (Hong Kong)
)

// faceSource is one font of the embedded files: data and, for a
// collection, the index of the font in it.
type faceSource struct {
	name  string
	data  []byte
	index int
}

// loadedFont is a parsed font, shared by every render (go-text's Font is
// safe for concurrent use; a Face, which caches, is made per render).
type loadedFont struct {
	name string
	font *font.Font
	upem float64
	// cjk is set for the CJK fonts, shaped in their region's language.
	cjk bool
}

// library parses each embedded font on first use and keeps it.
type library struct {
	sources map[fontKey]faceSource
	mu      sync.Mutex
	loaded  map[fontKey]*loadedFont
}

// fontKey names one font of the library: a script family, its weight
// and, for CJK, its region.
type fontKey struct {
	family string
	bold   bool
	region region
}

// The families of the library.
const (
	famLatin      = "latin"
	famDevanagari = "devanagari"
	famGurmukhi   = "gurmukhi"
	famTamil      = "tamil"
	famTelugu     = "telugu"
	famThai       = "thai"
	famCJK        = "cjk"
)

// fonts is the library of the embedded fonts, made once per process.
var fonts = sync.OnceValue(func() *library {
	src := map[fontKey]faceSource{
		{famLatin, false, 0}:      {"NotoSans-Regular", notoSansRegular, 0},
		{famLatin, true, 0}:       {"NotoSans-Bold", notoSansBold, 0},
		{famDevanagari, false, 0}: {"NotoSansDevanagari-Regular", devanagariRegular, 0},
		{famDevanagari, true, 0}:  {"NotoSansDevanagari-Bold", devanagariBold, 0},
		{famGurmukhi, false, 0}:   {"NotoSansGurmukhi-Regular", gurmukhiRegular, 0},
		{famGurmukhi, true, 0}:    {"NotoSansGurmukhi-Bold", gurmukhiBold, 0},
		{famTamil, false, 0}:      {"NotoSansTamil-Regular", tamilRegular, 0},
		{famTamil, true, 0}:       {"NotoSansTamil-Bold", tamilBold, 0},
		{famTelugu, false, 0}:     {"NotoSansTelugu-Regular", teluguRegular, 0},
		{famTelugu, true, 0}:      {"NotoSansTelugu-Bold", teluguBold, 0},
		{famThai, false, 0}:       {"NotoSansThai-Regular", thaiRegular, 0},
		{famThai, true, 0}:        {"NotoSansThai-Bold", thaiBold, 0},
		// Regular CJK is only the certificate's wording (fonts/README.md).
		{famCJK, false, regionJP}: {"NotoSansCJKjp-Regular", cjkJPRegular, 0},
		{famCJK, false, regionKR}: {"NotoSansCJKkr-Regular", cjkKRRegular, 0},
		{famCJK, false, regionSC}: {"NotoSansCJKsc-Regular", cjkSCRegular, 0},
		{famCJK, false, regionTC}: {"NotoSansCJKhk-Regular", cjkHKRegular, 0},
		{famCJK, false, regionHK}: {"NotoSansCJKhk-Regular", cjkHKRegular, 0},
	}
	// One font of the bold collection draws every region: its 'locl'
	// feature gives each region's designs when the text is shaped in the
	// region's language (regionLanguage), exactly as the region's own font
	// of the collection would, and the five share one set of outlines.
	// Parsing one of them instead of five keeps 20 MB of memory, not 100.
	src[fontKey{famCJK, true, regionJP}] = faceSource{"NotoSansCJK-Bold", cjkBold, 0}
	return &library{sources: src, loaded: map[fontKey]*loadedFont{}}
})

// get returns the parsed font of key, parsing it on first use.
func (l *library) get(key fontKey) (*loadedFont, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f, ok := l.loaded[key]; ok {
		return f, nil
	}
	src, ok := l.sources[key]
	if !ok {
		return nil, fmt.Errorf("no font for %s (bold %t, region %d)", key.family, key.bold, key.region)
	}
	loaders, err := ot.NewLoaders(bytes.NewReader(src.data))
	if err != nil || src.index >= len(loaders) {
		return nil, fmt.Errorf("read font %s: %v", src.name, err)
	}
	ft, err := font.NewFont(loaders[src.index])
	if err != nil {
		return nil, fmt.Errorf("parse font %s: %w", src.name, err)
	}
	f := &loadedFont{name: src.name, font: ft, upem: float64(ft.Upem()), cjk: key.family == famCJK}
	l.loaded[key] = f
	return f, nil
}

// familyOf returns the font family that draws script, or "" for the
// characters that belong to no script (spaces, digits, punctuation,
// combining marks), which take the family of the text around them.
func familyOf(r rune) string {
	switch {
	case unicode.Is(unicode.Latin, r), unicode.Is(unicode.Greek, r), unicode.Is(unicode.Cyrillic, r):
		return famLatin
	case unicode.Is(unicode.Devanagari, r):
		return famDevanagari
	case unicode.Is(unicode.Gurmukhi, r):
		return famGurmukhi
	case unicode.Is(unicode.Tamil, r):
		return famTamil
	case unicode.Is(unicode.Telugu, r):
		return famTelugu
	case unicode.Is(unicode.Thai, r):
		return famThai
	case unicode.Is(unicode.Han, r), unicode.Is(unicode.Hiragana, r), unicode.Is(unicode.Katakana, r),
		unicode.Is(unicode.Hangul, r), unicode.Is(unicode.Bopomofo, r):
		return famCJK
	}
	return ""
}

// regionLanguage is the language CJK text of each region is shaped in:
// it selects the region's designs through the fonts' 'locl' feature.
var regionLanguage = map[region]language.Language{
	regionJP: language.NewLanguage("ja"), regionKR: language.NewLanguage("ko"),
	regionSC: language.NewLanguage("zh-Hans"), regionTC: language.NewLanguage("zh-Hant"),
	regionHK: language.NewLanguage("zh-Hant-HK"),
}

// regionFor picks the CJK design of a text in language lang: the
// learner's language when it is Chinese, Japanese or Korean, else the
// text's own clues (kana: Japanese, Hangul: Korean), else Simplified Chinese.
func regionFor(lang string, text []rune) region {
	switch lang {
	case "ja":
		return regionJP
	case "ko":
		return regionKR
	case "zh-hans":
		return regionSC
	case "zh-hant":
		return regionTC
	case "zh-hant-hk":
		return regionHK
	}
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Hiragana, r), unicode.Is(unicode.Katakana, r):
			return regionJP
		case unicode.Is(unicode.Hangul, r):
			return regionKR
		}
	}
	return regionSC
}
