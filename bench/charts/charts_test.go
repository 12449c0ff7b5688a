package charts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readSVG reads path and fails unless it is an SVG document.
func readSVG(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, "<svg") || !strings.HasSuffix(strings.TrimSpace(s), "</svg>") {
		t.Fatalf("%s is not an SVG document: %.200s", path, s)
	}
	return s
}

func TestLinesWritesSVGWithNamesAndLabels(t *testing.T) {
	for _, logX := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "lines.svg")
		err := Lines(path, "Users page p50", "users in the tenant", "p50 (ms)", logX, []Series{
			{Name: "page one", X: []float64{1000, 100000, 1000000}, Y: []float64{10.4, 10.8, 11.4}},
			{Name: "last page", X: []float64{1000, 100000, 1000000}, Y: []float64{1.9, 11.1, 9.7}},
		})
		if err != nil {
			t.Fatalf("logX %v: %v", logX, err)
		}
		svg := readSVG(t, path)
		for _, want := range []string{"Users page p50", "users in the tenant", "p50 (ms)", "page one", "last page"} {
			if !strings.Contains(svg, want) {
				t.Errorf("logX %v: the SVG lacks %q", logX, want)
			}
		}
		// The log axis labels its decades in full (1,000,000); a linear one has no decade 1,000,000.
		if got := strings.Contains(svg, "1,000,000"); got != logX {
			t.Errorf("logX %v: decade tick 1,000,000 present = %v", logX, got)
		}
	}
}

func TestBarsWritesSVGWithNamesAndLabels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bars.svg")
	err := Bars(path, "Batch writes", "p50 (ms)", []string{"plain", "codes", "passwords"}, []Series{
		{Name: "learngate", Y: []float64{62.7, 80.1, 300}},
		{Name: "baseline", Y: []float64{53.6, 0, 0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	svg := readSVG(t, path)
	for _, want := range []string{"Batch writes", "p50 (ms)", "learngate", "baseline", "plain", "codes", "passwords"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
}

func TestChartsRefuseMismatchedLengths(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]func(path string) error{
		"lines x longer than y": func(p string) error {
			return Lines(p, "t", "x", "y", false, []Series{{Name: "a", X: []float64{1, 2, 3}, Y: []float64{1, 2}}})
		},
		"lines no points": func(p string) error {
			return Lines(p, "t", "x", "y", false, []Series{{Name: "a"}})
		},
		"lines no series": func(p string) error { return Lines(p, "t", "x", "y", false, nil) },
		"lines log x of 0": func(p string) error {
			return Lines(p, "t", "x", "y", true, []Series{{Name: "a", X: []float64{0, 10}, Y: []float64{1, 2}}})
		},
		"bars fewer values than labels": func(p string) error {
			return Bars(p, "t", "y", []string{"a", "b"}, []Series{{Name: "s", Y: []float64{1}}})
		},
		"bars more values than labels": func(p string) error {
			return Bars(p, "t", "y", []string{"a"}, []Series{{Name: "s", Y: []float64{1, 2}}})
		},
		"bars no labels": func(p string) error { return Bars(p, "t", "y", nil, []Series{{Name: "s"}}) },
	}
	for name, draw := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".svg")
		if err := draw(path); err == nil {
			t.Errorf("%s: no error", name)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: a file was written (%v)", name, err)
		}
	}
	if err := Lines(filepath.Join(dir, "x.png"), "t", "x", "y", false,
		[]Series{{Name: "a", X: []float64{1}, Y: []float64{1}}}); err == nil {
		t.Error("a .png path was accepted")
	}
}

func TestTickLabelsArePlainNumbers(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 2500: "2,500", 1e6: "1,000,000", 0.1 + 0.2: "0.3", 12.5: "12.5", -1500: "-1,500"} {
		if got := thousands(v); got != want {
			t.Errorf("thousands(%v) = %q, want %q", v, got, want)
		}
	}
}
