// Package charts draws the benchmark's figures as SVG files with
// gonum.org/v1/plot: line charts of curves (a measure against a size, on a
// log scale when the sizes span decades) and grouped bar charts of
// side-by-side scenarios. It knows nothing of the benchmark itself: callers
// pass named series of numbers.
package charts

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one named line (Lines: the points X[i], Y[i]) or one colour of
// bars (Bars: Y[i] is the bar of the i-th label; X is not used).
type Series struct {
	Name string
	X, Y []float64
}

// Chart size of every figure.
const (
	width  = 16 * vg.Centimeter
	height = 10 * vg.Centimeter
)

// Lines writes to path (an .svg file) a line chart of series: one line per
// series with its points marked, a legend of the series' names, the axis
// labels xLabel and yLabel, the y axis starting at 0, and the x axis on a
// log scale when logX is set (every X must then be positive). Series must
// be non-empty with as many X as Y values, all finite.
func Lines(path, title, xLabel, yLabel string, logX bool, series []Series) error {
	if err := checkPath(path); err != nil {
		return err
	}
	if len(series) == 0 {
		return errors.New("charts: no series")
	}
	p := newPlot(title, xLabel, yLabel)
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plainTicks{plot.LogTicks{Prec: -1}}
	}
	for i, s := range series {
		if len(s.X) == 0 || len(s.X) != len(s.Y) {
			return fmt.Errorf("charts: series %q has %d x and %d y values", s.Name, len(s.X), len(s.Y))
		}
		xys := make(plotter.XYs, len(s.X))
		for j := range s.X {
			if !finite(s.X[j]) || !finite(s.Y[j]) {
				return fmt.Errorf("charts: series %q: point %d (%g, %g) is not finite", s.Name, j, s.X[j], s.Y[j])
			}
			if logX && s.X[j] <= 0 {
				return fmt.Errorf("charts: series %q: x %g on a log scale must be positive", s.Name, s.X[j])
			}
			xys[j] = plotter.XY{X: s.X[j], Y: s.Y[j]}
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return fmt.Errorf("charts: series %q: %w", s.Name, err)
		}
		line.Color, points.Color = plotutil.Color(i), plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(s.Name, line, points)
	}
	fromZero(p, len(series))
	return save(p, width, path)
}

// Bars writes to path (an .svg file) a grouped bar chart: one group per
// label (named under it on the x axis), one bar per series in each group,
// Series.Y[i] being the bar of labels[i]; a legend of the series' names,
// the y axis labelled yLabel and starting at 0. Every series needs one
// finite, non-negative Y per label.
func Bars(path, title, yLabel string, labels []string, series []Series) error {
	if err := checkPath(path); err != nil {
		return err
	}
	if len(labels) == 0 || len(series) == 0 {
		return fmt.Errorf("charts: %d labels and %d series: need at least one of each", len(labels), len(series))
	}
	p := newPlot(title, "", yLabel)
	barWidth := vg.Points(math.Min(24, 300/float64(len(labels)*len(series))))
	for i, s := range series {
		if len(s.Y) != len(labels) {
			return fmt.Errorf("charts: series %q has %d values for %d labels", s.Name, len(s.Y), len(labels))
		}
		for j, y := range s.Y {
			if !finite(y) || y < 0 {
				return fmt.Errorf("charts: series %q: value %g of %q is not a finite non-negative number", s.Name, y, labels[j])
			}
		}
		bars, err := plotter.NewBarChart(plotter.Values(s.Y), barWidth)
		if err != nil {
			return fmt.Errorf("charts: series %q: %w", s.Name, err)
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		// Centre the group on its label: bar i sits i widths right of the first.
		bars.Offset = barWidth * vg.Length(2*i-len(series)+1) / 2
		p.Add(bars)
		p.Legend.Add(s.Name, bars)
	}
	wrapped := make([]string, len(labels))
	for i, l := range labels {
		wrapped[i] = wrap(l)
	}
	p.NominalX(wrapped...)
	fromZero(p, len(series))
	return save(p, max(width, vg.Length(len(labels))*3*vg.Centimeter), path)
}

// save draws p as an SVG of w × height into path, with a margin on the
// right for the last x tick label (centred on the axis's end, it would
// otherwise be cut) and above the title.
func save(p *plot.Plot, w vg.Length, path string) error {
	c := vgsvg.New(w, height)
	p.Draw(draw.Crop(draw.New(c), vg.Millimeter, -8*vg.Millimeter, vg.Millimeter, -2*vg.Millimeter))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("charts: write %s: %w", path, err)
	}
	return f.Close()
}

// newPlot is a plot with the title, axis labels, a grid and the legend at
// the top left.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.Padding = vg.Points(2)
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 230}
	grid.Horizontal.Color = color.Gray{Y: 230}
	p.Add(grid)
	return p
}

// fromZero starts the y axis at 0, leaves room above the highest value
// for the legend's entries (one line each) and labels the ticks as plain
// numbers (2,500 rather than 2500.00).
func fromZero(p *plot.Plot, entries int) {
	p.Y.Min = 0
	if p.Y.Max <= 0 {
		p.Y.Max = 1
	}
	p.Y.Max *= 1.1 + 0.08*float64(entries)
	p.Y.Tick.Marker = plainTicks{plot.DefaultTicks{}}
}

// checkPath refuses a file that would not be written as SVG (plot.Save
// picks the format from the extension).
func checkPath(path string) error {
	if !strings.EqualFold(filepath.Ext(path), ".svg") {
		return fmt.Errorf("charts: %s: the file must end in .svg", path)
	}
	return nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// plainTicks labels an axis's ticks as plain numbers with thousands
// separators (1,000,000 rather than 1e+06, 2,500 rather than 2500.00).
type plainTicks struct{ plot.Ticker }

// Ticks returns the wrapped ticker's ticks, relabelled.
func (t plainTicks) Ticks(min, max float64) []plot.Tick {
	ticks := t.Ticker.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = thousands(ticks[i].Value)
		}
	}
	return ticks
}

// thousands formats v with "," between groups of three digits (whole
// numbers) or in decimals (fractions: 0.4, 2.5).
func thousands(v float64) string {
	// Ticks are multiples of steps such as 0.1: round away the float noise.
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 10, 64), 64)
	if v != math.Trunc(v) || math.Abs(v) >= 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	s := strconv.FormatInt(int64(math.Abs(v)), 10)
	var b strings.Builder
	if v < 0 {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// wrap breaks a bar label longer than 14 characters onto two lines at the
// space nearest its middle, so neighbouring labels do not overlap.
func wrap(label string) string {
	if len(label) <= 14 || strings.Contains(label, "\n") {
		return label
	}
	best := -1
	for i, c := range label {
		if c == ' ' && (best < 0 || abs(i-len(label)/2) < abs(best-len(label)/2)) {
			best = i
		}
	}
	if best < 0 {
		return label
	}
	return label[:best] + "\n" + label[best+1:]
}

func abs(i int) int { return max(i, -i) }
