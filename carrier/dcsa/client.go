// Package dcsa looks shipments up with a shipping line that publishes DCSA Track & Trace 2.2
// (GET /v2/events) or 3.0 (GET /v3/events) and maps the events it answers to a
// boxwatch.CarrierShipment, the same whichever version the carrier speaks.
//
// A Client serves one carrier. It talks only to that carrier's events endpoint and, for OAuth2,
// its token endpoint; it keeps no state between lookups other than the access token. Whatever the
// carrier sends, a lookup ends in a shipment or an error, never a panic, and reads no more than
// its configured bounds. A record it cannot read costs that record only: the shipment lists it
// in Unreadable and is built from the rest.
package dcsa

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

// Track & Trace versions a Client speaks (Config.Version).
const (
	Version22 = "2.2"
	Version30 = "3.0"
)

// Defaults of Config. The events path and API version depend on the Version.
const (
	DefaultEventsPath       = "/v2/events"
	DefaultAPIVersion       = "2"
	DefaultEventsPathV3     = "/v3/events"
	DefaultAPIVersionV3     = "3.0.0"
	DefaultTimeout          = 30 * time.Second
	DefaultPageSize         = 100
	DefaultMaxPages         = 50
	DefaultMaxResponseBytes = 16 << 20
)

// Config describes how to reach one carrier. Only BaseURL is required.
type Config struct {
	// BaseURL is the root of the carrier's API, without the events path: events are read from
	// BaseURL+EventsPath. The simulator serves each SCAC under its own root, so BaseURL
	// http://127.0.0.1:8123/MAEU reads http://127.0.0.1:8123/MAEU/v2/events.
	BaseURL string
	// Version is the Track & Trace version the carrier speaks, Version22 (the default) or
	// Version30. It sets the default events path and API version and how pages are linked;
	// the answers of either are read whatever their layout.
	Version string
	// EventsPath is DefaultEventsPath (DefaultEventsPathV3 for 3.0) unless the carrier publishes
	// the endpoint elsewhere (Maersk: /track-and-trace-private/events, so BaseURL
	// https://api.maersk.com/track-and-trace-private and EventsPath /events).
	EventsPath string
	// APIVersion is sent in the API-Version header: DefaultAPIVersion for 2.2 (the spec's major
	// version), DefaultAPIVersionV3 for 3.0, or whatever value the carrier documents.
	APIVersion string
	// Headers are sent with every request, the token request included: API keys such as
	// Consumer-Key, or Hapag-Lloyd's X-IBM-Client-Id and X-IBM-Client-Secret.
	Headers map[string]string
	// OAuth2, when set, authorises every events request with a client-credentials token.
	OAuth2 *OAuth2
	// DateOperatorInValue writes date filters as Maersk reads them, with the operator in the
	// value (eventCreatedDateTime=gte:…), instead of in the name as the spec does
	// (eventCreatedDateTime:gte=…).
	DateOperatorInValue bool
	// Timeout bounds a whole lookup: the token, every page.
	Timeout time.Duration
	// PageSize is the limit asked of each page.
	PageSize int
	// MaxPages bounds the pages one lookup follows; a carrier that offers more fails the lookup.
	MaxPages int
	// MaxResponseBytes bounds each response body; a longer one fails the lookup.
	MaxResponseBytes int64
	// HTTPClient sends the requests; nil means a plain http.Client. The Client never follows a
	// redirect to another host, so credentials go nowhere else.
	HTTPClient *http.Client
	// Now is the clock for token expiry and Retry-After dates; nil means time.Now.
	Now func() time.Time
}

// Client looks shipments up with one carrier. It is safe for concurrent use.
type Client struct {
	version         string
	events          *url.URL
	apiVersion      string
	headers         map[string]string
	token           *tokenSource // nil without OAuth2
	operatorInValue bool
	timeout         time.Duration
	pageSize        int
	maxPages        int
	maxBytes        int64
	http            *http.Client
	now             func() time.Time
}

var _ boxwatch.Carrier = (*Client)(nil)

// New checks cfg, fills in its defaults and returns a Client. It fails on an unknown Version, a
// BaseURL that is not an absolute http or https URL, an API version that is not an HTTP token
// (no spaces, separators or control characters), a header name or value that cannot be sent, a
// negative bound, or an incomplete OAuth2 configuration.
func New(cfg Config) (*Client, error) {
	defaultPath, defaultAPIVersion := DefaultEventsPath, DefaultAPIVersion
	switch cfg.Version {
	case "", Version22:
		cfg.Version = Version22
	case Version30:
		defaultPath, defaultAPIVersion = DefaultEventsPathV3, DefaultAPIVersionV3
	default:
		return nil, fmt.Errorf("dcsa: version %q is not %q or %q", cfg.Version, Version22, Version30)
	}
	base, err := parseHTTPURL(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("dcsa: base URL: %w", err)
	}
	if base.RawQuery != "" || base.Fragment != "" {
		return nil, fmt.Errorf("dcsa: base URL %q must have no query or fragment", cfg.BaseURL)
	}
	path := orDefault(cfg.EventsPath, defaultPath)
	if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("dcsa: events path %q must be a path starting with /", path)
	}
	events := base.JoinPath(path)

	apiVersion := orDefault(cfg.APIVersion, defaultAPIVersion)
	if !isToken(apiVersion) {
		return nil, fmt.Errorf("dcsa: API version %q must be a version such as %q or %q", apiVersion, DefaultAPIVersion, DefaultAPIVersionV3)
	}
	for name, value := range cfg.Headers {
		if !isToken(name) {
			return nil, fmt.Errorf("dcsa: %q is not a header name", name)
		}
		if strings.ContainsFunc(value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
			return nil, fmt.Errorf("dcsa: the value of header %s has a control character", name)
		}
	}
	if cfg.Timeout < 0 || cfg.PageSize < 0 || cfg.MaxPages < 0 || cfg.MaxResponseBytes < 0 {
		return nil, errors.New("dcsa: timeout, page size, page and byte bounds must not be negative")
	}

	c := &Client{
		version:         cfg.Version,
		events:          events,
		apiVersion:      apiVersion,
		headers:         maps.Clone(cfg.Headers),
		operatorInValue: cfg.DateOperatorInValue,
		timeout:         orDefault(cfg.Timeout, DefaultTimeout),
		pageSize:        orDefault(cfg.PageSize, DefaultPageSize),
		maxPages:        orDefault(cfg.MaxPages, DefaultMaxPages),
		maxBytes:        orDefault(cfg.MaxResponseBytes, DefaultMaxResponseBytes),
		http:            sameHostOnly(cfg.HTTPClient),
		now:             cfg.Now,
	}
	if c.now == nil {
		c.now = time.Now
	}
	if cfg.OAuth2 != nil {
		if c.token, err = newTokenSource(*cfg.OAuth2, c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// orDefault returns v, or def when v is the zero value.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func parseHTTPURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an absolute http or https URL", s)
	}
	return u, nil
}

// isToken reports whether s can be an HTTP header name.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// sameHostOnly returns a copy of hc (or of a plain client) that refuses redirects to another
// host or from https to http: API keys are ordinary headers, which net/http would forward.
func sameHostOnly(hc *http.Client) *http.Client {
	c := &http.Client{}
	if hc != nil {
		*c = *hc
	}
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		first := via[0].URL
		if req.URL.Host != first.Host || (first.Scheme == "https" && req.URL.Scheme != "https") {
			return http.ErrUseLastResponse
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return c
}

// referenceParams are the query parameters each request type is looked up by.
var referenceParams = map[boxwatch.RequestType]string{
	boxwatch.RequestBillOfLading:  ParamTransportDocumentReference,
	boxwatch.RequestBookingNumber: ParamCarrierBookingReference,
	boxwatch.RequestContainer:     ParamEquipmentReference,
}

// Lookup reads every page of events the carrier has for ref and maps them to a shipment. Carrier
// failures are *boxwatch.CarrierError:
//
//   - no events, or 404: not_found;
//   - 410 Gone, the carrier no longer serving what it had (made private, or past its retention):
//     data_unavailable, not temporary;
//   - 422, the carrier refusing the number: invalid_number;
//   - 400, the carrier refusing the request itself: shipping_line_unreachable, not temporary,
//     wrapping ErrConfiguration, since the number is not at fault but the adapter's
//     configuration (events path, API version, quirks) is;
//   - 401 (after one new token, with OAuth2), 403, or a token endpoint refusing the client:
//     shipping_line_unreachable, not temporary, since only new credentials help;
//   - refused connections, resets, timeouts, 408, 429 and 5xx: shipping_line_unreachable,
//     temporary, with RetryAfter from a Retry-After header;
//   - a page that is not a list of events (see parsePage), an answer of which no record could be
//     read, a body over MaxResponseBytes, more than MaxPages pages, a Next-Page that repeats or
//     leaves the carrier's host, a redirect to another host, any other status:
//     unrecognized_response, not temporary.
//
// Records that cannot be read are left out and listed in the shipment's Unreadable, as long as
// another record could be read. A context cancelled by the caller ends the lookup with the
// context's error; a deadline, the caller's or the Client's Timeout, is a temporary failure. An
// unknown request type or an empty number is boxwatch's own error.
func (c *Client) Lookup(ctx context.Context, ref boxwatch.CarrierReference) (boxwatch.CarrierShipment, error) {
	a, err := c.fetch(ctx, ref, time.Time{})
	if err != nil {
		return boxwatch.CarrierShipment{}, err
	}
	if len(a.events) == 0 && len(a.retracted) == 0 {
		return boxwatch.CarrierShipment{}, &boxwatch.CarrierError{Reason: boxwatch.ReasonNotFound, Err: errors.New("the carrier answered no events")}
	}
	return a.shipment(ref), nil
}

// ErrConfiguration is wrapped by the error of a lookup the carrier refused as a bad request (400):
// the adapter asks in a way the carrier does not accept.
var ErrConfiguration = errors.New("the carrier refused the request itself: check its configuration (version, events path, API version, quirks)")

// LookupSince is Lookup restricted to the events the carrier created at or after since (the
// eventCreatedDateTime filter, written as the carrier's quirks require; a 3.0 carrier is asked for
// everything and the older events are dropped here). The shipment is built from those events
// only, so it holds the calls and equipment they mention. No new events is an empty shipment,
// not an error. A zero since is Lookup.
func (c *Client) LookupSince(ctx context.Context, ref boxwatch.CarrierReference, since time.Time) (boxwatch.CarrierShipment, error) {
	if since.IsZero() {
		return c.Lookup(ctx, ref)
	}
	a, err := c.fetch(ctx, ref, since)
	if err != nil {
		return boxwatch.CarrierShipment{}, err
	}
	if c.version == Version30 {
		a.events = slices.DeleteFunc(a.events, func(e event) bool { return e.created.Before(since) })
	}
	return a.shipment(ref), nil
}

// answer is every page of one lookup, read.
type answer struct {
	events     []event
	retracted  []string
	unreadable []boxwatch.UnreadableEvent
}

func (a answer) shipment(ref boxwatch.CarrierReference) boxwatch.CarrierShipment {
	s := shipment(ref, a.events, a.retracted)
	s.Unreadable = a.unreadable
	return s
}

// fetch reads every page of events for ref, created at or after since unless since is zero. It
// fails when records were answered and none could be read.
func (c *Client) fetch(ctx context.Context, ref boxwatch.CarrierReference, since time.Time) (answer, error) {
	param, ok := referenceParams[ref.Type]
	if !ok {
		return answer{}, fmt.Errorf("dcsa: cannot look up a %q", ref.Type)
	}
	if ref.Number == "" {
		return answer{}, errors.New("dcsa: no number to look up")
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	if c.version == Version30 {
		since = time.Time{} // 3.0 has no creation filter: LookupSince filters the answer
	}

	query := url.Values{param: {ref.Number}, ParamLimit: {strconv.Itoa(c.pageSize)}}
	first := c.pageURL(query, since)
	var all answer
	seen := map[string]bool{first.String(): true}
	for u := first; ; {
		body, next, err := c.page(ctx, u)
		if err != nil {
			return answer{}, err
		}
		p, err := parsePage(body, c.now())
		if err != nil {
			return answer{}, err
		}
		for _, e := range p.events {
			e.order = len(all.events)
			all.events = append(all.events, e)
		}
		for _, bad := range p.unreadable {
			bad.Page = len(seen)
			all.unreadable = append(all.unreadable, bad)
		}
		all.retracted = append(all.retracted, p.retracted...)
		if next == "" {
			break
		}
		if u, err = c.nextPage(u, query, since, next); err != nil {
			return answer{}, err
		}
		if seen[u.String()] {
			return answer{}, unrecognized(fmt.Errorf("Next-Page %.100q repeats an earlier page", next))
		}
		if len(seen) == c.maxPages {
			return answer{}, unrecognized(fmt.Errorf("the carrier offers more than %d pages", c.maxPages))
		}
		seen[u.String()] = true
	}
	if len(all.events) == 0 && len(all.retracted) == 0 && len(all.unreadable) > 0 {
		first := all.unreadable[0]
		return answer{}, unrecognized(fmt.Errorf("none of the %d records could be read; record %d of page %d: %s",
			len(all.unreadable), first.Index, first.Page, first.Reason))
	}
	return all, nil
}

// pageURL is the events URL for query, with the created-since filter when since is set. The
// filter's colon is written literally, as the spec shows it.
func (c *Client) pageURL(query url.Values, since time.Time) *url.URL {
	u := *c.events
	u.RawQuery = query.Encode()
	if !since.IsZero() {
		at := since.UTC().Format(time.RFC3339Nano)
		if c.operatorInValue {
			u.RawQuery += "&eventCreatedDateTime=" + url.QueryEscape("gte:"+at)
		} else {
			u.RawQuery += "&eventCreatedDateTime:gte=" + url.QueryEscape(at)
		}
	}
	return &u
}

// nextPage reads a Next-Page header. The spec calls it a link but shows an opaque cursor, and
// carriers send either: an absolute URL (which must stay on the carrier's host), a relative
// reference (it has a query), or a bare cursor, which is sent back with the original filters.
func (c *Client) nextPage(current *url.URL, query url.Values, since time.Time, next string) (*url.URL, error) {
	if !strings.Contains(next, "?") && !strings.Contains(next, "://") {
		q := url.Values{ParamCursor: {next}}
		for k, v := range query {
			q[k] = v
		}
		return c.pageURL(q, since), nil
	}
	ref, err := url.Parse(next)
	if err != nil {
		return nil, unrecognized(fmt.Errorf("Next-Page %.100q: %w", next, err))
	}
	u := current.ResolveReference(ref)
	if u.Scheme != c.events.Scheme || u.Host != c.events.Host {
		return nil, unrecognized(fmt.Errorf("Next-Page %.100q leaves %s", next, c.events.Host))
	}
	return u, nil
}

// page GETs one page and returns its body and Next-Page header. On a 401 with OAuth2 it fetches a
// new token and tries once more.
func (c *Client) page(ctx context.Context, u *url.URL) (body []byte, next string, err error) {
	var rejected string
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, "", unrecognized(err)
		}
		req.Header.Set("Accept", "application/json")
		req.Header.Set(HeaderAPIVersion, c.apiVersion)
		c.setHeaders(req)
		var token string
		if c.token != nil {
			if token, err = c.token.get(ctx, rejected); err != nil {
				return nil, "", err
			}
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return nil, "", c.transportError(ctx, err)
		}
		if resp.StatusCode == http.StatusUnauthorized && c.token != nil && rejected == "" {
			discard(resp)
			rejected = token
			continue
		}
		return c.read(ctx, resp)
	}
}

func (c *Client) setHeaders(req *http.Request) {
	for name, value := range c.headers {
		req.Header.Set(name, value)
	}
}

// read turns an events response into its body or a *boxwatch.CarrierError.
func (c *Client) read(ctx context.Context, resp *http.Response) (body []byte, next string, err error) {
	defer resp.Body.Close()
	switch code := resp.StatusCode; {
	case code == http.StatusNoContent:
		return []byte("[]"), "", nil
	case code >= 200 && code < 300:
		body, err := c.readBody(ctx, resp.Body, c.maxBytes)
		return body, cmp.Or(resp.Header.Get(HeaderNextPageCursor), resp.Header.Get(HeaderNextPage)), err
	default:
		return nil, "", c.statusError(resp, "events")
	}
}

// readBody reads at most limit bytes of r; a longer body is an unrecognized response, a body cut
// short by the network a temporary failure.
func (c *Client) readBody(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, c.transportError(ctx, err)
	}
	if int64(len(body)) > limit {
		return nil, unrecognized(fmt.Errorf("the response is longer than %d bytes", limit))
	}
	return body, nil
}

// describe is the cause of an unsuccessful answer of what (the events or the token endpoint),
// for the logs: the status and the start of the body.
func describe(resp *http.Response, what string) error {
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return fmt.Errorf("%s endpoint answered %s: %q", what, resp.Status, excerpt)
}

// statusError maps an unsuccessful status of what (the events or the token endpoint) to a
// *boxwatch.CarrierError.
func (c *Client) statusError(resp *http.Response, what string) error {
	cause := describe(resp, what)
	switch code := resp.StatusCode; {
	case code == http.StatusNotFound:
		return &boxwatch.CarrierError{Reason: boxwatch.ReasonNotFound, Err: cause}
	case code == http.StatusGone:
		return &boxwatch.CarrierError{Reason: boxwatch.ReasonDataUnavailable, Err: cause}
	case code == http.StatusBadRequest:
		return &boxwatch.CarrierError{Reason: boxwatch.ReasonUnreachable, Err: fmt.Errorf("%w: %w", ErrConfiguration, cause)}
	case code == http.StatusUnprocessableEntity:
		return &boxwatch.CarrierError{Reason: boxwatch.ReasonInvalidNumber, Err: cause}
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return &boxwatch.CarrierError{Reason: boxwatch.ReasonUnreachable, Err: cause}
	case code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500:
		return &boxwatch.CarrierError{
			Reason:     boxwatch.ReasonUnreachable,
			Temporary:  true,
			RetryAfter: retryAfter(resp.Header.Get("Retry-After"), c.now()),
			Err:        cause,
		}
	default:
		return unrecognized(cause)
	}
}

// transportError maps a failure to send or read: the caller's cancellation is returned as it is,
// anything else (refused connections, resets, deadlines) is temporary.
func (c *Client) transportError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("dcsa: %w", ctx.Err())
	}
	return &boxwatch.CarrierError{Reason: boxwatch.ReasonUnreachable, Temporary: true, Err: err}
}

// maxRetryAfter caps the carrier's hint so that a silly value cannot park a request for years.
const maxRetryAfter = 7 * 24 * time.Hour

// retryAfter reads a Retry-After header, in seconds or as an HTTP date; zero when absent or
// unreadable.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	var d time.Duration
	secs, err := strconv.ParseUint(h, 10, 64)
	switch {
	case err == nil && secs < uint64(maxRetryAfter/time.Second):
		d = time.Duration(secs) * time.Second
	case err == nil || errors.Is(err, strconv.ErrRange):
		d = maxRetryAfter
	default:
		if at, err := http.ParseTime(h); err == nil {
			d = at.Sub(now)
		}
	}
	return max(0, min(d, maxRetryAfter))
}

func unrecognized(err error) *boxwatch.CarrierError {
	return &boxwatch.CarrierError{Reason: boxwatch.ReasonUnrecognizedResponse, Err: err}
}

// discard drains a little of a body we do not read, so the connection can be reused.
func discard(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
}
