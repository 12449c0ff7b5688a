package certificate_test

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"learngate/certificate"
)

// update rewrites the reference images:
//
//	go test ./certificate -run TestCertificatesLookLikeTheirReferences -update
var update = flag.Bool("update", false, "rewrite the reference images in docs/images/certificates")

// referenceDir holds the reference images, which docs/api.md shows.
const referenceDir = "../docs/images/certificates"

// rasterDPI is the resolution of the reference images: A4 landscape is
// 842 × 595 pixels.
const rasterDPI = "72"

// The difference budget: a pixel differs when one of its channels differs
// by more than pixelTolerance; at most maxDifferentPixels may differ (a
// glyph drawn wrongly, such as a visible halant instead of a reph, changes
// well over a hundred).
const (
	pixelTolerance     = 48
	maxDifferentPixels = 40
)

// needPoppler returns the paths of pdftoppm and pdftotext. When they are
// missing the test fails, unless apt-get cannot install them
// (LEARNGATE_NO_APT set, not root, or no apt-get): then it skips.
func needPoppler(t *testing.T) (string, string) {
	t.Helper()
	ppm, err1 := exec.LookPath("pdftoppm")
	txt, err2 := exec.LookPath("pdftotext")
	if err1 == nil && err2 == nil {
		return ppm, txt
	}
	_, aptErr := exec.LookPath("apt-get")
	if os.Getenv("LEARNGATE_NO_APT") != "" || os.Geteuid() != 0 || aptErr != nil {
		t.Skip("pdftoppm/pdftotext (poppler-utils) missing and apt-get not available: certificate images not checked")
	}
	t.Fatal("pdftoppm/pdftotext missing: run scripts/services.sh up (make test does), which installs poppler-utils")
	return "", ""
}

func TestCertificatesLookLikeTheirReferences(t *testing.T) {
	pdftoppm, pdftotext := needPoppler(t)
	dir := t.TempDir()
	for _, s := range scripts {
		t.Run(s.name, func(t *testing.T) {
			d := sample(s.learner, s.lang)
			d.Title = s.title
			pdf, err := certificate.Render(d, certificate.Options{})
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			file := filepath.Join(dir, s.name+".pdf")
			if err := os.WriteFile(file, pdf, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(pdftotext, file, "-").Output()
			if err != nil {
				t.Fatalf("pdftotext: %v", err)
			}
			for _, want := range []string{s.learner, s.title} {
				if !strings.Contains(string(out), want) {
					t.Errorf("pdftotext lacks %q:\n%s", want, out)
				}
			}
			prefix := filepath.Join(dir, s.name)
			if out, err := exec.Command(pdftoppm, "-r", rasterDPI, "-png", "-singlefile", file, prefix).CombinedOutput(); err != nil {
				t.Fatalf("pdftoppm: %v\n%s", err, out)
			}
			got, err := os.ReadFile(prefix + ".png")
			if err != nil {
				t.Fatal(err)
			}
			ref := filepath.Join(referenceDir, s.name+".png")
			if *update {
				if err := os.WriteFile(ref, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(ref)
			if err != nil {
				t.Fatalf("reference: %v (make it with -update)", err)
			}
			if n, err := differentPixels(got, want); err != nil || n > maxDifferentPixels {
				failed := filepath.Join(os.TempDir(), "certificate-"+s.name+".png")
				_ = os.WriteFile(failed, got, 0o644)
				t.Errorf("%d pixels differ from %s (budget %d), %v; this rendering: %s", n, ref, maxDifferentPixels, err, failed)
			}
		})
	}
}

// differentPixels counts the pixels of two PNG images that differ by more
// than pixelTolerance in a channel.
func differentPixels(a, b []byte) (int, error) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return 0, err
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	if ia.Bounds() != ib.Bounds() {
		return ia.Bounds().Dx() * ia.Bounds().Dy(), nil
	}
	n := 0
	r := ia.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if pixelDiffers(ia, ib, x, y) {
				n++
			}
		}
	}
	return n, nil
}

// pixelDiffers compares one pixel of a and b channel by channel.
func pixelDiffers(a, b image.Image, x, y int) bool {
	r1, g1, b1, _ := a.At(x, y).RGBA()
	r2, g2, b2, _ := b.At(x, y).RGBA()
	for _, d := range []int{int(r1>>8) - int(r2>>8), int(g1>>8) - int(g2>>8), int(b1>>8) - int(b2>>8)} {
		if d > pixelTolerance || d < -pixelTolerance {
			return true
		}
	}
	return false
}
