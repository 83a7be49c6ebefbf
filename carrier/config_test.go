package carrier_test

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
	"github.com/boxwatch/boxwatch/data"
)

// environment is the environment the example file needs.
var environment = map[string]string{
	"MAERSK_CONSUMER_KEY":  "ck",
	"MAERSK_CLIENT_ID":     "maersk-id",
	"MAERSK_CLIENT_SECRET": "maersk-secret",
	"HLAG_CLIENT_ID":       "hlag-id",
	"HLAG_CLIENT_SECRET":   "hlag-secret",
	"CMA_CLIENT_SECRET":    "cma-secret",
	"ONE_API_KEY":          "one-key",
}

func getenv(env map[string]string) func(string) string {
	return func(name string) string { return env[name] }
}

func mustLoad(t *testing.T, doc string) carrier.Config {
	t.Helper()
	cfg, err := carrier.Load(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return cfg
}

func TestLoadExample(t *testing.T) {
	f, err := os.Open("testdata/carriers.example.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := carrier.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	maersk := cfg.Carriers["MAEU"]
	if maersk.Adapter != "dcsa" || maersk.EventsPath != "/events" || time.Duration(maersk.Timeout) != 20*time.Second ||
		!slices.Equal(maersk.Quirks, []string{"date_operator_in_value"}) || maersk.Auth.OAuth2 == nil || !maersk.Auth.OAuth2.CredentialsInBody {
		t.Errorf("MAEU = %+v", maersk)
	}
	if one := cfg.Carriers["ONEY"]; one.Version != dcsa.Version30 {
		t.Errorf("ONEY = %+v, want version 3.0", one)
	}
	built, err := cfg.Build(data.Carriers(), getenv(environment), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(built)); !slices.Equal(got, []string{"CMDU", "HLCU", "MAEU", "ONEY"}) {
		t.Errorf("built %v", got)
	}
}

func TestLoadErrors(t *testing.T) {
	const ok = `"adapter": "dcsa", "base_url": "https://api.example.com/tnt"`
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"ErrSyntax", "{\n  \"carriers\": {\n    \"MAEU\": {,}\n  }\n}", "line 3, column"},
		{"ErrWrongType", `{"carriers": {"MAEU": {"adapter": "dcsa", "base_url": "https://x.example", "page_size": "100"}}}`, "page_size"},
		{"ErrUnknownMember", `{"carriers": {"MAEU": {` + ok + `, "baseurl": "x"}}}`, `unknown field "baseurl"`},
		{"ErrTrailingData", `{"carriers": {"MAEU": {` + ok + `}}} {}`, "more after the JSON object"},
		{"ErrNoCarriers", `{"carriers": {}}`, "names no carrier"},
		{"ErrNotASCAC", `{"carriers": {"maeu": {` + ok + `}}}`, "maeu: is not a SCAC"},
		{"ErrNoAdapter", `{"carriers": {"MAEU": {"base_url": "https://api.example.com"}}}`, "adapter is missing"},
		{"ErrUnknownAdapter", `{"carriers": {"MAEU": {"adapter": "edi", "base_url": "https://api.example.com"}}}`, `unknown adapter "edi" (known: dcsa)`},
		{"ErrNoBaseURL", `{"carriers": {"MAEU": {"adapter": "dcsa"}}}`, `base URL: "" is not an absolute`},
		{"ErrBadBaseURL", `{"carriers": {"MAEU": {"adapter": "dcsa", "base_url": "api.example.com/tnt"}}}`, "not an absolute http or https URL"},
		{"ErrBaseURLWithQuery", `{"carriers": {"MAEU": {"adapter": "dcsa", "base_url": "https://api.example.com/?k=v"}}}`, "no query"},
		{"ErrEventsPath", `{"carriers": {"MAEU": {` + ok + `, "events_path": "events"}}}`, `events path "events"`},
		{"ErrAPIVersion", `{"carriers": {"MAEU": {` + ok + `, "api_version": "2 2"}}}`, `API version "2 2"`},
		{"ErrVersion", `{"carriers": {"MAEU": {` + ok + `, "version": "2.1"}}}`, `version "2.1" is not "2.2" or "3.0"`},
		{"ErrUnknownQuirk", `{"carriers": {"MAEU": {` + ok + `, "quirks": ["maersk"]}}}`, `unknown quirk "maersk"`},
		{"ErrTimeout", `{"carriers": {"MAEU": {` + ok + `, "timeout": "30"}}}`, `"30" is not a duration`},
		{"ErrTimeoutNumber", `{"carriers": {"MAEU": {` + ok + `, "timeout": 30}}}`, "30 is not a duration string"},
		{"ErrNegativeBound", `{"carriers": {"MAEU": {` + ok + `, "max_pages": -1}}}`, "must not be negative"},
		{"ErrHeaderWithoutEnv", `{"carriers": {"MAEU": {` + ok + `, "auth": {"headers_env": {"Consumer-Key": ""}}}}}`, "needs an environment variable name"},
		{"ErrInlineSecret", `{"carriers": {"MAEU": {` + ok + `, "auth": {"oauth2": {"token_url": "https://id.example.com/token", "client_id": "a", "client_secret": "hunter2"}}}}}`, "must not be written in the file"},
		{"ErrNoSecretEnv", `{"carriers": {"MAEU": {` + ok + `, "auth": {"oauth2": {"token_url": "https://id.example.com/token", "client_id": "a"}}}}}`, "client_secret_env is missing"},
		{"ErrTwoClientIDs", `{"carriers": {"MAEU": {` + ok + `, "auth": {"oauth2": {"token_url": "https://id.example.com/token", "client_id": "a", "client_id_env": "A", "client_secret_env": "S"}}}}}`, "exactly one of client_id and client_id_env"},
		{"ErrBadTokenURL", `{"carriers": {"MAEU": {` + ok + `, "auth": {"oauth2": {"token_url": "token", "client_id": "a", "client_secret_env": "S"}}}}}`, `token URL: "token"`},
		{"ErrBadHeaderName", `{"carriers": {"HLCU": {` + ok + `, "auth": {"headers_env": {"Client Id": "HLAG_CLIENT_ID"}}}}}`, `"Client Id" is not a header name`},
		{"ErrEveryProblemListed", `{"carriers": {"MAEU": {"adapter": "edi"}, "HLCU": {"adapter": "dcsa"}}}`, "HLCU: dcsa: base URL: \"\" is not an absolute http or https URL\ncarriers file: MAEU: unknown adapter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := carrier.Load(strings.NewReader(tc.doc))
			t.Log(err)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load = %v, want an error containing %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error repeats the secret: %v", err)
			}
		})
	}
}

func TestBuildErrors(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"ErrUnknownSCAC", `{"carriers": {"ABCD": {"adapter": "dcsa", "base_url": "https://x.example"}}}`, "ABCD: unknown SCAC"},
		{"ErrSameLineTwice", `{"carriers": {"MSCU": {"adapter": "dcsa", "base_url": "https://x.example"}, "MEDU": {"adapter": "dcsa", "base_url": "https://y.example"}}}`, "MEDU and MSCU are both"},
		{"ErrMissingEnv", `{"carriers": {"HLCU": {"adapter": "dcsa", "base_url": "https://x.example", "auth": {"headers_env": {"X-IBM-Client-Id": "NO_SUCH_ID", "X-IBM-Client-Secret": "NO_SUCH_SECRET"}}}}}`, "HLCU: environment variables not set or empty: NO_SUCH_ID, NO_SUCH_SECRET"},
		{"ErrMissingOAuth2Env", `{"carriers": {"CMDU": {"adapter": "dcsa", "base_url": "https://x.example", "auth": {"oauth2": {"token_url": "https://id.example/token", "client_id_env": "CMA_ID", "client_secret_env": "CMA_CLIENT_SECRET"}}}}}`, "CMDU: environment variables not set or empty: CMA_ID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			built, err := mustLoad(t, tc.doc).Build(data.Carriers(), getenv(environment), nil)
			t.Log(err)
			if err == nil || !strings.Contains(err.Error(), tc.want) || built != nil {
				t.Errorf("Build = %v, %v, want an error containing %q", built, err, tc.want)
			}
		})
	}
}

func TestBuildKeysByPrimarySCAC(t *testing.T) {
	cfg := mustLoad(t, `{"carriers": {"MEDU": {"adapter": "dcsa", "base_url": "https://x.example"}}}`)
	built, err := cfg.Build(data.Carriers(), getenv(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := built["MSCU"]; !ok || len(built) != 1 {
		t.Errorf("built %v, want MSC under MSCU", slices.Collect(maps.Keys(built)))
	}
}

// TestBuiltCarrierLooksUp reads a file naming a carrier on loopback and looks a container up with
// the adapter it builds: the secrets come from the environment, the quirk reaches the request.
func TestBuiltCarrierLooksUp(t *testing.T) {
	asked := make(chan *http.Request, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked <- r.Clone(r.Context())
		if r.URL.Path != "/HLCU/v2/events" || r.Header.Get("X-IBM-Client-Id") != "hlag-id" || r.Header.Get("X-IBM-Client-Secret") != "hlag-secret" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		fmt.Fprint(w, `[{"eventID": "e1", "eventType": "EQUIPMENT", "eventClassifierCode": "ACT",
			"eventCreatedDateTime": "2025-03-05T02:20:00Z", "eventDateTime": "2025-03-05T10:15:00+08:00",
			"equipmentEventTypeCode": "GTOT", "equipmentReference": "HLXU1234563", "emptyIndicatorCode": "EMPTY",
			"eventLocation": {"UNLocationCode": "CNSHA"}}]`)
	}))
	defer srv.Close()
	cfg := mustLoad(t, `{"carriers": {"HLCU": {"adapter": "dcsa", "base_url": "`+srv.URL+`/HLCU",
		"auth": {"headers_env": {"X-IBM-Client-Id": "HLAG_CLIENT_ID", "X-IBM-Client-Secret": "HLAG_CLIENT_SECRET"}},
		"quirks": ["date_operator_in_value"], "timeout": "5s"}}}`)
	built, err := cfg.Build(data.Carriers(), getenv(environment), srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	ref := boxwatch.CarrierReference{Type: boxwatch.RequestContainer, Number: "HLXU1234563", SCAC: "HLCU"}
	s, err := built["HLCU"].Lookup(t.Context(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Events) != 1 || s.Events[0].LOCODE != "CNSHA" {
		t.Errorf("shipment = %+v", s)
	}
	<-asked

	since := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	if _, err := built["HLCU"].(*dcsa.Client).LookupSince(t.Context(), ref, since); err != nil {
		t.Fatal(err)
	}
	if got := (<-asked).URL.Query().Get("eventCreatedDateTime"); got != "gte:2025-03-01T00:00:00Z" {
		t.Errorf("eventCreatedDateTime = %q, want the operator in the value", got)
	}
}

// TestBuiltCarrierSpeaks30 builds a carrier configured for Track & Trace 3.0 and looks a bill up
// with it: the 3.0 path and API-Version are asked, the 3.0 answer is read.
func TestBuiltCarrierSpeaks30(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ONEY/v3/events" || r.Header.Get("API-Version") != "3.0.0" || r.Header.Get("X-API-Key") != "one-key" {
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		fmt.Fprint(w, `{"events": [{"eventID": "e1", "eventDateTime": "2025-03-05T10:15:00+08:00",
			"eventUpdatedDateTime": "2025-03-05T02:20:00Z",
			"eventClassification": {"eventTypeCode": "TRANSPORT", "eventClassifierCode": "ACT", "transportEventTypeCode": "DEPA"},
			"eventLocation": {"UNLocationCode": "CNSHA"},
			"transportDetails": {"transportCall": {"transportCallReference": "c1", "modeOfTransport": "VESSEL",
				"exportVoyageNumberOrReference": {"carrierVoyageNumber": "401W"}}}}]}`)
	}))
	defer srv.Close()
	cfg := mustLoad(t, `{"carriers": {"ONEY": {"adapter": "dcsa", "version": "3.0", "base_url": "`+srv.URL+`/ONEY",
		"auth": {"headers_env": {"X-API-Key": "ONE_API_KEY"}}}}}`)
	built, err := cfg.Build(data.Carriers(), getenv(environment), srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	s, err := built["ONEY"].Lookup(t.Context(), boxwatch.CarrierReference{Type: boxwatch.RequestBillOfLading, Number: "B1", SCAC: "ONEY"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Calls) != 1 || s.Calls[0].LOCODE != "CNSHA" || s.Calls[0].ExportVoyage != "401W" || s.Calls[0].Departure.Actual.IsZero() {
		t.Errorf("calls = %+v", s.Calls)
	}
}

func ExampleLoad() {
	cfg, err := carrier.Load(strings.NewReader(`{
	  "carriers": {
	    "MEDU": {"adapter": "dcsa", "base_url": "http://127.0.0.1:8123/MSCU", "timeout": "10s"}
	  }
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	carriers, err := cfg.Build(data.Carriers(), os.Getenv, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for scac := range carriers {
		fmt.Println(scac)
	}
	// Output: MSCU
}
