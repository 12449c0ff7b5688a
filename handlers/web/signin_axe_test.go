//go:build slow

package web

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// axeScript is axe-core (tools/package.json), installed into .data by
// scripts/node-tools.sh.
var axeScript = filepath.Join("..", "..", ".data", "node-tools", "node_modules", "axe-core", "axe.min.js")

// axeViolation is one rule axe-core found broken on a page.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// checkAccessibility runs axe-core on the browser's current page, as a
// subtest: every violation is logged, and one of impact serious or
// critical fails it. Without axe-core the subtest is skipped, visibly.
func checkAccessibility(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	t.Run("axe "+page, func(t *testing.T) {
		src, err := os.ReadFile(axeScript)
		if err != nil {
			t.Skipf("axe-core is not installed (%v): run scripts/node-tools.sh (needs npm)", err)
		}
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](string(src))); err != nil {
			t.Fatalf("load axe-core: %v", err)
		}
		found, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](`axe.run(document, {resultTypes: ["violations"]}).then(r =>
			r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help, nodes: v.nodes.map(n => n.target.join(" "))})))`,
			chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("axe.run: %v", err)
		}
		t.Logf("axe-core on %s: %d violations", page, len(found))
		for _, v := range found {
			msg := v.Impact + " " + v.ID + ": " + v.Help + " (" + strings.Join(v.Nodes, ", ") + ")"
			if v.Impact == "serious" || v.Impact == "critical" {
				t.Errorf("%s", msg)
			} else {
				t.Logf("%s", msg)
			}
		}
	})
}
