package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch/store/storetest"
)

// An error document lists at most a bounded number of errors, however many the input holds, and
// says how many it left out.
func TestErrorsBounded(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b)
		names := make([]string, 5000)
		for i := range names {
			names[i] = fmt.Sprintf("%q", fmt.Sprintf("no.such.event.%d", i))
		}
		body := `{"data":{"type":"webhook","attributes":{"url":"https://example.com/hook","events":[` +
			strings.Join(names, ",") + `]}}}`
		r := ts.do(t, "POST", "/v2/webhooks", ts.acme, body)
		r.wantError(t, http.StatusUnprocessableEntity, "", "", "")
		errs := r.body["errors"].([]any)
		if len(errs) != 21 {
			t.Fatalf("%d errors listed, want 20 and one counting the rest", len(errs))
		}
		last := errs[20].(map[string]any)
		if last["code"] != "too_many_errors" || !strings.HasSuffix(last["detail"].(string), " more errors are not listed.") {
			t.Fatalf("last error %v, want too_many_errors counting the rest", last)
		}
		if len(r.raw) > 16<<10 {
			t.Fatalf("error document of %d bytes", len(r.raw))
		}
	})
}
