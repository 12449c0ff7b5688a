package certificate_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"learngate/certificate"
	"learngate/certificate/pdftest"
)

// names are learner names the certificates must print, by language.
var names = map[string]string{
	"english":  "Ann Smith",
	"maori":    "Mereana Tūhoe-Ōtaki Ātaahua Ēnoka Īhaia Ūpoko",
	"samoan":   "Faʻafetai Sāmoa Tuiʻāsau",
	"japanese": "山田 太郎 やまだ たろう ヤマダ",
	"hindi":    "प्रिया शर्मा हिन्दी",
}

func faces(t *testing.T) *certificate.Faces {
	t.Helper()
	f, err := certificate.LoadFaces()
	if err != nil {
		t.Fatalf("LoadFaces: %v", err)
	}
	return f
}

func TestFontsCoverEveryCharacterOfTheNames(t *testing.T) {
	f := faces(t)
	for lang, name := range names {
		t.Run(lang, func(t *testing.T) {
			if m := certificate.Missing(f.Regular, name); len(m) > 0 {
				t.Errorf("regular faces lack %q", string(m))
			}
			if m := certificate.Missing(f.Bold, name); len(m) > 0 {
				t.Errorf("bold faces lack %q", string(m))
			}
		})
	}
	if m := certificate.Missing(f.Regular, "Ann 🙂"); !slices.Equal(m, []rune{'🙂'}) {
		t.Errorf("Missing(emoji) = %q, want the emoji", string(m))
	}
}

func TestRunsPickAFontPerScript(t *testing.T) {
	f := faces(t)
	family := func(r certificate.Run) string { return r.Face.Family + ":" + r.Text }
	cases := []struct {
		text string
		want []string
	}{
		{"Tūhoe Faʻafetai", []string{"NotoSans:Tūhoe Faʻafetai"}},
		{"山田 Taro", []string{"DroidSansFallback:山田 ", "NotoSans:Taro"}},
		{"Dr प्रिया", []string{"NotoSans:Dr ", "NotoSansDevanagari:प्रिया"}},
		{"Ann\n🙂", []string{"NotoSans:Ann ?"}},
	}
	for _, c := range cases {
		var got []string
		for _, r := range certificate.Runs(f.Regular, c.text) {
			got = append(got, family(r))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Runs(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func sample(learner string) certificate.Data {
	until := time.Date(2027, 5, 31, 12, 0, 0, 0, time.UTC)
	return certificate.Data{
		Organisation: "Acme Ltd", Learner: learner, Kind: certificate.Topic, Title: "Fire safety at work",
		Conquered: time.Date(2025, 5, 31, 20, 0, 0, 0, time.UTC), CertifiedUntil: &until,
		CertificateID: "LG-7K3M-Q9XD-2PWA", Issued: time.Date(2025, 6, 2, 9, 0, 0, 0, time.UTC),
		Location: auckland,
	}
}

// auckland is the time zone of the sample's dates: 31 May 20:00 UTC is 1 June there.
var auckland = time.FixedZone("NZST", 12*3600)

// lineTexts is the text of each drawing operation of an uncompressed certificate.
func lineTexts(t *testing.T, pdf []byte) []string {
	t.Helper()
	lines, err := pdftest.Text(pdf)
	if err != nil {
		t.Fatalf("read text: %v", err)
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Text
	}
	return out
}

func TestRenderPrintsEveryNameInItsFonts(t *testing.T) {
	for lang, name := range names {
		t.Run(lang, func(t *testing.T) {
			pdf, err := certificate.Render(sample(name), certificate.Options{Uncompressed: true})
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
				t.Fatalf("output does not start with %%PDF-: %q", pdf[:min(len(pdf), 16)])
			}
			text := strings.Join(lineTexts(t, pdf), "")
			for _, want := range []string{name, "Fire safety at work", "Acme Ltd", "has conquered the topic",
				"Conquered on 1 June 2025", "Certified until 1 June 2027", "Certificate ID LG-7K3M-Q9XD-2PWA"} {
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q:\n%s", want, text)
				}
			}
			if strings.ContainsRune(text, certificate.Replacement) {
				t.Errorf("text holds a replacement character: %s", text)
			}
			info, err := pdftest.Info(pdf)
			if err != nil {
				t.Fatal(err)
			}
			if info["Title"] != "Certificate LG-7K3M-Q9XD-2PWA" || info["Subject"] != name+": Fire safety at work" ||
				info["Author"] != "Acme Ltd" {
				t.Errorf("info = %q", info)
			}
		})
	}
}

func TestRenderEmbedsOnlyTheFontsItUses(t *testing.T) {
	embedded := func(pdf []byte) []string {
		var out []string
		for _, f := range []string{"NotoSans", "NotoSans-Bold", "NotoSansDevanagari", "DroidSansFallback"} {
			if bytes.Contains(pdf, []byte("/FontName /"+f+"\n")) {
				out = append(out, f)
			}
		}
		return out
	}
	cases := map[string][]string{
		"english":  {"NotoSans", "NotoSans-Bold"},
		"japanese": {"NotoSans", "NotoSans-Bold", "DroidSansFallback"},
		"hindi":    {"NotoSans", "NotoSans-Bold", "NotoSansDevanagari"},
	}
	for lang, want := range cases {
		pdf, err := certificate.Render(sample(names[lang]), certificate.Options{})
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		if got := embedded(pdf); !slices.Equal(got, want) {
			t.Errorf("%s embeds %q, want %q", lang, got, want)
		}
		t.Logf("%s: %d bytes", lang, len(pdf))
	}
}

func TestRenderCompressedKeepsTheIDInTheInfo(t *testing.T) {
	pdf, err := certificate.Render(sample("Ann Smith"), certificate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) || !bytes.Contains(pdf, []byte("/FlateDecode")) {
		t.Fatal("compressed output is not a PDF with compressed streams")
	}
	if info, err := pdftest.Info(pdf); err != nil || info["Title"] != "Certificate LG-7K3M-Q9XD-2PWA" {
		t.Fatalf("info = %q, %v", info, err)
	}
}

func TestRenderWithoutCertifiedUntilAndForAPathway(t *testing.T) {
	d := sample("Ann Smith")
	d.CertifiedUntil = nil
	d.Kind = certificate.Pathway
	pdf, err := certificate.Render(d, certificate.Options{Uncompressed: true})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(lineTexts(t, pdf), "\n")
	if strings.Contains(text, "Certified until") || !strings.Contains(text, "has conquered the pathway") {
		t.Errorf("text:\n%s", text)
	}
}

func TestRenderShrinksLongLinesToFit(t *testing.T) {
	d := sample("Ann Smith")
	d.Title = strings.Repeat("Advanced occupational health and safety ", 4)
	pdf, err := certificate.Render(d, certificate.Options{Uncompressed: true})
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pdftest.Text(pdf)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
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
