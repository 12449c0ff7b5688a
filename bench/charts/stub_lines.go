// Package charts draws the benchmark's line charts as SVG files.
//
// This file is a stand-in for the charts package built on another branch:
// it has the same API and draws nothing. Drop it when that branch is merged.
package charts

// Series is one line of a chart: its name in the legend and its points.
type Series struct {
	Name string
	X, Y []float64
}

// Lines writes an SVG line chart of series to path (a stand-in: it writes nothing).
func Lines(path, title, xLabel, yLabel string, logX bool, series []Series) error {
	return nil
}
