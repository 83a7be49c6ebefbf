package terminal_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/terminal"
)

func TestLoadAndBuild(t *testing.T) {
	body := mustRead(t, "in_yard.json")
	var key string
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {
		key = r.Header.Get("X-API-Key")
		w.Write(body)
	})
	cfg, err := terminal.Load(strings.NewReader(`{"comment": "test", "terminals": {
		"USLAX/APMT": {"base_url": "` + base + `", "headers_env": {"X-API-Key": "APMT_KEY"}, "rate": 2, "burst": 1, "timeout": "5s"},
		"FIRMS:W183": {"base_url": "` + base + `"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	dir := terminal.NewDirectory()
	if err := cfg.Build(dir, func(name string) string { return map[string]string{"APMT_KEY": "k1"}[name] }, nil); err != nil {
		t.Fatal(err)
	}
	src := dir.Source(boxwatch.TerminalRef{LOCODE: "USLAX", SMDGCode: "APMT", FIRMSCode: "W185"})
	if src == nil || dir.Source(boxwatch.TerminalRef{LOCODE: "USLGB", FIRMSCode: "W183"}) == nil ||
		dir.Source(boxwatch.TerminalRef{LOCODE: "USLAX", SMDGCode: "TRAP"}) != nil || dir.Len() != 2 {
		t.Fatalf("directory of %d", dir.Len())
	}
	if _, err := src.Check(context.Background(), query); err != nil || key != "k1" {
		t.Fatalf("check: %v, key %q", err, key)
	}
}

func TestLoadRefuses(t *testing.T) {
	for name, body := range map[string]string{
		"UnknownMember": `{"terminals": {"USLAX/APMT": {"base_url": "https://x", "password": "p"}}}`,
		"BadKey":        `{"terminals": {"APMT": {"base_url": "https://x"}}}`,
		"LowerKey":      `{"terminals": {"uslax/apmt": {"base_url": "https://x"}}}`,
		"BadFIRMS":      `{"terminals": {"FIRMS:W18": {"base_url": "https://x"}}}`,
		"NotJSON":       `terminals: []`,
	} {
		if _, err := terminal.Load(strings.NewReader(body)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for name, body := range map[string]string{
		"UnsetVariable": `{"terminals": {"USLAX/APMT": {"base_url": "https://x", "headers_env": {"X-API-Key": "UNSET"}}}}`,
		"BadTimeout":    `{"terminals": {"USLAX/APMT": {"base_url": "https://x", "timeout": "soon"}}}`,
		"BadURL":        `{"terminals": {"USLAX/APMT": {"base_url": "x"}}}`,
	} {
		cfg, err := terminal.Load(strings.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := cfg.Build(terminal.NewDirectory(), func(string) string { return "" }, nil); err == nil {
			t.Errorf("%s: built", name)
		}
	}
}
