// Package client is a typed Go client for boxwatch's public /v2 API (the Terminal49 v2 wire
// format): tracking requests, number inference, shipments, containers and their events, the
// container map, shipping lines, vessels and webhooks with their deliveries.
//
// It speaks only HTTP to a running service and imports nothing of the server, so it works
// against any deployment (or any Terminal49-compatible API for the endpoints both have). Every
// failed call returns an *Error carrying the API's status, code and detail.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultURL is where a local "boxwatch serve" listens.
const DefaultURL = "http://127.0.0.1:8080"

// mediaType is the JSON:API media type the API answers with and accepts.
const mediaType = "application/vnd.api+json"

// maxResponse bounds how much of an answer is read; the API's largest pages are far smaller.
const maxResponse = 32 << 20

// Client calls one boxwatch service with one API key. It is safe for concurrent use.
type Client struct {
	base *url.URL
	key  string
	http *http.Client
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends requests through hc instead of a client with a 30 second timeout.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// New returns a client of the service at baseURL (scheme and host, optionally a path prefix)
// authenticating with key. It fails when baseURL is not an absolute http or https URL, or when
// the key holds characters a header cannot carry; an empty key is allowed for calls that need
// none, and the service answers 401 to the others.
func New(baseURL, key string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: %q is not an http:// or https:// URL", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("client: base URL %q must have no query, fragment or credentials", baseURL)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	for _, r := range key {
		if r < 0x21 || r > 0x7e {
			return nil, errors.New("client: the API key holds a space, control or non-ASCII character")
		}
	}
	c := &Client{base: u, key: key, http: &http.Client{Timeout: 30 * time.Second}}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// BaseURL returns the service's URL as the client uses it.
func (c *Client) BaseURL() string { return c.base.String() }

// Error is a failed call: the HTTP status and the API's error objects. A transport failure (no
// answer) is not an *Error but the net/http error, wrapped.
type Error struct {
	Method, Path string
	StatusCode   int
	// Errors are the API's error objects, at least one: when the answer was not a JSON:API
	// error document, one is made from the status.
	Errors []ErrorObject
	// RequestID is the server's X-Request-Id, which matches its log line.
	RequestID string
}

// ErrorObject is one JSON:API error.
type ErrorObject struct {
	Status string `json:"status"`
	Title  string `json:"title"`
	Detail string `json:"detail,omitempty"`
	Code   string `json:"code,omitempty"`
	Source *struct {
		Pointer   string `json:"pointer,omitempty"`
		Parameter string `json:"parameter,omitempty"`
	} `json:"source,omitempty"`
}

// Code is the machine code of the first error ("not_found", "duplicate", "unauthorized"…).
func (e *Error) Code() string { return e.Errors[0].Code }

// Detail is the public message of the first error, or its title when it has none.
func (e *Error) Detail() string {
	if d := e.Errors[0].Detail; d != "" {
		return d
	}
	return e.Errors[0].Title
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d", e.Method, e.Path, e.StatusCode)
	for i, o := range e.Errors {
		if i > 0 {
			b.WriteString(";")
		}
		if o.Code != "" {
			fmt.Fprintf(&b, " %s:", o.Code)
		}
		if o.Detail != "" {
			b.WriteString(" " + o.Detail)
		} else {
			b.WriteString(" " + o.Title)
		}
		if o.Source != nil && (o.Source.Pointer != "" || o.Source.Parameter != "") {
			fmt.Fprintf(&b, " (%s%s)", o.Source.Pointer, o.Source.Parameter)
		}
	}
	return b.String()
}

// StatusOf returns the HTTP status of an *Error in err's chain, or 0.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}

// IsNotFound reports whether err is the API's 404.
func IsNotFound(err error) bool { return StatusOf(err) == http.StatusNotFound }

// do sends one request and returns the body of a 2xx answer. body, when not nil, is sent as JSON.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body any) ([]byte, error) {
	u := *c.base
	u.Path += path
	if len(query) > 0 {
		u.RawQuery = query.Encode()
	}
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", mediaType)
	if body != nil {
		req.Header.Set("Content-Type", mediaType)
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Token "+c.key)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxResponse+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if len(raw) > maxResponse {
		return nil, fmt.Errorf("%s %s: the answer is larger than %d bytes", method, path, maxResponse)
	}
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		return raw, nil
	}
	e := &Error{Method: method, Path: path, StatusCode: res.StatusCode, RequestID: res.Header.Get("X-Request-Id")}
	var doc struct {
		Errors []ErrorObject `json:"errors"`
	}
	if json.Unmarshal(raw, &doc) == nil && len(doc.Errors) > 0 {
		e.Errors = doc.Errors
	} else {
		e.Errors = []ErrorObject{{Status: strconv.Itoa(res.StatusCode), Title: http.StatusText(res.StatusCode)}}
	}
	return nil, e
}

// resource is a JSON:API resource object as the API sends it.
type resource struct {
	ID            string                  `json:"id"`
	Type          string                  `json:"type"`
	Attributes    json.RawMessage         `json:"attributes"`
	Relationships map[string]relationship `json:"relationships"`
}

type relationship struct {
	Data json.RawMessage `json:"data"`
}

type identifier struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// one returns the id of a to-one relationship, or "" when it is null or absent.
func (r resource) one(name string) string {
	var id *identifier
	if rel, ok := r.Relationships[name]; ok && json.Unmarshal(rel.Data, &id) == nil && id != nil {
		return id.ID
	}
	return ""
}

// many returns the ids of a to-many relationship.
func (r resource) many(name string) []string {
	var ids []identifier
	out := []string{}
	if rel, ok := r.Relationships[name]; ok && json.Unmarshal(rel.Data, &ids) == nil {
		for _, id := range ids {
			out = append(out, id.ID)
		}
	}
	return out
}

// document is a JSON:API top-level document whose data is one resource or a list.
type document struct {
	Data     json.RawMessage `json:"data"`
	Included []resource      `json:"included"`
	Meta     struct {
		Total      int `json:"total"`
		Pagination struct {
			Current int `json:"current"`
			Last    int `json:"last"`
		} `json:"pagination"`
	} `json:"meta"`
}

// included finds an included resource by type and id.
func (d document) included(typ, id string) (resource, bool) {
	for _, r := range d.Included {
		if r.Type == typ && r.ID == id {
			return r, true
		}
	}
	return resource{}, false
}

func decodeDocument(method, path string, raw []byte) (document, error) {
	var d document
	if err := json.Unmarshal(raw, &d); err != nil {
		return d, fmt.Errorf("%s %s: the answer is not a JSON:API document: %w", method, path, err)
	}
	return d, nil
}

// decodeOne decodes a single resource of type typ into v (its attributes) and returns it.
func decodeOne(method, path string, d document, typ string, v any) (resource, error) {
	var r resource
	if err := json.Unmarshal(d.Data, &r); err != nil {
		return r, fmt.Errorf("%s %s: data is not a resource: %w", method, path, err)
	}
	return r, decodeAttributes(method, path, r, typ, v)
}

func decodeAttributes(method, path string, r resource, typ string, v any) error {
	if r.Type != typ {
		return fmt.Errorf("%s %s: got a %q resource, want %q", method, path, r.Type, typ)
	}
	if err := json.Unmarshal(r.Attributes, v); err != nil {
		return fmt.Errorf("%s %s: %s %s: %w", method, path, typ, r.ID, err)
	}
	return nil
}

// decodeList decodes a list of resources of type typ, each through conv.
func decodeList[T any](method, path string, d document, typ string, conv func(resource, *T)) ([]T, error) {
	var rs []resource
	if err := json.Unmarshal(d.Data, &rs); err != nil {
		return nil, fmt.Errorf("%s %s: data is not a list of resources: %w", method, path, err)
	}
	out := make([]T, len(rs))
	for i, r := range rs {
		if err := decodeAttributes(method, path, r, typ, &out[i]); err != nil {
			return nil, err
		}
		conv(r, &out[i])
	}
	return out, nil
}

// get fetches path and decodes the document.
func (c *Client) get(ctx context.Context, path string, query url.Values) (document, error) {
	raw, err := c.do(ctx, http.MethodGet, path, query, nil)
	if err != nil {
		return document{}, err
	}
	return decodeDocument(http.MethodGet, path, raw)
}

// send posts or patches body to path and decodes the document.
func (c *Client) send(ctx context.Context, method, path string, query url.Values, body any) (document, error) {
	raw, err := c.do(ctx, method, path, query, body)
	if err != nil {
		return document{}, err
	}
	return decodeDocument(method, path, raw)
}

// escape makes an id safe as one path segment: an id holding "/" or "?" cannot reach another route.
func escape(id string) string { return url.PathEscape(id) }

// Page selects a page of a list: Number from 1, Size up to 100. The zero value is the API's
// default (the first page of 30).
type Page struct {
	Number, Size int
}

func (p Page) values(q url.Values) url.Values {
	if q == nil {
		q = url.Values{}
	}
	if p.Number > 0 {
		q.Set("page[number]", strconv.Itoa(p.Number))
	}
	if p.Size > 0 {
		q.Set("page[size]", strconv.Itoa(p.Size))
	}
	return q
}

// List is one page of a list, with how many records match on every page.
type List[T any] struct {
	Items []T `json:"items"`
	Total int `json:"total"`
	// Page is this page's number and LastPage the last one's.
	Page     int `json:"page"`
	LastPage int `json:"last_page"`
}

func listOf[T any](d document, items []T) List[T] {
	return List[T]{Items: items, Total: d.Meta.Total, Page: d.Meta.Pagination.Current, LastPage: d.Meta.Pagination.Last}
}

// all fetches every page of a list, 100 at a time.
func all[T any](ctx context.Context, fetch func(ctx context.Context, p Page) (List[T], error)) ([]T, error) {
	out := []T{}
	for n := 1; ; n++ {
		l, err := fetch(ctx, Page{Number: n, Size: 100})
		if err != nil {
			return nil, err
		}
		out = append(out, l.Items...)
		if len(l.Items) == 0 || n >= l.LastPage {
			return out, nil
		}
	}
}

// IsRouteNotFound reports whether err is the API's 404 for a path it has no endpoint at, as
// opposed to a resource that does not exist: the service is older than the endpoint.
func IsRouteNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.StatusCode == http.StatusNotFound && e.Code() == "route_not_found"
}
