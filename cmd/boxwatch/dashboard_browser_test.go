package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/internal/browsertest"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// envUpdateScreenshots makes TestDashboardBrowser write the README's screenshots into
// docs/screenshots (see docs/development.md).
const envUpdateScreenshots = "BOXWATCH_UPDATE_SCREENSHOTS"

// Demo numbers the flows track, one per viewport so that each finds its own row: Maersk bills of
// lading whose last digit puts the vessel at sea on the first ocean leg (docs/carriers.md, "Demo and test
// numbers"), so the map has ports, the path sailed, the legs ahead and the vessel.
var dashboardNumbers = map[string]string{"phone": "MAEU123456784", "desktop": "MAEU123456783"}

// inlandNumber is the demo bill (MSC) discharged at Los Angeles and waiting for the train to its
// inland ramp (docs/carriers.md, "Demo and test numbers"): its box goes on by rail, and the Los
// Angeles terminal lists holds and the Traffic Mitigation Fee for it.
const inlandNumber = "MEDUCK387750"

// TestDashboardBrowser runs the whole service in demo mode with the simulated world sped up and
// drives the dashboard in headless Chromium as a person would, at phone and desktop widths: sign
// in (a wrong key first), add a webhook to a loopback receiver, track a demo number and watch it
// become a shipment, open the shipment and its map, and redeliver a notification. Every page must
// stay free of console errors and serious accessibility violations.
func TestDashboardBrowser(t *testing.T) {
	t.Parallel()
	b := browsertest.Start(t) // skips here, before the service starts, when there is no browser
	hooks := newHookReceiver(t)

	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--sim-speed", "5000", "--refresh-interval", "1s",
			"--addr", "127.0.0.1:0", "--admin-addr", "off", "--webhook-allow-private", "--db", storetest.SQLite.DSN(t)},
			func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	url, key := readDemo(t, pr)
	go io.Copy(io.Discard, pr)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve returned %v", err)
		}
	})

	t.Run("docs", func(t *testing.T) { testAPIDocs(t, b, url) })
	for _, v := range []browsertest.Viewport{browsertest.Phone, browsertest.Desktop} {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			d := &dashboard{Page: b.NewPage(t, v), t: t, url: url, key: key, hooks: hooks}
			started := time.Now()
			d.signIn()
			hook := d.addWebhook()
			number := dashboardNumbers[v.Name]
			shipmentLink := d.track(number)
			d.searchShipments(number, shipmentLink)
			d.openShipment(number)
			d.checkMap()
			d.Screenshot("shipment-map")
			d.readmeShot("shipment-map", "#containers", 8)
			d.chooseOtherContainer()
			d.redeliver(hook)
			if v == browsertest.Desktop { // once is enough: these rows show at both widths alike
				d.failingNumbers()
			} else { // the inland leg, on the narrower screen where its cards must fit
				d.inland()
			}
			d.signOut()
			t.Logf("%s flow took %v", v.Name, time.Since(started).Round(100*time.Millisecond))
		})
	}
}

// dashboard is one person's tab on the dashboard.
type dashboard struct {
	*browsertest.Page
	t     *testing.T
	url   string
	key   string
	hooks *hookReceiver
}

// js quotes s as a JavaScript string literal (Go's quoting of printable text is one).
func js(s string) string { return strconv.Quote(s) }

// readmeShot, when envUpdateScreenshots is set, writes what the window shows with the element
// matching selector scrolled to the top, less above pixels (room for a heading), into the
// docs/screenshots as <view>-<viewport>.png.
func (d *dashboard) readmeShot(view, selector string, above int) {
	d.t.Helper()
	if os.Getenv(envUpdateScreenshots) == "" {
		return
	}
	d.Eval(fmt.Sprintf(`scrollTo(0, document.querySelector(%s).getBoundingClientRect().top + scrollY - %d)`, js(selector), above), nil)
	png := d.ViewportScreenshot()
	d.Eval(`scrollTo(0, 0)`, nil)
	path := filepath.Join("..", "..", "docs", "screenshots", view+"-"+d.Viewport.Name+".png")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		d.t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		d.t.Fatal(err)
	}
	d.t.Logf("README screenshot %s (%d KB)", path, len(png)/1024)
}

// checkView checks the view as it is now: no serious accessibility violation, and nothing wider
// than the window (a page that scrolls sideways is not usable on a phone).
func (d *dashboard) checkView(name string) {
	d.t.Helper()
	d.CheckAccessibility(name)
	// Compared with the screen's width: on a phone, content too wide widens the layout viewport
	// (innerWidth) with it, as mobile browsers zoom out.
	width := d.Viewport.Width
	var scrollWidth int64
	d.Eval(`document.documentElement.scrollWidth`, &scrollWidth)
	if scrollWidth > width {
		var wide []string
		d.Eval(fmt.Sprintf(`[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > %d + 1)
			.filter(e => !e.parentElement.closest('.maplibregl-map')).slice(0, 5)
			.map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (typeof e.className === 'string' && e.className ? '.' + e.className.trim().split(/\s+/).join('.') : ''))`, width), &wide)
		d.t.Errorf("%s %s: the page is %d px wide on a %d px screen; too wide: %v", d.Viewport.Name, name, scrollWidth, width, wide)
	}
}

// visible is a JavaScript test that the first element matching selector is shown.
func visible(selector string) string {
	return fmt.Sprintf(`(e => !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden')(document.querySelector(%s))`, js(selector))
}

// goTo follows the navigation's link to a hash route, as a person would.
func (d *dashboard) goTo(route string) {
	d.t.Helper()
	d.Click(fmt.Sprintf(`nav#nav a[href=%s]`, js(route)))
	d.WaitFor(fmt.Sprintf(`location.hash === %s`, js(route)), browsertest.Timeout, "route "+route)
}

func (d *dashboard) signIn() {
	d.t.Helper()
	d.Navigate(d.url + "/")
	d.WaitFor(visible(`form#signin input#api-key`), browsertest.Timeout, "the sign-in form")
	d.checkView("sign-in")

	// A refused key answers 401, which Chromium logs as a failed load: expected here only.
	endTolerance := d.Tolerate(`status of 401`)
	d.Type(`#api-key`, "bw_0000000000000000_00000000000000000000000000000000")
	d.Click(`form#signin button[type=submit]`)
	d.WaitFor(visible(`#signin-error`)+` && document.querySelector('#signin-error').textContent.trim() !== ''`,
		browsertest.Timeout, "the error for a wrong key")
	if role := d.attr(`#signin-error`, "role"); role != "alert" {
		d.t.Errorf("#signin-error has role %q, want alert", role)
	}
	if d.NodeCount(`nav#nav`) > 0 && d.isVisible(`nav#nav`) {
		d.t.Error("the navigation shows after a wrong key")
	}
	d.Screenshot("signin-error")
	endTolerance()

	d.Type(`#api-key`, d.key)
	d.PressEnter(`#api-key`) // from the keyboard
	d.WaitFor(visible(`nav#nav`)+` && `+visible(`button#signout`), browsertest.Timeout, "the navigation after sign-in")
	if !d.keyStored() {
		d.t.Error("the key is not kept in sessionStorage")
	}
}

// signOut forgets the key: the sign-in form is back and the key is gone from the tab's storage.
func (d *dashboard) signOut() {
	d.t.Helper()
	d.Click(`button#signout`)
	d.WaitFor(visible(`form#signin input#api-key`), browsertest.Timeout, "the sign-in form after signing out")
	if d.keyStored() {
		d.t.Error("the key is still in sessionStorage after signing out")
	}
}

// keyStored tells whether the tab's sessionStorage holds the API key.
func (d *dashboard) keyStored() bool {
	d.t.Helper()
	var stored bool
	d.Eval(fmt.Sprintf(`Object.keys(sessionStorage).some(k => sessionStorage.getItem(k).includes(%s))`, js(d.key)), &stored)
	return stored
}

func (d *dashboard) attr(selector, name string) string {
	d.t.Helper()
	var s string
	d.Eval(fmt.Sprintf(`document.querySelector(%s)?.getAttribute(%s) ?? ''`, js(selector), js(name)), &s)
	return s
}

func (d *dashboard) isVisible(selector string) bool {
	d.t.Helper()
	var ok bool
	d.Eval(visible(selector), &ok)
	return ok
}

// addWebhook registers a webhook to the loopback receiver under a path named by the viewport and
// returns that path.
func (d *dashboard) addWebhook() string {
	d.t.Helper()
	d.goTo("#/webhooks")
	path := "/" + d.Viewport.Name
	hookURL := d.hooks.url + path
	d.Type(`form#webhook-add input#webhook-url`, hookURL)
	d.Click(`form#webhook-add button[type=submit]`)
	d.WaitFor(fmt.Sprintf(`[...document.querySelectorAll('table#webhooks tr[data-id]')].some(r => r.textContent.includes(%s))`, js(hookURL)),
		browsertest.Timeout, "the new webhook in the list")
	return path
}

// track fills in the tracking form: infer_number pre-selects Maersk as the user types, and the
// request becomes a shipment in the list. It returns the link to the shipment.
func (d *dashboard) track(number string) string {
	d.t.Helper()
	d.goTo("#/tracking-requests")
	// A bare number in Evergreen's format needs confirmation: the line is asked for, not chosen.
	d.Type(`form#track input#track-number`, "123456789012")
	d.WaitFor(`document.querySelector('#infer-status').textContent.includes('EGLV') && document.querySelector('select#track-scac').value === ''`,
		browsertest.Timeout, "infer_number asking which line issued 123456789012")
	d.t.Logf("infer status for 123456789012: %q", d.Text(`#infer-status`))
	d.Type(`form#track input#track-number`, number)
	d.WaitFor(`document.querySelector('#infer-status').textContent.trim() !== '' && document.querySelector('select#track-scac').value === 'MAEU'`,
		browsertest.Timeout, "infer_number's decision and the pre-selected SCAC")
	d.t.Logf("infer status for %s: %q", number, d.Text(`#infer-status`))
	d.checkView("tracking form")
	d.PressEnter(`form#track input#track-number`)
	row := fmt.Sprintf(`[...document.querySelectorAll('table#tracking-requests tr[data-id]')].find(r => r.textContent.includes(%s))`, js(number))
	d.WaitFor(row, browsertest.Timeout, "the new tracking request in the list")
	d.WaitFor(row+`?.dataset.status === 'created' && `+row+`.querySelector('a[href^="#/shipments/"]')`,
		60*time.Second, "the tracking request becoming a shipment")
	d.checkView("tracking requests")
	d.Screenshot("tracking-requests")
	d.readmeShot("tracking-requests", "table#tracking-requests", 70)
	var link string
	d.Eval(row+`.querySelector('a[href^="#/shipments/"]').getAttribute('href')`, &link)
	return link
}

// failingNumbers tracks demo numbers that do not become shipments: one the carrier does not know
// fails with its reason shown, one whose carrier is unreachable at first shows it is retrying.
func (d *dashboard) failingNumbers() {
	d.t.Helper()
	d.goTo("#/tracking-requests")
	for _, c := range []struct{ number, scac, want string }{
		{"MSCU0040000", "MSCU", `r.dataset.status === 'failed' && /not found|does not know/i.test(r.textContent)`},
		{"HLCUHAM260549999", "HLCU", `r.dataset.status === 'pending' && /retrying/i.test(r.textContent)`},
	} {
		d.Type(`form#track input#track-number`, c.number)
		d.WaitFor(fmt.Sprintf(`document.querySelector('select#track-scac').value === %s`, js(c.scac)), browsertest.Timeout, "the line of "+c.number)
		d.Click(`form#track button[type=submit]`)
		row := fmt.Sprintf(`[...document.querySelectorAll('table#tracking-requests tr[data-id]')].find(r => r.textContent.includes(%s))`, js(c.number))
		d.WaitFor(fmt.Sprintf(`(r => r && %s)(%s)`, c.want, row), browsertest.Timeout, c.number+" shown as "+c.want)
		var text string
		d.Eval(row+`.textContent`, &text)
		d.t.Logf("%s: %q", c.number, text)
	}
	d.Screenshot("tracking-failures")
}

// searchShipments finds the shipment by part of its number in the shipments view and opens it:
// the same shipment the tracking request links to.
func (d *dashboard) searchShipments(number, link string) {
	d.t.Helper()
	d.goTo("#/shipments")
	d.WaitFor(`document.querySelectorAll('table#shipments tr[data-id]').length > 0`, browsertest.Timeout, "the shipments list")
	d.Type(`input#shipment-search`, number[4:]) // the bill without its SCAC prefix
	rows := `[...document.querySelectorAll('table#shipments tr[data-id]')]`
	d.WaitFor(fmt.Sprintf(`%s.length === 1 && %[1]s[0].textContent.includes(%s)`, rows, js(number)), browsertest.Timeout, "the search finding one shipment")
	d.checkView("shipments")
	d.Screenshot("shipments")
	d.ClickWhere(fmt.Sprintf(`document.querySelector('table#shipments tr[data-id] a[href=%s]')`, js(link)))
	d.WaitFor(fmt.Sprintf(`location.hash === %s`, js(link)), browsertest.Timeout, "the shipment's route")
}

// openShipment checks the shipment page: containers, the event timeline, ETAs and terminal data.
func (d *dashboard) openShipment(number string) {
	d.t.Helper()
	d.WaitFor(`document.querySelector('section#shipment[data-id]') && location.hash === '#/shipments/' + document.querySelector('section#shipment').dataset.id`,
		browsertest.Timeout, "the shipment page")
	d.WaitFor(`document.querySelectorAll('#containers [data-container-id]').length > 0`, browsertest.Timeout, "the containers")
	d.WaitFor(`document.querySelectorAll('ol#timeline li').length > 0`, browsertest.Timeout, "the event timeline")
	d.WaitFor(`document.querySelector('#etas')?.textContent.trim()`, browsertest.Timeout, "the ETAs")
	if d.NodeCount(`#terminal`) != 1 {
		d.t.Error("the shipment page has no #terminal")
	}
	if got := d.Text(`section#shipment`); !strings.Contains(got, number) {
		d.t.Errorf("the shipment page does not name %s", number)
	}
	d.t.Logf("timeline: %d events", d.NodeCount(`ol#timeline li`))
}

// chooseOtherContainer picks the shipment's last container when it has more than one: its
// control is pressed and its map is drawn.
func (d *dashboard) chooseOtherContainer() {
	d.t.Helper()
	if d.NodeCount(`#containers [data-container-id]`) < 2 {
		return
	}
	const last = `[...document.querySelectorAll('#containers [data-container-id]')].at(-1)`
	d.ClickWhere(last)
	d.WaitFor(last+`.getAttribute('aria-pressed') === 'true' && document.querySelector('#map').dataset.state === 'drawn'`,
		browsertest.Timeout, "the other container chosen")
	d.WaitFor(`document.querySelectorAll('ol#timeline li').length > 0`, browsertest.Timeout, "the other container's timeline")
	d.checkMap()
}

// checkMap waits until the map library has drawn the ports, the legs and the vessel.
func (d *dashboard) checkMap() {
	d.t.Helper()
	d.WaitFor(`document.querySelector('#map')?.dataset.state === 'drawn' && window.boxwatch?.map`, browsertest.Timeout, "the map drawn")
	// Rendered features, as the map library reports them: layers not there yet count as none.
	const rendered = `(() => {
		const m = window.boxwatch.map, n = id => m.getLayer(id) ? m.queryRenderedFeatures({layers: [id]}).length : 0;
		return {ports: n('bw-ports'), path: n('bw-path'), estimated: n('bw-legs-estimated'), vessel: n('bw-vessel'),
			loaded: m.loaded(), webgl: !!m.painter?.context?.gl};
	})()`
	// The vessel appears once the simulated AIS feed has placed it.
	d.WaitFor(`(r => r.ports >= 2 && r.path + r.estimated >= 1 && r.vessel >= 1)(`+rendered+`)`, 60*time.Second, "ports, legs and vessel on the map")
	var got map[string]any
	d.Eval(rendered, &got)
	d.t.Logf("map features rendered: %v", got)
	d.checkView("shipment page")
}

// inland tracks a number whose box goes on by rail past the port of discharge and opens its
// shipment: the inland card names the destination and says the status in words (waiting for the
// train, on rail), with the rail times; the map draws the rail leg and the destination; the
// terminal card lists the Los Angeles terminal's holds and fees and its and the line's last free
// days.
func (d *dashboard) inland() {
	d.t.Helper()
	d.goTo("#/tracking-requests")
	d.Type(`form#track input#track-number`, inlandNumber)
	d.WaitFor(`document.querySelector('select#track-scac').value === 'MSCU'`, browsertest.Timeout, "the line of "+inlandNumber)
	d.Click(`form#track button[type=submit]`)
	row := fmt.Sprintf(`[...document.querySelectorAll('table#tracking-requests tr[data-id]')].find(r => r.textContent.includes(%s))`, js(inlandNumber))
	d.WaitFor(row+`?.dataset.status === 'created' && `+row+`.querySelector('a[href^="#/shipments/"]')`,
		60*time.Second, "the inland tracking request becoming a shipment")
	d.ClickWhere(row + `.querySelector('a[href^="#/shipments/"]')`)
	d.openShipment(inlandNumber)

	// The inland card: the destination, and the box waiting for the train or on it (or, on a slow
	// machine where the simulated train already left, the departure shown).
	d.WaitFor(`(c => c && c.querySelector('.destination-name')?.textContent.trim() &&
		(['awaiting_inland_transfer', 'on_rail'].includes(c.querySelector('[data-status]')?.dataset.status) ||
		 !!c.querySelector('[data-status]') && [...c.querySelectorAll('dt')].some(dt => dt.textContent === 'Rail departed' && dt.nextElementSibling.querySelector('time'))))(document.querySelector('section#inland'))`,
		60*time.Second, "the inland destination and the box waiting for the train or on rail")
	status := d.attr(`section#inland [data-status]`, "data-status")
	words := d.Text(`section#inland [data-status]`)
	if words == "" || strings.Contains(words, "_") {
		d.t.Errorf("the inland status %q reads %q, not words", status, words)
	}
	if want := map[string]string{"awaiting_inland_transfer": "Awaiting inland transfer", "on_rail": "On rail"}[status]; want != "" && !strings.Contains(words, want) {
		d.t.Errorf("the inland status %q reads %q, want it to say %q", status, words, want)
	}
	d.t.Logf("inland card: %q", d.Text(`section#inland`))

	// The terminal's holds and fees, and the last free days.
	d.WaitFor(`document.querySelectorAll('#terminal ul#holds li[data-hold]').length > 0 && document.querySelectorAll('#terminal ul#fees li[data-fee]').length > 0`,
		60*time.Second, "the terminal's holds and fees")
	fees := d.Text(`#terminal ul#fees`)
	if !strings.Contains(fees, "60") {
		d.t.Errorf("the fees read %q, want the Traffic Mitigation Fee's 60 USD", fees)
	}
	terminal := d.Text(`#terminal`)
	for _, want := range []string{"Terminal’s last free day", "Line’s last free day", "Location in the terminal"} {
		if !strings.Contains(terminal, want) {
			d.t.Errorf("the terminal card does not show %q: %q", want, terminal)
		}
	}
	d.t.Logf("holds: %q; fees: %q", d.Text(`#terminal ul#holds`), fees)

	// The map: the rail leg (dashed until it arrives, solid after) and the destination.
	d.WaitFor(`document.querySelector('#map')?.dataset.state === 'drawn' && window.boxwatch?.map`, browsertest.Timeout, "the map drawn")
	const rendered = `(() => {
		const m = window.boxwatch.map, n = id => m.getLayer(id) ? m.queryRenderedFeatures({layers: [id]}).length : 0;
		return {ports: n('bw-ports'), rail: n('bw-inland') + n('bw-inland-past'), destination: n('bw-destination')};
	})()`
	d.WaitFor(`(r => r.ports >= 2 && r.rail >= 1 && r.destination >= 1)(`+rendered+`)`, 60*time.Second, "the rail leg and the inland destination on the map")
	var got map[string]any
	d.Eval(rendered, &got)
	d.t.Logf("inland map features rendered: %v", got)
	if !strings.Contains(d.Text(`ul.legend`), "Inland leg by rail") {
		d.t.Error("the map's legend has no entry for the inland leg")
	}
	d.checkView("shipment page with an inland leg")
	d.Screenshot("shipment-inland")
}

// redeliver opens the webhook's delivery log, which lists the notifications of the shipment
// just tracked, and redelivers one: the receiver gets it a second time, with the same id.
func (d *dashboard) redeliver(path string) {
	d.t.Helper()
	d.goTo("#/webhooks")
	hookURL := d.hooks.url + path
	row := fmt.Sprintf(`[...document.querySelectorAll('table#webhooks tr[data-id]')].find(r => r.textContent.includes(%s))`, js(hookURL))
	d.WaitFor(row, browsertest.Timeout, "the webhook in the list")
	// The contract says "selecting a webhook"; the dashboard selects it with a toggle button.
	d.ClickWhere(row + `.querySelector('button.select, button[aria-pressed]')`)
	d.WaitFor(`document.querySelectorAll('table#deliveries tbody tr').length > 0 && document.querySelector('table#deliveries button.redeliver')`,
		60*time.Second, "deliveries in the log")
	trackingtest.Eventually(d.t, 30*time.Second, "the receiver got no notification", func() bool { return d.hooks.total(path) > 0 })
	d.checkView("webhooks")
	d.Screenshot("webhooks")
	if d.Viewport.Mobile { // the phone's window holds the delivery log or the list, not both
		d.readmeShot("webhooks", "table#deliveries", 160)
	} else {
		d.readmeShot("webhooks", "table#webhooks", 60)
	}

	// The row's id is the notification's, which the receiver sees as webhook-id.
	const button = `document.querySelector('table#deliveries button.redeliver')`
	var id string
	d.Eval(button+`.closest('tr').dataset.id ?? ''`, &id)
	before := d.hooks.total(path)
	d.Click(`table#deliveries button.redeliver`)
	trackingtest.Eventually(d.t, 30*time.Second, "the receiver did not get the redelivery", func() bool {
		return d.hooks.redelivered(path, id)
	})
	d.t.Logf("receiver %s: %d deliveries before the redelivery of %q, %d after", path, before, id, d.hooks.total(path))

	// Deleting asks first (the dashboard's own classes: the contract does not name these).
	d.ClickWhere(row + `.querySelector('button.delete')`)
	d.WaitFor(row+`?.querySelector('button.confirm-delete')`, browsertest.Timeout, "the question before deleting")
	d.ClickWhere(row + `.querySelector('button.confirm-delete')`)
	d.WaitFor(`!`+row, browsertest.Timeout, "the webhook gone from the list")
	d.WaitFor(`!document.querySelector('table#deliveries')`, browsertest.Timeout, "its delivery log closed")
}

// testAPIDocs opens /docs: the viewer renders the OpenAPI document's operations.
func testAPIDocs(t *testing.T, b *browsertest.Browser, url string) {
	p := b.NewPage(t, browsertest.Desktop)
	p.Navigate(url + "/docs")
	p.WaitFor(`[...document.querySelectorAll('.opblock-summary-path, [data-path]')].some(e => (e.dataset.path ?? e.textContent).trim() === '/v2/tracking_requests')`,
		browsertest.Timeout, "the tracking requests operations in the API reference")
	n := p.NodeCount(`.opblock`)
	if n < 20 {
		t.Errorf("the API reference shows %d operations", n)
	}
	t.Logf("the API reference shows %d operations", n)
	p.CheckAccessibility("API reference")
	// An operation opened shows its parameters, a "Try it out" button and its responses.
	p.Click(`.opblock-get .opblock-summary-control`)
	p.WaitFor(`!!document.querySelector('.opblock.is-open .opblock-body')`, browsertest.Timeout, "an operation opened")
	p.CheckAccessibility("API reference, an operation opened")
	p.Screenshot("docs")
}

// hookReceiver is a loopback webhook receiver that counts deliveries per path and webhook-id.
type hookReceiver struct {
	url string
	mu  sync.Mutex
	ids map[string]map[string]int // path → webhook-id → deliveries
}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{ids: map[string]map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var doc struct {
			Data struct {
				Attributes struct {
					Event string `json:"event"`
				} `json:"attributes"`
			} `json:"data"`
		}
		if err := json.NewDecoder(r.Body).Decode(&doc); err != nil || r.Method != http.MethodPost {
			http.Error(w, "not a notification", http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.ids[r.URL.Path] == nil {
			h.ids[r.URL.Path] = map[string]int{}
		}
		h.ids[r.URL.Path][r.Header.Get("webhook-id")]++
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	h.url = srv.URL
	return h
}

func (h *hookReceiver) total(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.ids[path] {
		n += c
	}
	return n
}

// redelivered tells whether notification id reached path twice (any notification when id is "").
func (h *hookReceiver) redelivered(path, id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for got, c := range h.ids[path] {
		if c > 1 && (id == "" || got == id) {
			return true
		}
	}
	return false
}
