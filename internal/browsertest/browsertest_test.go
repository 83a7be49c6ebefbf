package browsertest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/internal/testenv"
)

// shared is the one browser of this package's tests, started by the first test that asks.
var shared struct {
	once sync.Once
	b    *Browser
	stop func()
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.stop != nil {
		shared.stop()
	}
	os.Exit(code)
}

// sharedBrowser returns the package's browser, skipping or failing t as Start does without one.
func sharedBrowser(t *testing.T) *Browser {
	t.Helper()
	path := chromium(t)
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "browsertest-profile-")
		if err != nil {
			shared.err = err
			return
		}
		var stop func()
		shared.b, stop, shared.err = launch(path, dir, func(format string, args ...any) { fmt.Printf(format+"\n", args...) })
		shared.stop = func() {
			if stop != nil {
				stop()
			}
			os.RemoveAll(dir)
		}
	})
	if shared.err != nil {
		t.Fatalf("starting %s: %v", path, shared.err)
	}
	return shared.b
}

// pages serves the small pages the harness is tested on.
func pages(t *testing.T) string {
	t.Helper()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>harness</title>
<link rel="icon" href="data:,"></head><body><main><h1>Harness</h1>%s</main></body></html>`, body)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/clean", page(`<p id="p">Nothing wrong here.</p><label for="q">Query</label><input id="q">
<div style="height:2000px">tall, so that the full-page screenshot is taller than the window</div>`))
	mux.Handle("/throws", page(`<script>console.error("boom from console", 42)</script>
<script>throw new TypeError("boom from a script")</script>`))
	mux.Handle("/rejects", page(`<script>Promise.reject(new Error("boom from a promise"))</script>`))
	mux.Handle("/missing", page(`<img src="/nothing-here.png" alt="missing on purpose">`))
	mux.Handle("/inaccessible", page(`<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<input type="text"><p style="color:#bbb;background:#fff">faint text</p>`))
	mux.Handle("/webgl", page(`<canvas id="c" width="8" height="8" aria-label="test drawing"></canvas>`))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// recorder stands in for a test whose failures are the expected outcome: it keeps what
// Error and Errorf report instead of failing; everything else goes to the real test.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) { r.Error(fmt.Sprintf(format, args...)) }
func (r *recorder) Error(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprint(args...))
	r.TB.Log("expected failure: " + fmt.Sprint(args...))
}

func (r *recorder) all() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errors, "\n")
}

// skipRecorder records why a test skipped itself.
type skipRecorder struct {
	testing.TB
	reason string
}

func (r *skipRecorder) Skipf(format string, args ...any) {
	r.reason = fmt.Sprintf(format, args...)
	r.TB.SkipNow()
}

// TestNoChromium: without a browser, a bare go test skips the test, saying how to get one
// (internal/testenv's own tests cover the failure under make test).
func TestNoChromium(t *testing.T) {
	t.Setenv(EnvChromium, "")
	t.Setenv(testenv.StrictEnv, "")
	t.Setenv("PATH", t.TempDir())
	saved := chromiumDirs
	chromiumDirs = nil
	defer func() { chromiumDirs = saved }()
	rec := &skipRecorder{}
	t.Run("Skipped", func(t *testing.T) {
		rec.TB = t
		Start(rec)
		t.Error("Start returned without a browser")
	})
	if !strings.Contains(rec.reason, "SKIPPED, MISSING PREREQUISITE") || !strings.Contains(rec.reason, "scripts/chromium.sh") {
		t.Errorf("skip message %q", rec.reason)
	}
}

func TestCleanPage(t *testing.T) {
	t.Parallel()
	base := pages(t)
	b := Start(t) // its own browser: Start and its cleanup are tested here
	for _, v := range []Viewport{Phone, Desktop} {
		t.Run(v.Name, func(t *testing.T) {
			p := b.NewPage(t, v)
			p.Navigate(base + "/clean")
			var width int64
			var coarse bool
			p.Eval(`window.innerWidth`, &width)
			p.Eval(`matchMedia('(pointer: coarse)').matches`, &coarse)
			if width != v.Width || coarse != v.Mobile {
				t.Errorf("window is %d px wide, coarse pointer %v; want %d, %v", width, coarse, v.Width, v.Mobile)
			}
			if got := p.Text("#p"); got != "Nothing wrong here." {
				t.Errorf("Text(#p) = %q", got)
			}
			p.Type("#q", "MSCU1234566")
			var typed string
			p.Eval(`document.querySelector('#q').value`, &typed)
			if typed != "MSCU1234566" {
				t.Errorf("typed %q", typed)
			}
			p.CheckAccessibility("clean page")

			img, err := png.Decode(bytes.NewReader(p.Screenshot("clean")))
			if err != nil {
				t.Fatalf("screenshot is no PNG: %v", err)
			}
			if size := img.Bounds().Size(); int64(size.X) != v.Width || size.Y < 2000 {
				t.Errorf("screenshot is %v, want %d wide and the page's full height", size, v.Width)
			}
			if _, err := os.Stat(filepath.Join(t.ArtifactDir(), "TestCleanPage__"+v.Name+"-"+v.Name+"-clean.png")); err != nil {
				t.Errorf("screenshot not saved: %v", err)
			}
		})
	}
}

// TestProblemsFailTheTest opens pages that go wrong in the ways a test must notice, each in a
// sub-test whose failures are recorded, and checks that each failed it.
func TestProblemsFailTheTest(t *testing.T) {
	t.Parallel()
	base := pages(t)
	b := sharedBrowser(t)
	for path, want := range map[string][]string{
		"/throws":  {"console.error: boom from console 42", "uncaught exception", "TypeError: boom from a script"},
		"/rejects": {"uncaught exception", "boom from a promise"},
		"/missing": {"browser log (network)", "404", "/nothing-here.png"},
	} {
		rec := &recorder{}
		t.Run(strings.TrimPrefix(path, "/"), func(t *testing.T) {
			rec.TB = t
			p := b.NewPage(rec, Desktop)
			p.Navigate(base + path)
			p.WaitFor(`document.readyState === 'complete'`, Timeout, "page load")
		})
		got := rec.all()
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the test's failures do not mention %q:\n%s", path, w, got)
			}
		}
	}
}

func TestTolerate(t *testing.T) {
	t.Parallel()
	base := pages(t)
	b := sharedBrowser(t)
	p := b.NewPage(t, Phone)
	end := p.Tolerate(`boom from`)
	p.Navigate(base + "/throws")
	p.WaitFor(`document.readyState === 'complete'`, Timeout, "page load")
	// Not tolerated, so seen.
	p.Navigate(base + "/missing")
	p.flush()
	if got := p.Problems(); len(got) != 1 || !strings.Contains(got[0], "nothing-here.png") {
		t.Errorf("problems = %q, want only the missing image", got)
	}
	// No longer tolerated.
	end()
	p.Navigate(base + "/throws")
	p.flush()
	if got := p.Problems(); len(got) != 3 || !strings.Contains(got[1], "boom from console") {
		t.Errorf("problems = %q, want the missing image and the page's two errors", got)
	}
	p.ClearProblems() // so that the test passes
}

func TestAccessibilityViolations(t *testing.T) {
	t.Parallel()
	base := pages(t)
	b := sharedBrowser(t)
	rec := &recorder{}
	t.Run("inaccessible", func(t *testing.T) {
		rec.TB = t
		p := b.NewPage(rec, Desktop)
		p.Navigate(base + "/inaccessible")
		p.CheckAccessibility("inaccessible page")
	})
	got := rec.all()
	for _, want := range []string{"image-alt (critical)", "label (critical)", "color-contrast (serious)", "dequeuniversity.com", "img"} {
		if !strings.Contains(got, want) {
			t.Errorf("the report does not mention %q:\n%s", want, got)
		}
	}
}

// TestWebGL draws with WebGL in the page and reads the pixels back: maplibre needs WebGL, which
// here is SwiftShader's software rendering.
func TestWebGL(t *testing.T) {
	t.Parallel()
	base := pages(t)
	p := sharedBrowser(t).NewPage(t, Desktop)
	p.Navigate(base + "/webgl")
	var got struct {
		Version  string `json:"version"`
		Renderer string `json:"renderer"`
		Pixel    []int  `json:"pixel"`
	}
	p.Eval(`(() => {
		const gl = document.querySelector('#c').getContext('webgl2');
		if (!gl) return {version: 'none', renderer: '', pixel: []};
		const info = gl.getExtension('WEBGL_debug_renderer_info');
		gl.clearColor(1, 0.5, 0, 1);
		gl.clear(gl.COLOR_BUFFER_BIT);
		const px = new Uint8Array(4);
		gl.readPixels(4, 4, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
		return {version: gl.getParameter(gl.VERSION),
			renderer: info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER),
			pixel: Array.from(px)};
	})()`, &got)
	t.Logf("WebGL: %s on %s", got.Version, got.Renderer)
	if fmt.Sprint(got.Pixel) != "[255 128 0 255]" && fmt.Sprint(got.Pixel) != "[255 127 0 255]" {
		t.Fatalf("WebGL 2 drew %v, want orange (version %q, renderer %q)", got.Pixel, got.Version, got.Renderer)
	}
}

func TestWaitFor(t *testing.T) {
	t.Parallel()
	base := pages(t)
	p := sharedBrowser(t).NewPage(t, Desktop)
	p.Navigate(base + "/clean")
	started := time.Now()
	p.WaitFor(`document.querySelector('#p')`, Timeout, "an element that exists")
	p.Eval(`setTimeout(() => document.body.dataset.later = 'yes', 300)`, nil)
	p.WaitFor(`document.body.dataset.later === 'yes'`, Timeout, "a change made later")
	t.Logf("waited %v", time.Since(started).Round(time.Millisecond))
}

// TestVendoredAxe checks the embedded axe-core against the sums scripts/axe.sh checked it with.
func TestVendoredAxe(t *testing.T) {
	sums, err := os.ReadFile("vendor/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(axeSource))
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[1] == "axe-core/axe.min.js" {
			if f[0] != hex.EncodeToString(sum[:]) {
				t.Fatalf("embedded axe.min.js has sha256 %x, SHA256SUMS says %s: run scripts/axe.sh", sum, f[0])
			}
			if _, err := os.Stat("vendor/axe-core/LICENSE"); err != nil {
				t.Fatalf("axe-core's licence is not vendored: %v", err)
			}
			return
		}
	}
	t.Fatal("SHA256SUMS has no line for axe-core/axe.min.js")
}
