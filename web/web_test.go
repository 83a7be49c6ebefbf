package web_test

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch/web"
)

// apiStub stands for the API: it answers every request it gets with 418 and its path.
var apiStub = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Api", "yes")
	w.WriteHeader(http.StatusTeapot)
	io.WriteString(w, r.URL.Path)
})

func newServer(t *testing.T) (*httptest.Server, *web.Handler) {
	t.Helper()
	h, err := web.New(apiStub)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, h
}

type answer struct {
	status int
	header http.Header
	body   string
}

func fetch(t *testing.T, method, url string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{res.StatusCode, res.Header, string(b)}
}

func TestPages(t *testing.T) {
	srv, h := newServer(t)
	for _, tc := range []struct {
		name, path, want string
	}{
		{"App", "/", `<main id="main"`},
		{"Docs", "/docs", `id="swagger-ui"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := fetch(t, "GET", srv.URL+tc.path)
			if a.status != http.StatusOK {
				t.Fatalf("status %d", a.status)
			}
			if got := a.header.Get("Content-Type"); got != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", got)
			}
			if !strings.Contains(a.body, tc.want) {
				t.Errorf("body lacks %s", tc.want)
			}
			csp := a.header.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'none'", "script-src 'self';", "frame-ancestors 'none'", "connect-src 'self'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "unsafe") || strings.Contains(csp, "blob:") || strings.Contains(csp, "*") {
				t.Errorf("CSP %q allows more than this origin", csp)
			}
			if a.header.Get("X-Content-Type-Options") != "nosniff" || a.header.Get("Cache-Control") != "no-cache" {
				t.Errorf("headers %v", a.header)
			}
			// Every asset the page names is versioned and served.
			refs := regexp.MustCompile(`(?:src|href)="(/assets/[^"]+)"`).FindAllStringSubmatch(a.body, -1)
			if len(refs) < 3 {
				t.Fatalf("the page names %d assets", len(refs))
			}
			for _, m := range refs {
				if !strings.HasPrefix(m[1], "/assets/"+h.Version()+"/") {
					t.Errorf("%s is not versioned", m[1])
				}
				if a := fetch(t, "GET", srv.URL+m[1]); a.status != http.StatusOK {
					t.Errorf("GET %s: %d", m[1], a.status)
				}
			}
		})
	}
	// Inline scripts are refused by the CSP, so a page must have none.
	for _, p := range []string{"/", "/docs"} {
		body := fetch(t, "GET", srv.URL+p).body
		if regexp.MustCompile(`<script(?:\s[^>]*)?>[^<\s]`).MatchString(body) || strings.Contains(body, " style=") || strings.Contains(body, "<style") {
			t.Errorf("%s has inline script or style", p)
		}
	}
}

func TestAssets(t *testing.T) {
	srv, h := newServer(t)
	v := h.Version()
	for _, tc := range []struct {
		name, path   string
		status       int
		ctype, cache string
	}{
		{"Module", "/assets/app/js/main.js", 200, "text/javascript; charset=utf-8", "no-cache"},
		{"VersionedModule", "/assets/" + v + "/app/js/main.js", 200, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"},
		{"OldVersion", "/assets/0123456789ab/app/js/main.js", 200, "text/javascript; charset=utf-8", "no-cache"},
		{"Stylesheet", "/assets/" + v + "/app/app.css", 200, "text/css; charset=utf-8", "public, max-age=31536000, immutable"},
		{"MapLibre", "/assets/" + v + "/vendor/maplibre-gl/maplibre-gl.mjs", 200, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"},
		{"MapLibreWorker", "/assets/" + v + "/vendor/maplibre-gl/maplibre-gl-worker.mjs?v=6.17.0", 200, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"},
		{"Land", "/assets/" + v + "/vendor/world-atlas/land-50m.json", 200, "application/json", "public, max-age=31536000, immutable"},
		{"Licence", "/assets/vendor/maplibre-gl/LICENSE.txt", 200, "text/plain; charset=utf-8", "no-cache"},
		{"Icon", "/assets/app/icon.svg", 200, "image/svg+xml", "no-cache"},
		{"ErrUnknown", "/assets/app/js/nope.js", 404, "", ""},
		{"ErrUnknownVersioned", "/assets/" + v + "/vendor/nope/x.js", 404, "", ""},
		{"ErrNotServedType", "/assets/vendor/SHA256SUMS", 404, "", ""},
		{"ErrDirectory", "/assets/app/", 404, "", ""},
		{"ErrTraversal", "/assets/app/../web.go", 404, "", ""},
		{"ErrEncodedTraversal", "/assets/app/%2e%2e/web.go", 404, "", ""},
		{"ErrBare", "/assets/", 404, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := fetch(t, "GET", srv.URL+tc.path)
			if a.status != tc.status {
				t.Fatalf("status %d, want %d", a.status, tc.status)
			}
			if a.header.Get("X-Api") != "" {
				t.Fatalf("the API answered an asset path")
			}
			if a.header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("no nosniff")
			}
			if tc.status != 200 {
				return
			}
			if got := a.header.Get("Content-Type"); got != tc.ctype {
				t.Errorf("Content-Type %q, want %q", got, tc.ctype)
			}
			if got := a.header.Get("Cache-Control"); got != tc.cache {
				t.Errorf("Cache-Control %q, want %q", got, tc.cache)
			}
			if a.header.Get("ETag") == "" || a.body == "" {
				t.Errorf("no ETag or empty body")
			}
		})
	}
}

func TestRevalidation(t *testing.T) {
	srv, _ := newServer(t)
	for _, p := range []string{"/", "/assets/app/app.css"} {
		first := fetch(t, "GET", srv.URL+p)
		again := fetch(t, "GET", srv.URL+p, "If-None-Match", first.header.Get("ETag"))
		if again.status != http.StatusNotModified || again.body != "" {
			t.Errorf("%s with its ETag: %d, %d bytes", p, again.status, len(again.body))
		}
	}
}

func TestGzip(t *testing.T) {
	srv, _ := newServer(t)
	const p = "/assets/vendor/maplibre-gl/maplibre-gl.mjs"
	plain := fetch(t, "GET", srv.URL+p, "Accept-Encoding", "identity")
	zipped := fetch(t, "GET", srv.URL+p, "Accept-Encoding", "br;q=1.0, gzip;q=0.8")
	refused := fetch(t, "GET", srv.URL+p, "Accept-Encoding", "gzip;q=0")
	if plain.header.Get("Content-Encoding") != "" || refused.header.Get("Content-Encoding") != "" || zipped.header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding: identity %q, gzip %q, gzip;q=0 %q", plain.header.Get("Content-Encoding"),
			zipped.header.Get("Content-Encoding"), refused.header.Get("Content-Encoding"))
	}
	if zipped.header.Get("Vary") != "Accept-Encoding" || zipped.header.Get("ETag") == plain.header.Get("ETag") {
		t.Errorf("Vary %q, ETags %s and %s", zipped.header.Get("Vary"), zipped.header.Get("ETag"), plain.header.Get("ETag"))
	}
	zr, err := gzip.NewReader(strings.NewReader(zipped.body))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil || string(unzipped) != plain.body {
		t.Fatalf("the gzipped body does not decode to the file (%v)", err)
	}
	t.Logf("%s: %d bytes, %d gzipped", p, len(plain.body), len(zipped.body))
}

func TestMethods(t *testing.T) {
	srv, _ := newServer(t)
	if a := fetch(t, "HEAD", srv.URL+"/"); a.status != 200 || a.body != "" {
		t.Errorf("HEAD /: %d %q", a.status, a.body)
	}
	for _, p := range []string{"/", "/docs", "/assets/app/app.css"} {
		a := fetch(t, "POST", srv.URL+p)
		if a.status != http.StatusMethodNotAllowed || a.header.Get("Allow") != "GET, HEAD" {
			t.Errorf("POST %s: %d, Allow %q", p, a.status, a.header.Get("Allow"))
		}
	}
}

// The dashboard owns /, /docs and /assets/ only: the API keeps everything else, including paths
// that start like the dashboard's.
func TestOtherPathsReachTheAPI(t *testing.T) {
	srv, _ := newServer(t)
	for _, p := range []string{"/v2/shipments", "/v2/", "/v2", "/healthz", "/readyz", "/metrics", "/index.html",
		"/docs/", "/docsx", "/assetsx/app/app.css", "/v2/openapi.json", "/nope", "/favicon.ico"} {
		for _, method := range []string{"GET", "POST", "DELETE"} {
			a := fetch(t, method, srv.URL+p)
			if a.status != http.StatusTeapot || a.header.Get("X-Api") != "yes" || a.body != p {
				t.Errorf("%s %s: %d %q, want the API's answer", method, p, a.status, a.body)
			}
		}
	}
}

// The committed SHA256SUMS must describe exactly the vendored files that are embedded: a file
// edited by hand or copied without the script fails here, before any browser loads it.
func TestVendoredFilesMatchTheirSums(t *testing.T) {
	f, err := os.Open("vendor/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("malformed line %q", sc.Text())
		}
		listed["vendor/"+name] = sum
	}
	if len(listed) == 0 {
		t.Fatal("SHA256SUMS lists nothing")
	}
	srv, h := newServer(t)
	served := map[string]bool{}
	for _, p := range h.Paths() {
		if !strings.HasPrefix(p, "vendor/") {
			continue
		}
		served[p] = true
		want, ok := listed[p]
		if !ok {
			t.Errorf("%s is embedded but not in SHA256SUMS", p)
			continue
		}
		body := fetch(t, "GET", srv.URL+"/assets/"+p, "Accept-Encoding", "identity").body
		got := sha256.Sum256([]byte(body))
		if hex.EncodeToString(got[:]) != want {
			t.Errorf("%s: sha256 %x, SHA256SUMS says %s", p, got, want)
		}
	}
	for p := range listed {
		if !served[p] {
			t.Errorf("%s is in SHA256SUMS but not served", p)
		}
	}
}

// Every module the app imports is embedded: a typo in an import path fails here rather than in a
// browser's console.
func TestModuleImportsResolve(t *testing.T) {
	_, h := newServer(t)
	paths := map[string]bool{}
	for _, p := range h.Paths() {
		paths[p] = true
	}
	imports := regexp.MustCompile(`(?m)(?:^import\s[^'"]*|^export\s[^'"]*\sfrom\s|import\()\s*['"]([^'"]+)['"]`)
	n := 0
	for p := range paths {
		if !strings.HasPrefix(p, "app/") || path.Ext(p) != ".js" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range imports.FindAllStringSubmatch(string(b), -1) {
			n++
			if !strings.HasPrefix(m[1], ".") {
				t.Errorf("%s imports %q: only relative imports resolve without an import map", p, m[1])
				continue
			}
			if target := path.Join(path.Dir(p), m[1]); !paths[target] {
				t.Errorf("%s imports %s, which is not embedded", p, target)
			}
		}
	}
	if n < 5 {
		t.Fatalf("found %d imports; the pattern no longer matches the app's", n)
	}
}
