package dcsa

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/internal/testenv"
)

// basePath is where the test carriers serve their API, as the simulator does: one root per SCAC.
const basePath = "/MAEU"

// carrier is a DCSA TNT 2.2 carrier on loopback. It answers GET <basePath>/v2/events from pages,
// following the cursor it wrote in Next-Page, and records what it was asked.
type carrier struct {
	srv   *httptest.Server
	pages [][]byte
	// nextPage writes the Next-Page header for page i (1-based); nil writes a bare cursor.
	nextPage func(srv *httptest.Server, i int) string
	// respond, when set, answers instead of the pages.
	respond func(w http.ResponseWriter, r *http.Request)

	mu       sync.Mutex
	requests []*http.Request
}

// newCarrier starts a carrier serving pages (each a JSON array).
func newCarrier(t *testing.T, pages ...[]byte) *carrier {
	t.Helper()
	return (&carrier{pages: pages}).start(t)
}

// start serves c on loopback until the test ends.
func (c *carrier) start(t *testing.T) *carrier {
	c.srv = httptest.NewServer(c)
	t.Cleanup(c.srv.Close)
	return c
}

func (c *carrier) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.requests = append(c.requests, r.Clone(r.Context()))
	c.mu.Unlock()
	if c.respond != nil {
		c.respond(w, r)
		return
	}
	c.servePages(w, r)
}

// servePages answers GET <basePath>/v2/events from the pages.
func (c *carrier) servePages(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || r.URL.Path != basePath+"/v2/events" {
		http.NotFound(w, r)
		return
	}
	i := 0
	if cursor := r.URL.Query().Get(ParamCursor); cursor != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(cursor, "page"))
		if err != nil || n < 1 || n >= len(c.pages) {
			http.Error(w, "bad cursor", http.StatusBadRequest)
			return
		}
		i = n
	}
	w.Header().Set(HeaderAPIVersion, "2.2.0")
	w.Header().Set(HeaderCurrentPage, fmt.Sprintf("page%d", i))
	if i+1 < len(c.pages) {
		next := fmt.Sprintf("page%d", i+1)
		if c.nextPage != nil {
			next = c.nextPage(c.srv, i+1)
		}
		w.Header().Set(HeaderNextPage, next)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(c.pages[i])
}

// base is the carrier's base URL, to put in Config.BaseURL.
func (c *carrier) base() string { return c.srv.URL + basePath }

// seen returns the requests the carrier received so far.
func (c *carrier) seen() []*http.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*http.Request(nil), c.requests...)
}

func mustNew(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// splitPages cuts a JSON array into n arrays of about the same length.
func splitPages(t *testing.T, data []byte, n int) [][]byte {
	t.Helper()
	var all []json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	var pages [][]byte
	size := (len(all) + n - 1) / n
	for start := 0; start < len(all); start += size {
		page, err := json.Marshal(all[start:min(start+size, len(all))])
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, page)
	}
	return pages
}

// mustSharedSample returns the sample response of the shared DCSA reference, found by walking up
// from the package directory to one holding shared/reference/dcsa.
func mustSharedSample(t *testing.T) []byte {
	t.Helper()
	const ref = "shared/reference/dcsa"
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if info, err := os.Stat(filepath.Join(dir, ref)); err == nil && info.IsDir() {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			testenv.Missing(t, ref, "is in no folder above the package")
		}
		dir = parent
	}
	data, err := os.ReadFile(filepath.Join(dir, ref, "tnt-220-response-sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// wantCarrierError fails unless err is a *boxwatch.CarrierError with reason and temporary.
func wantCarrierError(t *testing.T, err error, reason string, temporary bool) *boxwatch.CarrierError {
	t.Helper()
	var ce *boxwatch.CarrierError
	if !errors.As(err, &ce) {
		t.Fatalf("error = %v (%T), want a *boxwatch.CarrierError", err, err)
	}
	if ce.Reason != reason || ce.Temporary != temporary {
		t.Fatalf("error = %v (temporary %v), want reason %s, temporary %v", err, ce.Temporary, reason, temporary)
	}
	return ce
}

// describeCall writes a call on one line, times with the offset the carrier gave.
func describeCall(c boxwatch.TransportCall) string {
	vessel := "-"
	if c.Vessel != nil {
		vessel = fmt.Sprintf("%s/%s/%s/%s", c.Vessel.IMO, c.Vessel.Name, c.Vessel.Flag, c.Vessel.CallSign)
	}
	return fmt.Sprintf("%s #%d %s %s %s %s %s %s %s/%s A[%s] D[%s]", c.ID, c.Sequence, c.LOCODE,
		c.FacilityCode, c.FacilityType, c.Mode, vessel, c.ServiceCode, c.ExportVoyage, c.ImportVoyage,
		describeTimes(c.Arrival), describeTimes(c.Departure))
}

func describeTimes(t boxwatch.CallTimes) string {
	f := func(at time.Time) string {
		if at.IsZero() {
			return "-"
		}
		return at.Format(time.RFC3339)
	}
	return f(t.Planned) + " " + f(t.Estimated) + " " + f(t.Actual)
}

func ref(typ boxwatch.RequestType, number string) boxwatch.CarrierReference {
	return boxwatch.CarrierReference{Type: typ, Number: number, SCAC: "MAEU"}
}
