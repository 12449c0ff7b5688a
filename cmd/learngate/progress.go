package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
)

// isTerminal reports whether w is a terminal (not a pipe, a file or
// /dev/null): progress is drawn only there.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// progressBar draws "label [#####-----]  50%  500/1000 rows  120 rows/s" on
// one line of a terminal, redrawn in place at most every redrawEvery.
// On anything else it draws nothing.
type progressBar struct {
	w        io.Writer
	label    string
	unit     string
	total    int
	tty      bool
	start    time.Time
	lastDraw time.Time
	drawn    bool
	now      func() time.Time
}

// redrawEvery limits how often the bar is drawn.
const redrawEvery = 100 * time.Millisecond

// barWidth is the number of cells of the bar.
const barWidth = 30

// newProgressBar returns a bar for total units of work written to w.
func newProgressBar(w io.Writer, label, unit string, total int) *progressBar {
	return &progressBar{w: w, label: label, unit: unit, total: total, tty: isTerminal(w), start: time.Now(), now: time.Now}
}

// Update shows done units of work finished.
func (p *progressBar) Update(done int) {
	if !p.tty {
		return
	}
	now := p.now()
	if p.drawn && done < p.total && now.Sub(p.lastDraw) < redrawEvery {
		return
	}
	p.lastDraw, p.drawn = now, true
	fmt.Fprint(p.w, "\r"+p.line(done, now.Sub(p.start))+"\x1b[K") // \x1b[K clears the rest of the line
}

// line renders the bar for done units after elapsed.
func (p *progressBar) line(done int, elapsed time.Duration) string {
	fraction := 1.0
	if p.total > 0 {
		fraction = float64(min(done, p.total)) / float64(p.total)
	}
	filled := int(fraction * barWidth)
	rate := ""
	if secs := elapsed.Seconds(); secs > 0 {
		rate = fmt.Sprintf("  %.0f %s/s", float64(done)/secs, p.unit)
	}
	return fmt.Sprintf("%s [%s%s] %3.0f%%  %d/%d %s%s", p.label, strings.Repeat("#", filled),
		strings.Repeat("-", barWidth-filled), fraction*100, done, p.total, p.unit, rate)
}

// Finish ends the bar's line, if one was drawn.
func (p *progressBar) Finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}
