// Package carrier reads the carrier configuration file (boxwatch serve --carriers FILE) and builds
// the adapter each configured shipping line is looked up with.
//
// The file is JSON. It names, for each SCAC, the adapter ("dcsa", the only one today), where the
// carrier's API is, which credentials it takes and which quirks it has:
//
//	{
//	  "carriers": {
//	    "HLCU": {
//	      "adapter": "dcsa",
//	      "base_url": "https://api.hlag.com/hlag/external",
//	      "auth": {"headers_env": {"X-IBM-Client-Id": "HLAG_CLIENT_ID", "X-IBM-Client-Secret": "HLAG_CLIENT_SECRET"}},
//	      "timeout": "20s"
//	    }
//	  }
//	}
//
// Members of a carrier: adapter (required); version (the DCSA Track & Trace version the carrier
// speaks, "2.2" or "3.0", default "2.2"); base_url (required; events are read from base_url +
// events_path); events_path (default "/v2/events", "/v3/events" for 3.0); api_version (the value
// sent in the API-Version header, default "2", "3.0.0" for 3.0; Maersk documents its own, "1");
// auth.headers_env (header name → name of the environment variable holding its value);
// auth.oauth2 (token_url, client_id or client_id_env, client_secret_env, scope,
// credentials_in_body); quirks (a list of names: "date_operator_in_value" for Maersk); timeout
// (a Go duration bounding a whole lookup, default "30s"); page_size, max_pages and
// max_response_bytes (bounds, with the dcsa package's defaults). A "comment" member may explain
// the file or a carrier; it is ignored. testdata/carriers.example.json configures
// three real carriers on 2.2 and a carrier on 3.0.
//
// Secrets never sit in the file: it names environment variables, which Build reads. This package
// must not log or return their values.
package carrier

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
)

// Config is a carrier configuration file.
type Config struct {
	// Carriers maps a SCAC, primary or alternative, to how that carrier is reached.
	Carriers map[string]Endpoint `json:"carriers"`
	Comment  string              `json:"comment"`
}

// Endpoint is how one carrier is reached. Zero numbers and an empty timeout take the adapter's
// defaults.
type Endpoint struct {
	Adapter          string   `json:"adapter"`
	Version          string   `json:"version"`
	BaseURL          string   `json:"base_url"`
	EventsPath       string   `json:"events_path"`
	APIVersion       string   `json:"api_version"`
	Auth             Auth     `json:"auth"`
	Quirks           []string `json:"quirks"`
	Timeout          Duration `json:"timeout"`
	PageSize         int      `json:"page_size"`
	MaxPages         int      `json:"max_pages"`
	MaxResponseBytes int64    `json:"max_response_bytes"`
	Comment          string   `json:"comment"`
}

// Auth is how a carrier wants requests authorised: API key headers, an OAuth2 client, both
// (Maersk), or neither.
type Auth struct {
	// HeadersEnv maps a header name to the environment variable that holds its value.
	HeadersEnv map[string]string `json:"headers_env"`
	OAuth2     *OAuth2           `json:"oauth2"`
}

// OAuth2 is an OAuth2 client-credentials client. The client id, not being a secret, may be given
// inline or by environment variable; the secret only by environment variable.
type OAuth2 struct {
	TokenURL          string `json:"token_url"`
	ClientID          string `json:"client_id"`
	ClientIDEnv       string `json:"client_id_env"`
	ClientSecretEnv   string `json:"client_secret_env"`
	Scope             string `json:"scope"`
	CredentialsInBody bool   `json:"credentials_in_body"`
	// ClientSecret exists only so that Load can refuse it with a useful message.
	ClientSecret string `json:"client_secret"`
}

// Duration is a time.Duration written as a Go duration string ("30s", "1m30s").
type Duration time.Duration

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf(`%s is not a duration string such as "30s"`, b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf(`%q is not a duration such as "30s"`, s)
	}
	*d = Duration(v)
	return nil
}

// adapters are the adapter names a configuration may use.
var adapters = []string{"dcsa"}

// quirkDateOperatorInValue makes date filters carry their operator in the value
// (eventCreatedDateTime=gte:…), as Maersk reads them.
const quirkDateOperatorInValue = "date_operator_in_value"

// quirks are the quirk names a configuration may use.
var quirks = []string{quirkDateOperatorInValue}

// Load reads a configuration file and checks everything that does not depend on the registry or
// the environment: JSON syntax, unknown members, SCAC spelling, adapter and quirk names, URLs,
// durations and bounds, and that no secret is written inline. Its error lists every problem found.
func Load(r io.Reader) (Config, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return Config{}, fmt.Errorf("carriers file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("carriers file: %s", describeJSONError(raw, err, dec.InputOffset()))
	}
	if dec.More() {
		return Config{}, errors.New("carriers file: there is more after the JSON object")
	}
	if len(c.Carriers) == 0 {
		return Config{}, errors.New(`carriers file: "carriers" names no carrier`)
	}
	var errs []error
	for _, scac := range slices.Sorted(maps.Keys(c.Carriers)) {
		for _, problem := range c.Carriers[scac].problems(scac) {
			errs = append(errs, fmt.Errorf("carriers file: %s: %s", scac, problem))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// problems lists what is wrong with e: the file's own rules first, then what its adapter refuses,
// checked by building it with stand-ins for the secrets.
func (e Endpoint) problems(scac string) []string {
	var p []string
	if !boxwatch.IsSCAC(scac) {
		p = append(p, "is not a SCAC (four upper-case letters)")
	}
	for _, header := range slices.Sorted(maps.Keys(e.Auth.HeadersEnv)) {
		if e.Auth.HeadersEnv[header] == "" {
			p = append(p, fmt.Sprintf("auth.headers_env: header %q needs an environment variable name", header))
		}
	}
	if o := e.Auth.OAuth2; o != nil {
		if (o.ClientID == "") == (o.ClientIDEnv == "") {
			p = append(p, "auth.oauth2 needs exactly one of client_id and client_id_env")
		}
		if o.ClientSecret != "" {
			p = append(p, "auth.oauth2.client_secret must not be written in the file: name an environment variable in client_secret_env")
		} else if o.ClientSecretEnv == "" {
			p = append(p, "auth.oauth2.client_secret_env is missing")
		}
	}
	for _, q := range e.Quirks {
		if !slices.Contains(quirks, q) {
			p = append(p, fmt.Sprintf("unknown quirk %q (known: %s)", q, strings.Join(quirks, ", ")))
		}
	}
	if _, err := e.build(func(string) string { return "stand-in" }, nil); err != nil {
		p = append(p, err.Error())
	}
	return p
}

// describeJSONError says where in raw a decoding error is: at the offset a syntax or type error
// names, else where the decoder stopped.
func describeJSONError(raw []byte, err error, stopped int64) string {
	offset := stopped
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		offset = syntax.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	}
	before := raw[:min(max(offset, 0), int64(len(raw)))]
	line := bytes.Count(before, []byte("\n")) + 1
	column := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d: %v", line, column, err)
}

// Build makes the adapter of every configured carrier, keyed by the primary SCAC of its line in
// reg. getenv reads the environment variables the file names (nil means os.Getenv); httpClient
// sends every request (nil means a plain client). It fails, listing every problem, on a SCAC the
// registry does not know, two entries for the same line, or a named environment variable that is
// unset or empty.
func (c Config) Build(reg *boxwatch.Carriers, getenv func(string) string, httpClient *http.Client) (map[string]boxwatch.Carrier, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	carriers := map[string]boxwatch.Carrier{}
	configuredAs := map[string]string{}
	var errs []error
	for _, scac := range slices.Sorted(maps.Keys(c.Carriers)) {
		line, ok := reg.BySCAC(scac)
		if !ok {
			errs = append(errs, fmt.Errorf("carriers file: %s: unknown SCAC (not in the carrier registry)", scac))
			continue
		}
		if other, dup := configuredAs[line.SCAC]; dup {
			errs = append(errs, fmt.Errorf("carriers file: %s and %s are both %s", other, scac, line.Name))
			continue
		}
		configuredAs[line.SCAC] = scac
		client, err := c.Carriers[scac].build(getenv, httpClient)
		if err != nil {
			errs = append(errs, fmt.Errorf("carriers file: %s: %w", scac, err))
			continue
		}
		carriers[line.SCAC] = client
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return carriers, nil
}

// build makes the adapter of e, reading its secrets with getenv.
func (e Endpoint) build(getenv func(string) string, httpClient *http.Client) (boxwatch.Carrier, error) {
	switch e.Adapter {
	case "dcsa":
		client, err := e.dcsaClient(getenv, httpClient)
		if err != nil {
			return nil, err
		}
		return client, nil
	case "":
		return nil, fmt.Errorf("adapter is missing (one of %s)", strings.Join(adapters, ", "))
	default:
		return nil, fmt.Errorf("unknown adapter %q (known: %s)", e.Adapter, strings.Join(adapters, ", "))
	}
}

// dcsaClient makes the DCSA client of e.
func (e Endpoint) dcsaClient(getenv func(string) string, httpClient *http.Client) (*dcsa.Client, error) {
	var missing []string
	env := func(name string) string {
		v := getenv(name)
		if v == "" {
			missing = append(missing, name)
		}
		return v
	}
	cfg := dcsa.Config{
		Version:             e.Version,
		BaseURL:             e.BaseURL,
		EventsPath:          e.EventsPath,
		APIVersion:          e.APIVersion,
		DateOperatorInValue: slices.Contains(e.Quirks, quirkDateOperatorInValue),
		Timeout:             time.Duration(e.Timeout),
		PageSize:            e.PageSize,
		MaxPages:            e.MaxPages,
		MaxResponseBytes:    e.MaxResponseBytes,
		HTTPClient:          httpClient,
	}
	if len(e.Auth.HeadersEnv) > 0 {
		cfg.Headers = map[string]string{}
		for _, header := range slices.Sorted(maps.Keys(e.Auth.HeadersEnv)) {
			cfg.Headers[header] = env(e.Auth.HeadersEnv[header])
		}
	}
	if o := e.Auth.OAuth2; o != nil {
		cfg.OAuth2 = &dcsa.OAuth2{
			TokenURL:          o.TokenURL,
			ClientID:          o.ClientID,
			ClientSecret:      env(o.ClientSecretEnv),
			Scope:             o.Scope,
			CredentialsInBody: o.CredentialsInBody,
		}
		if o.ClientIDEnv != "" {
			cfg.OAuth2.ClientID = env(o.ClientIDEnv)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("environment variables not set or empty: %s", strings.Join(missing, ", "))
	}
	return dcsa.New(cfg)
}
