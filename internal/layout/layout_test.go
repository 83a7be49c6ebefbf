// Package layout checks the import rules that keep the architecture readable: the domain imports
// only the standard library, only the store and the queue reach a database driver or River's
// drivers and migrator, only the binary wires the HTTP API in, the API holds HTTP only, the
// journey engine none, the JSON:API documents are rendered without HTTP code (so that webhook
// delivery shares them with the API), the MCP server is a client of the API, and the tracking engine
// reaches terminals only through the domain's TerminalDirectory.
package layout

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/boxwatch/boxwatch"

type pkg struct {
	ImportPath string
	Standard   bool
	Imports    []string
}

// packages lists every package of the module with its direct (non-test) imports.
func packages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var list []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		list = append(list, p)
	}
	if len(list) < 10 {
		t.Fatalf("go list found only %d packages", len(list))
	}
	return list
}

// driverImport reports whether path is a SQL driver, a River driver or River's migrator.
func driverImport(path string) bool {
	for _, prefix := range []string{
		"modernc.org/sqlite", "github.com/jackc/pgx", "github.com/lib/pq", "github.com/mattn/go-sqlite3",
		"github.com/riverqueue/river/riverdriver", "github.com/riverqueue/river/rivermigrate",
	} {
		if path == prefix || strings.HasPrefix(path, prefix+"/") {
			return true
		}
	}
	return false
}

func TestOnlyStoreAndQueueImportDrivers(t *testing.T) {
	allowed := []string{module + "/store", module + "/queue"}
	for _, p := range packages(t) {
		for _, imp := range p.Imports {
			if driverImport(imp) && !slices.Contains(allowed, p.ImportPath) {
				t.Errorf("%s imports %s: only the store and the queue may", p.ImportPath, imp)
			}
		}
	}
}

func TestDomainImportsOnlyStandardLibrary(t *testing.T) {
	onlyStandardLibrary(t, module, "the domain")
}

// The Go client speaks HTTP to any deployment: it shares no code with the server.
func TestClientImportsOnlyStandardLibrary(t *testing.T) {
	onlyStandardLibrary(t, module+"/client", "the Go client")
}

// standardLibrary lists the packages of the standard library.
func standardLibrary(t *testing.T) map[string]bool {
	t.Helper()
	std := map[string]bool{}
	out, err := exec.Command("go", "list", "std").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		std[p] = true
	}
	return std
}

func onlyStandardLibrary(t *testing.T, pkg, what string) {
	t.Helper()
	std := standardLibrary(t)
	found := false
	for _, p := range packages(t) {
		if p.ImportPath != pkg {
			continue
		}
		found = true
		for _, imp := range p.Imports {
			if !std[imp] {
				t.Errorf("%s (%s) imports %s: it may import only the standard library", what, pkg, imp)
			}
		}
	}
	if !found {
		t.Fatalf("%s (%s) was not listed", what, pkg)
	}
}

func TestOnlyTheBinaryImportsAPI(t *testing.T) {
	for _, p := range packages(t) {
		if slices.Contains(p.Imports, module+"/api") && p.ImportPath != module+"/cmd/boxwatch" {
			t.Errorf("%s imports the api package: only cmd/boxwatch wires it in", p.ImportPath)
		}
	}
}

// The engine depends on the domain's store interfaces, not on the store package.
func TestWorkersDoNotImportTheStore(t *testing.T) {
	for _, p := range packages(t) {
		switch p.ImportPath {
		case module + "/tracking", module + "/webhook/dispatch", module + "/queue", module + "/carrier/sim":
			if slices.Contains(p.Imports, module+"/store") {
				t.Errorf("%s imports the store package: it must depend on the domain's interfaces", p.ImportPath)
			}
		}
	}
}

// The HTTP package is HTTP only: geometry, predictions, caches and data sets live in their own
// packages, which cmd/boxwatch builds and hands to it. It may call the journey engine's exported
// API, never a package beneath it.
func TestAPIIsHTTPOnly(t *testing.T) {
	forbidden := []string{module + "/data", module + "/searoute", module + "/cache", module + "/geo/land"}
	found := false
	for _, p := range packages(t) {
		if p.ImportPath != module+"/api" {
			continue
		}
		found = true
		for _, imp := range p.Imports {
			if slices.Contains(forbidden, imp) || strings.HasPrefix(imp, module+"/journey/") {
				t.Errorf("the api package imports %s: it must be handed what it needs, built by cmd/boxwatch", imp)
			}
		}
	}
	if !found {
		t.Fatal("the api package was not listed")
	}
}

// The journey engine knows nothing of HTTP, and reads the store through the domain's interfaces.
func TestJourneyEngineIsNoHandler(t *testing.T) {
	found := false
	for _, p := range packages(t) {
		if p.ImportPath != module+"/journey" {
			continue
		}
		found = true
		for _, imp := range p.Imports {
			if imp == "net/http" || strings.HasPrefix(imp, "net/http/") || imp == module+"/api" || imp == module+"/store" {
				t.Errorf("the journey engine imports %s: it must not speak HTTP nor depend on the store package", imp)
			}
		}
	}
	if !found {
		t.Fatal("the journey package was not listed")
	}
}

// The MCP server is a client of the API: its tools call the REST endpoints through the Go client
// (in process or over the network), so it imports no package of the server, not even the domain,
// and holds no second copy of a rule.
func TestAssistantIsAClientOfTheAPI(t *testing.T) {
	found := false
	for _, p := range packages(t) {
		if p.ImportPath != module+"/assistant" {
			continue
		}
		found = true
		for _, imp := range p.Imports {
			if (imp == module || strings.HasPrefix(imp, module+"/")) && imp != module+"/client" {
				t.Errorf("the assistant package imports %s: it may import only the Go client of the module", imp)
			}
		}
	}
	if !found {
		t.Fatal("the assistant package was not listed")
	}
}

// The JSON:API documents are rendered from domain values alone, so the API and webhook delivery
// share them: the renderer imports the domain and the standard library, never HTTP code.
func TestJSONAPIRendersWithoutHTTP(t *testing.T) {
	std := standardLibrary(t)
	for _, p := range packages(t) {
		if p.ImportPath != module+"/jsonapi" {
			continue
		}
		for _, imp := range p.Imports {
			if imp == "net/http" || strings.HasPrefix(imp, "net/http/") || !std[imp] && imp != module {
				t.Errorf("jsonapi imports %s: it may import only the domain and the standard library without net/http", imp)
			}
		}
		return
	}
	t.Fatal("jsonapi was not listed")
}

// Webhook delivery renders its bodies with jsonapi; it never reaches into the HTTP API.
func TestDispatchDoesNotImportAPI(t *testing.T) {
	for _, p := range packages(t) {
		if p.ImportPath == module+"/webhook/dispatch" && slices.Contains(p.Imports, module+"/api") {
			t.Errorf("webhook/dispatch imports the api package: render notifications with jsonapi")
		}
	}
}

// The terminal seam stands beside the carrier one: the tracking engine asks terminals through the
// domain's TerminalDirectory, never through the terminal package or the simulator; the terminal
// package knows neither the store, the engine nor the simulator (which speaks its protocol).
func TestTerminalSeam(t *testing.T) {
	found := false
	for _, p := range packages(t) {
		switch p.ImportPath {
		case module + "/tracking":
			for _, imp := range []string{module + "/terminal", module + "/carrier/sim"} {
				if slices.Contains(p.Imports, imp) {
					t.Errorf("tracking imports %s: it asks terminals through boxwatch.TerminalDirectory", imp)
				}
			}
		case module + "/terminal":
			found = true
			for _, imp := range p.Imports {
				if strings.HasPrefix(imp, module+"/") && imp != module {
					t.Errorf("the terminal package imports %s: it depends on the domain only", imp)
				}
			}
		}
	}
	if !found {
		t.Fatal("the terminal package was not listed")
	}
}
