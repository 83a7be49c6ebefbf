package main

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/boxwatch/boxwatch/store/storetest"
)

// The Grafana dashboard and the Prometheus alerting rules shipped for operators.
const (
	dashboardFile = "../../deploy/grafana/boxwatch.json"
	alertsFile    = "../../deploy/prometheus/alerts.yml"
)

type dashboardPanel struct {
	ID      int              `json:"id"`
	Type    string           `json:"type"`
	Title   string           `json:"title"`
	Panels  []dashboardPanel `json:"panels"`
	Targets []struct {
		Expr  string `json:"expr"`
		RefID string `json:"refId"`
	} `json:"targets"`
}

// TestDashboardUsesRegisteredMetrics checks that every query of the Grafana dashboard and of the
// alerting rules names only metrics a running boxwatch exposes, scraped after some activity, so
// that renaming a metric cannot leave the dashboard silently empty or an alert silently mute.
func TestDashboardUsesRegisteredMetrics(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string           `json:"title"`
		UID    string           `json:"uid"`
		Panels []dashboardPanel `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	var rows []string
	exprs := map[string]string{} // expression → panel title
	ids := map[int]bool{}
	var walk func([]dashboardPanel)
	walk = func(ps []dashboardPanel) {
		for _, p := range ps {
			if ids[p.ID] {
				t.Errorf("panel id %d is used twice", p.ID)
			}
			ids[p.ID] = true
			if p.Type == "row" {
				rows = append(rows, p.Title)
				walk(p.Panels)
				continue
			}
			if len(p.Targets) == 0 {
				t.Errorf("panel %q has no query", p.Title)
			}
			for _, tg := range p.Targets {
				exprs[tg.Expr] = p.Title
			}
		}
	}
	walk(dash.Panels)
	if want := []string{"API", "Jobs", "Carriers", "Webhooks", "AIS", "Database", "Terminals"}; !slices.Equal(rows, want) {
		t.Errorf("rows %v, want %v", rows, want)
	}

	// The metrics registered do not depend on the database (TestAdminMetrics reads them on both).
	dsn := storetest.SQLite.DSN(t)
	s := startAdminServer(t, dsn, "--limit-create", "2")
	s.activity(t)
	// A job scheduled for later, so that the job table's gauge has a series.
	enqueueProbe(t, dsn, &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)})
	m := s.scrape(t)
	used := map[string]bool{}
	for expr, panel := range exprs {
		names := metricNames(expr)
		if len(names) == 0 {
			t.Errorf("panel %q: %q names no metric", panel, expr)
		}
		for _, name := range names {
			used[name] = true
			if !exposed(m, name) {
				t.Errorf("panel %q: %s is not exposed by boxwatch (query %q)", panel, name, expr)
			}
		}
	}
	// The alerting rules name only exposed metrics too.
	rules, err := os.ReadFile(alertsFile)
	if err != nil {
		t.Fatal(err)
	}
	alerts := regexp.MustCompile(`(?m)^\s+expr:\s*(.+)$`).FindAllStringSubmatch(string(rules), -1)
	if len(alerts) < 5 {
		t.Fatalf("%s: %d expressions", alertsFile, len(alerts))
	}
	for _, a := range alerts {
		names := metricNames(a[1])
		if len(names) == 0 {
			t.Errorf("alert %q names no metric", a[1])
		}
		for _, name := range names {
			if !exposed(m, name) {
				t.Errorf("alert %q: %s is not exposed by boxwatch", a[1], name)
			}
		}
	}
	// The other way round: every boxwatch family is on the dashboard.
	for family := range m.families {
		if strings.HasPrefix(family, "boxwatch_") && !used[family] && !used[family+"_bucket"] {
			t.Errorf("metric %s is on no panel of the dashboard", family)
		}
	}
}

// exposed reports whether a scrape has the series name: a family, a histogram's _bucket, _sum or
// _count, or Prometheus's own up.
func exposed(m series, name string) bool {
	if name == "up" || m.families[name] {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && m.families[base] {
			return true
		}
	}
	return false
}

var (
	promStrings   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promMatchers  = regexp.MustCompile(`\{[^}]*\}`)
	promRanges    = regexp.MustCompile(`\[[^\]]*\]`)
	promNumbers   = regexp.MustCompile(`\b[0-9][0-9.]*(?:[eE][+-]?[0-9]+)?[a-zA-Z]*`) // 0.99, 1e-9, 5m
	promGrouping  = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent     = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?`)
	promNotMetric = []string{"and", "or", "unless", "bool", "offset", "inf", "nan"}
)

// metricNames returns the metric names a PromQL expression reads: identifiers that are neither
// functions, aggregations, keywords, label names nor inside strings, matchers or ranges.
func metricNames(expr string) []string {
	e := promStrings.ReplaceAllString(expr, `""`)
	e = promMatchers.ReplaceAllString(e, " ")
	e = promRanges.ReplaceAllString(e, " ")
	e = promGrouping.ReplaceAllString(e, " ")
	e = promNumbers.ReplaceAllString(e, " ")
	var names []string
	for _, m := range promIdent.FindAllStringSubmatch(e, -1) {
		if m[1] != "" || slices.Contains(promNotMetric, strings.ToLower(m[0])) {
			continue // a function or aggregation, or a keyword
		}
		names = append(names, m[0])
	}
	return names
}

func TestMetricNames(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`sum by (status) (rate(boxwatch_http_requests_total[$__rate_interval]))`, []string{"boxwatch_http_requests_total"}},
		{`histogram_quantile(0.99, sum by (le, route) (rate(a_bucket{route=~"x|y"}[5m])))`, []string{"a_bucket"}},
		{`sum(rate(a{status=~"5.."}[1m])) / clamp_min(sum(rate(b[1m])), 1e-9) > 0 and on (x) c offset 5m`, []string{"a", "b", "c"}},
		{`max by (state) (boxwatch_jobs)`, []string{"boxwatch_jobs"}},
		{`count(up{job=~"$job"} == 1)`, []string{"up"}},
		{`sum(rate(a{x="1"}[5m])) by (instance) / sum(rate(b[15m])) by (scac) > 0.5`, []string{"a", "b"}},
	} {
		if got := metricNames(tc.expr); !slices.Equal(got, tc.want) {
			t.Errorf("metricNames(%q) = %v, want %v", tc.expr, got, tc.want)
		}
	}
}
