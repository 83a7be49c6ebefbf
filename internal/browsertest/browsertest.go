// Package browsertest drives a headless Chromium from Go tests: it starts the browser, opens pages
// at a phone or a desktop viewport, fails the test on console errors and uncaught exceptions, saves
// screenshots as test artifacts and runs the axe-core accessibility checks in the page.
//
// The browser is Debian's chromium, found through BOXWATCH_CHROMIUM (make test and .ci/run set it
// from scripts/chromium.sh), on PATH or at /usr/bin/chromium. A BOXWATCH_CHROMIUM that names no
// program fails the test; no browser at all skips it in a bare go test, saying how to get one, and
// fails it under make test and .ci/run (see internal/testenv). The package never downloads a
// browser.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/boxwatch/boxwatch/internal/testenv"
)

// EnvChromium names the environment variable holding the Chromium binary's path. Setting it makes
// the browser tests required.
const EnvChromium = "BOXWATCH_CHROMIUM"

// Timeout bounds every browser action and every wait of a Page unless a wait says otherwise.
const Timeout = 30 * time.Second

// chromiumDirs are where chromium is looked for after PATH: Debian's folder.
var chromiumDirs = []string{"/usr/bin"}

// chromium returns the browser binary for t: EnvChromium's, failing t when it names none that
// runs; else chromium from PATH or chromiumDirs, which testenv.Need looks for.
func chromium(t testing.TB) string {
	t.Helper()
	if path := os.Getenv(EnvChromium); path != "" {
		if _, err := exec.LookPath(path); err != nil {
			t.Fatalf("%s=%s: %v (scripts/chromium.sh installs Debian's chromium)", EnvChromium, path, err)
		}
		return path
	}
	return testenv.Need(t, "chromium", chromiumDirs...)
}

// flags are Chromium's switches for tests: headless, sandbox off (the tests may run as root in a
// container), WebGL rendered in software by SwiftShader through ANGLE (maplibre needs WebGL and
// there is no GPU; Chromium 156 falls back to it by itself, but since Chromium 139 only with
// --enable-unsafe-swiftshader, so both are said outright), and nothing that reaches the network on
// its own.
var flags = []chromedp.ExecAllocatorOption{
	chromedp.Flag("headless", true),
	chromedp.Flag("no-sandbox", true),
	chromedp.Flag("use-angle", "swiftshader"),
	chromedp.Flag("enable-unsafe-swiftshader", true),
	chromedp.Flag("disable-background-networking", true),
	chromedp.Flag("disable-component-update", true),
	chromedp.Flag("disable-sync", true),
	chromedp.Flag("disable-quic", true),
	chromedp.Flag("disable-default-apps", true),
	chromedp.Flag("disable-extensions", true),
	chromedp.Flag("disable-dev-shm-usage", true),
	chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"),
	chromedp.Flag("no-first-run", true),
	chromedp.Flag("no-default-browser-check", true),
	chromedp.Flag("hide-scrollbars", true),
	chromedp.Flag("mute-audio", true),
	chromedp.Flag("force-color-profile", "srgb"),
	chromedp.Flag("metrics-recording-only", true),
	chromedp.Flag("password-store", "basic"),
	chromedp.Flag("use-mock-keychain", true),
	chromedp.Flag("lang", "en-US"),
}

// Browser is one running Chromium with a fresh profile.
type Browser struct {
	ctx context.Context // the chromedp browser context; pages derive from it
}

// Start launches Chromium for t with a fresh profile in t.TempDir; t's cleanup stops it. It
// skips or fails t when there is no browser (see the package comment).
func Start(t testing.TB) *Browser {
	t.Helper()
	path := chromium(t)
	b, stop, err := launch(path, t.TempDir(), t.Logf)
	if err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	t.Cleanup(stop)
	return b
}

// launch starts the Chromium at path with its profile in dir; logf gets chromedp's complaints.
func launch(path, dir string, logf func(string, ...any)) (_ *Browser, stop func(), _ error) {
	opts := append([]chromedp.ExecAllocatorOption{chromedp.ExecPath(path), chromedp.UserDataDir(dir)}, flags...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithErrorf(func(format string, args ...any) {
		// chromedp reports events it cannot decode here; they are about the protocol, not the page.
		logf("chromedp: "+format, args...)
	}))
	stop = func() {
		closeCtx, stopClosing := context.WithTimeout(ctx, 10*time.Second)
		defer stopClosing()
		if err := chromedp.Cancel(closeCtx); err != nil && !errors.Is(err, context.Canceled) {
			logf("closing chromium: %v", err)
		}
		cancel()
		cancelAlloc()
	}
	started := time.Now()
	if err := firstRun(ctx, cancel); err != nil {
		stop()
		return nil, nil, err
	}
	logf("chromium %s started in %v", path, time.Since(started).Round(time.Millisecond))
	return &Browser{ctx: ctx}, stop, nil
}

// Viewport is the size of a page and whether it is a touch phone.
type Viewport struct {
	Name          string // names screenshots: "phone", "desktop"
	Width, Height int64
	Mobile        bool
}

var (
	// Phone is a 375 px wide touch screen with mobile emulation.
	Phone = Viewport{Name: "phone", Width: 375, Height: 812, Mobile: true}
	// Desktop is a 1280 × 800 window.
	Desktop = Viewport{Name: "desktop", Width: 1280, Height: 800}
)

// Page is one tab, in its own browser context (no cookies or storage shared with other pages).
// Console errors, failed loads the browser logs as errors, and uncaught exceptions in it are
// problems: at t's cleanup each problem not tolerated fails t.
type Page struct {
	t        testing.TB
	ctx      context.Context
	Viewport Viewport

	mu        sync.Mutex
	problems  []string
	tolerated []*regexp.Regexp
}

// NewPage opens a blank tab at viewport v; t's cleanup reports its problems and closes it.
func (b *Browser) NewPage(t testing.TB, v Viewport) *Page {
	t.Helper()
	// A new browser context has no window, so its first tab must open one; chromedp's own
	// WithNewBrowserContext does not ask for it, which headless Chromium refuses.
	var browserContext cdp.BrowserContextID
	var tab target.ID
	openCtx, stop := context.WithTimeout(b.ctx, Timeout)
	defer stop()
	err := chromedp.Run(openCtx, chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		executor := cdp.WithExecutor(ctx, chromedp.FromContext(ctx).Browser)
		if browserContext, err = target.CreateBrowserContext().WithDisposeOnDetach(true).Do(executor); err != nil {
			return err
		}
		tab, err = target.CreateTarget("about:blank").WithBrowserContextID(browserContext).WithNewWindow(true).Do(executor)
		return err
	}))
	if err != nil {
		t.Fatalf("opening a %s page: %v", v.Name, err)
	}
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(tab))
	p := &Page{t: t, ctx: ctx, Viewport: v}
	chromedp.ListenTarget(ctx, p.listen)
	t.Cleanup(func() {
		p.flush()
		for _, problem := range p.Problems() {
			t.Errorf("browser %s page: %s", v.Name, problem)
		}
		cancel()
		closeCtx, stop := context.WithTimeout(b.ctx, 5*time.Second)
		defer stop()
		_ = chromedp.Run(closeCtx, chromedp.ActionFunc(func(ctx context.Context) error {
			return target.DisposeBrowserContext(browserContext).Do(cdp.WithExecutor(ctx, chromedp.FromContext(ctx).Browser))
		}))
	})
	opts := []chromedp.EmulateViewportOption{chromedp.EmulatePortrait}
	if v.Mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	if err := firstRun(ctx, cancel, chromedp.EmulateViewport(v.Width, v.Height, opts...)); err != nil {
		t.Fatalf("opening a %s page: %v", v.Name, err)
	}
	return p
}

// firstRun runs the first actions of a chromedp context, which start the browser or open the tab.
// Their lifetime is that of the context given to this first run, so it cannot carry a timeout:
// cancel, the context's own cancel function, stops it instead if it takes longer than Timeout.
func firstRun(ctx context.Context, cancel context.CancelFunc, actions ...chromedp.Action) error {
	timer := time.AfterFunc(Timeout, cancel)
	defer timer.Stop()
	return chromedp.Run(ctx, actions...)
}

// listen records the page's problems; it runs on chromedp's event goroutine.
func (p *Page) listen(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeAssert {
			p.record("console." + string(ev.Type) + ": " + consoleText(ev.Args) + stackTop(ev.StackTrace))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text += " " + d.Exception.Description
		}
		p.record(fmt.Sprintf("uncaught exception: %s (%s:%d:%d)", text, d.URL, d.LineNumber+1, d.ColumnNumber+1))
	case *log.EventEntryAdded:
		if e := ev.Entry; e.Level == log.LevelError {
			p.record(fmt.Sprintf("browser log (%s): %s %s", e.Source, e.Text, e.URL))
		}
	}
}

func consoleText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		switch {
		case a.Value != nil:
			parts = append(parts, strings.Trim(string(a.Value), `"`))
		case a.Description != "":
			parts = append(parts, a.Description)
		default:
			parts = append(parts, string(a.Type))
		}
	}
	return strings.Join(parts, " ")
}

func stackTop(st *runtime.StackTrace) string {
	if st == nil || len(st.CallFrames) == 0 {
		return ""
	}
	f := st.CallFrames[0]
	return fmt.Sprintf(" (%s:%d:%d)", f.URL, f.LineNumber+1, f.ColumnNumber+1)
}

func (p *Page) record(problem string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, re := range p.tolerated {
		if re.MatchString(problem) {
			p.t.Logf("browser %s page (tolerated): %s", p.Viewport.Name, problem)
			return
		}
	}
	p.problems = append(p.problems, problem)
}

// Problems returns the console errors, failed loads and uncaught exceptions seen so far that were
// not tolerated.
func (p *Page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// ClearProblems forgets the problems seen so far, for a test that provoked them on purpose.
func (p *Page) ClearProblems() {
	p.flush()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.problems = nil
}

// Tolerate makes problems matching the regular expression expected until the returned function
// is called: they are logged, not reported. For a step that provokes an error on purpose (a
// refused key answers 401, which Chromium logs as a failed load).
func (p *Page) Tolerate(pattern string) (end func()) {
	re := regexp.MustCompile(pattern)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tolerated = append(p.tolerated, re)
	return func() {
		p.flush()
		p.mu.Lock()
		defer p.mu.Unlock()
		p.tolerated = slices.DeleteFunc(p.tolerated, func(r *regexp.Regexp) bool { return r == re })
	}
}

// flush makes a round trip to the page so that events it sent before are recorded.
func (p *Page) flush() {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	_ = chromedp.Run(ctx, chromedp.Evaluate(`0`, nil))
}

// run runs actions; what says what they do in the failure, with a screenshot on a timeout.
func (p *Page) run(what string, actions ...chromedp.Action) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, Timeout)
	defer cancel()
	err := chromedp.Run(ctx, actions...)
	if err == nil {
		return
	}
	if what != "" {
		err = fmt.Errorf("%s: %w", what, err)
	}
	if errors.Is(err, context.DeadlineExceeded) && p.ctx.Err() == nil {
		p.Screenshot("timeout")
	}
	p.t.Fatalf("browser %s page: %v", p.Viewport.Name, err)
}

// Navigate opens url and waits for its load event.
func (p *Page) Navigate(url string) {
	p.t.Helper()
	p.run("open "+url, chromedp.Navigate(url))
}

// Eval evaluates a JavaScript expression, awaiting it if it is a promise, into res (a pointer that
// the JSON value decodes into, or nil), failing the test if it throws.
func (p *Page) Eval(expression string, res any) {
	p.t.Helper()
	p.run("evaluate "+shorten(expression), chromedp.Evaluate(expression, res, awaitPromise))
}

func awaitPromise(e *runtime.EvaluateParams) *runtime.EvaluateParams { return e.WithAwaitPromise(true) }

// WaitFor waits until the JavaScript expression is truthy (polled every 50 ms; a throw counts as
// false, so it may name elements that do not exist yet), failing the test after timeout with a
// screenshot and what is given in what.
func (p *Page) WaitFor(expression string, timeout time.Duration, what string) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	var lastErr error
	for {
		var ok bool
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		err := chromedp.Run(ctx, chromedp.Evaluate("!!("+expression+")", &ok, awaitPromise, chromedp.EvalIgnoreExceptions))
		cancel()
		if err == nil && ok {
			return
		}
		if err != nil {
			lastErr = err
		}
		if time.Now().After(deadline) {
			p.Screenshot("timeout")
			p.t.Fatalf("browser %s page: %s: %s still false after %v (last error: %v)", p.Viewport.Name, what, expression, timeout, lastErr)
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-p.ctx.Done():
			p.t.Fatalf("browser %s page closed while waiting for %s", p.Viewport.Name, what)
		}
	}
}

// Screenshot saves a full-page PNG of the page in t's artifact directory (kept by go test
// -artifacts, see docs/development.md), named by the test, the viewport and name, and
// returns the image.
func (p *Page) Screenshot(name string) []byte {
	p.t.Helper()
	var png []byte
	ctx, cancel := context.WithTimeout(p.ctx, Timeout)
	defer cancel()
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		p.t.Errorf("browser %s page: screenshot %s: %v", p.Viewport.Name, name, err)
		return nil
	}
	// The file name says which test took it: go 1.26 names artifact directories at random.
	test := strings.NewReplacer("/", "__", " ", "_").Replace(p.t.Name())
	path := filepath.Join(p.t.ArtifactDir(), test+"-"+p.Viewport.Name+"-"+name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Errorf("saving screenshot: %v", err)
		return png
	}
	p.t.Logf("screenshot %s (%d KB)", path, len(png)/1024)
	return png
}

// ViewportScreenshot returns a PNG of what the window shows now, without saving it: for images
// of a fixed size, such as the README's.
func (p *Page) ViewportScreenshot() []byte {
	p.t.Helper()
	var png []byte
	p.run("screenshot", chromedp.CaptureScreenshot(&png))
	return png
}

// NodeCount returns how many elements match a CSS selector.
func (p *Page) NodeCount(selector string) int {
	p.t.Helper()
	var n int
	p.Eval(fmt.Sprintf("document.querySelectorAll(%s).length", jsString(selector)), &n)
	return n
}

// Text returns the text content of the first element matching a CSS selector ("" when none does).
func (p *Page) Text(selector string) string {
	p.t.Helper()
	var s string
	p.Eval(fmt.Sprintf("(document.querySelector(%s)?.textContent ?? '').trim()", jsString(selector)), &s)
	return s
}

// shorten cuts a script to its first line's first 80 characters, for messages.
func shorten(script string) string {
	line, _, more := strings.Cut(script, "\n")
	if len(line) > 80 {
		line, more = line[:80], true
	}
	if more {
		line += "…"
	}
	return line
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return fmt.Sprintf("%q", s) // Go's quoting of printable text is valid JavaScript
}

// Click clicks the first element matching a CSS selector once it is visible.
func (p *Page) Click(selector string) {
	p.t.Helper()
	p.click("click "+selector, selector, "")
}

// ClickWhere clicks, with the mouse, the element a JavaScript expression finds once it is
// visible: for elements a CSS selector cannot single out, such as the table row holding a given
// number.
func (p *Page) ClickWhere(expression string) {
	p.t.Helper()
	mark := `(e => { document.querySelectorAll('[data-browsertest-click]').forEach(e => e.removeAttribute('data-browsertest-click'));
		if (!(e instanceof Element)) return false; e.setAttribute('data-browsertest-click', ''); return true })(` + expression + `)`
	p.click("click "+shorten(expression), `[data-browsertest-click]`, mark)
	p.Eval(`document.querySelectorAll('[data-browsertest-click]').forEach(e => e.removeAttribute('data-browsertest-click'))`, nil)
}

// click clicks the element matching selector, after running the script prepare (if any) until it
// answers true. A page that polls may replace the element between finding and clicking it, so
// each try is short and the click is tried again until Timeout.
func (p *Page) click(what, selector, prepare string) {
	p.t.Helper()
	deadline := time.Now().Add(Timeout)
	for {
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		ready := true
		var err error
		if prepare != "" {
			err = chromedp.Run(ctx, chromedp.Evaluate(prepare, &ready))
		}
		if err == nil && ready {
			err = chromedp.Run(ctx, chromedp.Click(selector, chromedp.ByQuery, chromedp.NodeVisible))
		}
		cancel()
		if err == nil && ready {
			return
		}
		if time.Now().After(deadline) || p.ctx.Err() != nil {
			if err == nil {
				err = errors.New("nothing found")
			}
			p.Screenshot("timeout")
			p.t.Fatalf("browser %s page: %s: %v", p.Viewport.Name, what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Type focuses the element matching a CSS selector, clears it, and types text as key events.
func (p *Page) Type(selector, text string) {
	p.t.Helper()
	clear := fmt.Sprintf(`(el => { el.value = ''; el.dispatchEvent(new Event('input', {bubbles: true})) })(document.querySelector(%s))`, jsString(selector))
	p.run("type into "+selector,
		chromedp.WaitVisible(selector, chromedp.ByQuery),
		chromedp.Evaluate(clear, nil),
		chromedp.SendKeys(selector, text, chromedp.ByQuery),
	)
}

// PressEnter presses the Enter key in the element matching a CSS selector, as a person submitting
// a form from the keyboard does.
func (p *Page) PressEnter(selector string) {
	p.t.Helper()
	p.run("press Enter in "+selector, chromedp.SendKeys(selector, kb.Enter, chromedp.ByQuery))
}
