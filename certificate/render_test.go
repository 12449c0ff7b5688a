package certificate_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"learngate"
	"learngate/certificate"
	"learngate/certificate/pdftest"
)

// script is one script of the learners' languages: a learner's name and a
// title in it, and the learner's language.
type script struct {
	name, lang, learner, title string
}

// scripts are the certificates the tests render, one a script of
// input.Languages (the names and titles of issue 30, and their like).
var scripts = []script{
	{"latin-english", "en", "Ann Smith", "Fire safety at work"},
	{"latin-german", "de", "Jürgen Weiß", "Brandschutz am Arbeitsplatz"},
	{"latin-maori", "mi", "Mereana Tūhoe-Ōtaki", "Haumaru ahi"},
	{"latin-samoan", "sm", "Faʻafetai Sāmoa Tuiʻāsau", "Saogalemū mai afi"},
	// Vietnamese typed with combining marks (NFD), not precomposed.
	{"latin-vietnamese", "vi", "Nguye\u0302\u0303n Thi\u0323 Minh Khai", "An toa\u0300n pho\u0300ng cha\u0301y"},
	{"devanagari-hindi", "hi-IN", "अनुराधा शर्मा", "अग्नि सुरक्षा"},
	{"devanagari-nepali", "ne", "सुशीला कार्की", "अग्नि सुरक्षा र क्षमता"},
	{"gurmukhi-punjabi", "pa-IN", "ਗੁਰਪ੍ਰੀਤ ਸਿੰਘ", "ਅੱਗ ਸੁਰੱਖਿਆ"},
	{"thai", "th", "สมชาย ใจดี", "ความปลอดภัยจากอัคคีภัย"},
	{"tamil", "ta", "தமிழ்செல்வி", "தீ பாதுகாப்பு"},
	{"telugu", "te", "శ్రీనివాస్", "అగ్ని భద్రత"},
	{"hangul-korean", "ko", "김민준", "화재 안전 교육"},
	{"japanese", "ja", "山田 太郎", "防火安全とリスク管理"},
	{"chinese-simplified", "zh-Hans", "王小明", "消防安全与应急处理"},
	{"chinese-hong-kong", "zh-Hant-HK", "陳大文", "職業安全及健康"},
}

func sample(learner, lang string) certificate.Data {
	until := time.Date(2027, 5, 31, 12, 0, 0, 0, time.UTC)
	return certificate.Data{
		Organisation: "Acme Ltd", Learner: learner, Language: lang, Kind: certificate.Topic, Title: "Fire safety at work",
		Conquered: time.Date(2025, 5, 31, 20, 0, 0, 0, time.UTC), CertifiedUntil: &until,
		CertificateID: "LG-7K3M-Q9XD-2PWA", Issued: time.Date(2025, 6, 2, 9, 0, 0, 0, time.UTC),
		Location: auckland,
	}
}

// auckland is the time zone of the sample's dates: 31 May 20:00 UTC is 1 June there.
var auckland = time.FixedZone("NZST", 12*3600)

// lines is the text of each line of an uncompressed certificate.
func lines(t *testing.T, pdf []byte) []string {
	t.Helper()
	ls, err := pdftest.Text(pdf)
	if err != nil {
		t.Fatalf("read text: %v", err)
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Text
	}
	return out
}

func TestRenderWritesEveryLineInTheLearnersLanguage(t *testing.T) {
	cases := map[string][]string{
		"en": {"CERTIFICATE OF ACHIEVEMENT", "This certifies that", "Ann Smith", "has conquered the topic",
			"Fire safety at work", "Conquered on 1 June 2025", "Certified until 1 June 2027", "Acme Ltd",
			"Certificate ID LG-7K3M-Q9XD-2PWA"},
		"de": {"ZERTIFIKAT", "Hiermit wird bestätigt, dass", "Ann Smith", "das folgende Thema abgeschlossen hat",
			"Fire safety at work", "Abgeschlossen am 1. Juni 2025", "Zertifiziert bis 1. Juni 2027", "Acme Ltd",
			"Zertifikat-ID LG-7K3M-Q9XD-2PWA"},
		"ja": {"修了証", "これは、次の方が", "Ann Smith", "次のトピックを修了したことを証明するものです",
			"Fire safety at work", "修了日 2025年6月1日", "認定有効期限 2027年6月1日", "Acme Ltd", "証明書ID LG-7K3M-Q9XD-2PWA"},
		// No translation yet: English.
		"to": {"CERTIFICATE OF ACHIEVEMENT", "This certifies that", "Ann Smith", "has conquered the topic",
			"Fire safety at work", "Conquered on 1 June 2025", "Certified until 1 June 2027", "Acme Ltd",
			"Certificate ID LG-7K3M-Q9XD-2PWA"},
	}
	for lang, want := range cases {
		pdf, err := certificate.Render(sample("Ann Smith", lang), certificate.Options{Uncompressed: lang != "de"})
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		if got := lines(t, pdf); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: lines\n%s\nwant\n%s", lang, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		info, err := pdftest.Info(pdf)
		if err != nil {
			t.Fatal(err)
		}
		if info["Title"] != "Certificate LG-7K3M-Q9XD-2PWA" || info["Subject"] != "Ann Smith: Fire safety at work" ||
			info["Author"] != "Acme Ltd" {
			t.Errorf("%s: info = %q", lang, info)
		}
	}
}

func TestRenderASingleNameHasNoDanglingSpace(t *testing.T) {
	for _, name := range []string{"Madonna", " Madonna", "Madonna  ", "김민준"} {
		pdf, err := certificate.Render(sample(name, "en"), certificate.Options{Uncompressed: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := lines(t, pdf)[2]; got != strings.TrimSpace(name) {
			t.Errorf("name line %q, want %q", got, strings.TrimSpace(name))
		}
	}
}

func TestRenderRefusesCharactersNoFontHas(t *testing.T) {
	d := sample("Ann 🙂 Smith", "en")
	_, err := certificate.Render(d, certificate.Options{})
	var missing *certificate.MissingCharactersError
	if !errors.As(err, &missing) || !learngate.IsCode(err, learngate.Invalid) {
		t.Fatalf("err = %v, want an Invalid MissingCharactersError", err)
	}
	want := "The learner name has characters that no certificate font has: 🙂 (U+1F642)"
	if msg := learngate.ErrorMessage(err); msg != want {
		t.Errorf("message %q, want %q", msg, want)
	}
	// A character outside its script's font comes from another font: no error.
	if _, err := certificate.Render(sample("ＡＮＮ Smith – प्रिया", "en"), certificate.Options{}); err != nil {
		t.Errorf("fullwidth Latin: %v", err)
	}
	d = sample("Ann Smith", "en")
	d.Title = "Safety ⛄ ⛄ 🙂"
	if _, err := certificate.Render(d, certificate.Options{}); !errors.As(err, &missing) || missing.Field != "title" ||
		string(missing.Chars) != "⛄🙂" {
		t.Errorf("title: err = %v", err)
	}
}

func TestRenderEmbedsSubsetsOfTheFontsItUses(t *testing.T) {
	cases := map[string][]string{
		"en":    {"NotoSans-Bold", "NotoSans-Regular"},
		"ja":    {"NotoSansCJK-Bold", "NotoSans-Bold", "NotoSansCJKjp-Regular", "NotoSans-Regular"},
		"hi-IN": {"NotoSansDevanagari-Bold", "NotoSansDevanagari-Regular", "NotoSans-Bold", "NotoSans-Regular"},
	}
	for lang, want := range cases {
		pdf, err := certificate.Render(sample("Ann Smith", lang), certificate.Options{})
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		for _, f := range want {
			if !bytes.Contains(pdf, []byte("+"+f+" ")) {
				t.Errorf("%s: no subset of %s", lang, f)
			}
		}
		if n := bytes.Count(pdf, []byte("/Subtype /Type0")); n != len(want) {
			t.Errorf("%s: %d fonts, want %d", lang, n, len(want))
		}
		if len(pdf) > 120_000 {
			t.Errorf("%s: %d bytes: are the fonts subset?", lang, len(pdf))
		}
		t.Logf("%s: %d bytes", lang, len(pdf))
	}
}

func TestRenderWithoutCertifiedUntilAndForAPathway(t *testing.T) {
	d := sample("Ann Smith", "en")
	d.CertifiedUntil = nil
	d.Kind = certificate.Pathway
	pdf, err := certificate.Render(d, certificate.Options{Uncompressed: true})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(lines(t, pdf), "\n")
	if strings.Contains(text, "Certified until") || !strings.Contains(text, "has conquered the pathway") {
		t.Errorf("text:\n%s", text)
	}
}

func TestRenderShrinksLongLinesToFit(t *testing.T) {
	d := sample("Ann Smith", "en")
	d.Title = strings.Repeat("Advanced occupational health and safety ", 4)
	pdf, err := certificate.Render(d, certificate.Options{Uncompressed: true})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := pdftest.Text(pdf)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		if strings.HasPrefix(l.Text, "Advanced") {
			if l.Size >= 24 || l.Size < 5 {
				t.Errorf("long title drawn at %g pt, want shrunk below 24", l.Size)
			}
			return
		}
	}
	t.Fatal("title not found")
}

func TestRenderRefusesIncompleteData(t *testing.T) {
	for name, d := range map[string]certificate.Data{
		"no learner": {Title: "T", CertificateID: "X"},
		"no title":   {Learner: "Ann", CertificateID: "X"},
		"no id":      {Learner: "Ann", Title: "T"},
	} {
		if _, err := certificate.Render(d, certificate.Options{}); err == nil {
			t.Errorf("%s: Render succeeded", name)
		}
	}
}

func TestRenderIsSafeForConcurrentUse(t *testing.T) {
	errs := make(chan error, len(scripts))
	for _, s := range scripts { // the worker renders several jobs at once
		go func() {
			d := sample(s.learner, s.lang)
			d.Title = s.title
			_, err := certificate.Render(d, certificate.Options{})
			errs <- err
		}()
	}
	for range scripts {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
