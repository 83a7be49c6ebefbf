package browsertest

import (
	_ "embed"
	"fmt"
	"strings"
)

// axeSource is axe-core's browser build, vendored by scripts/axe.sh (MPL-2.0, see
// vendor/axe-core/LICENSE).
//
//go:embed vendor/axe-core/axe.min.js
var axeSource string

// A Violation is one axe-core rule that the page breaks, with the elements that break it.
type Violation struct {
	ID      string `json:"id"`
	Impact  string `json:"impact"` // minor, moderate, serious or critical
	Help    string `json:"help"`
	HelpURL string `json:"helpUrl"`
	Nodes   []struct {
		Target         []any  `json:"target"` // CSS selectors, nested in arrays for shadow DOM and frames
		FailureSummary string `json:"failureSummary"`
	} `json:"nodes"`
}

// Serious tells whether the violation is one the tests refuse (serious or critical).
func (v Violation) Serious() bool { return v.Impact == "serious" || v.Impact == "critical" }

func (v Violation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s, %s", v.ID, v.Impact, v.Help, v.HelpURL)
	for i, n := range v.Nodes {
		if i == 5 {
			fmt.Fprintf(&b, "\n    … and %d more elements", len(v.Nodes)-i)
			break
		}
		var lines []string
		for _, l := range strings.Split(n.FailureSummary, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		summary := strings.Join(lines, " ")
		fmt.Fprintf(&b, "\n    %v: %s", n.Target, summary)
	}
	return b.String()
}

// Accessibility runs axe-core's rules (those on by default: WCAG 2.x A and AA and best practices)
// over the page as it is now and returns the violations, injecting axe first if needed.
func (p *Page) Accessibility() []Violation {
	p.t.Helper()
	var present bool
	p.Eval(`typeof window.axe === 'object'`, &present)
	if !present {
		p.Eval(axeSource+"\n;true", nil)
	}
	var violations []Violation
	p.Eval(`axe.run(document, {resultTypes: ['violations']}).then(r => r.violations)`, &violations)
	return violations
}

// CheckAccessibility fails the test on every serious or critical axe-core violation on the page
// as it is now (name says which view it was) and logs the lesser ones.
func (p *Page) CheckAccessibility(name string) {
	p.t.Helper()
	for _, v := range p.Accessibility() {
		if v.Serious() {
			p.t.Errorf("accessibility, %s %s: %s", p.Viewport.Name, name, v)
		} else {
			p.t.Logf("accessibility (not failing), %s %s: %s", p.Viewport.Name, name, v)
		}
	}
}
