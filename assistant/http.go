package assistant

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boxwatch/boxwatch/client"
)

// inProcessURL is the base URL of the in-process client: requests never leave the process, so it
// names no host that resolves.
const inProcessURL = "http://boxwatch.in-process"

// Handler serves MCP over streamable HTTP for the API handler api, statelessly (no session lives
// between requests, so any replica answers any request). Every tool calls api in process with the
// key the request carries (Authorization: Bearer KEY or Token KEY); the caller mounts Handler
// behind the API's own key check.
func Handler(api http.Handler, opts Options) http.Handler {
	hc := &http.Client{Transport: inProcess{api}}
	connect := func(_ context.Context, extra *mcp.RequestExtra) (*client.Client, error) {
		if extra == nil {
			return nil, errors.New("the request carries no API key")
		}
		key, ok := apiKey(extra.Header.Get("Authorization"))
		if !ok {
			return nil, errors.New("the request carries no API key: send Authorization: Bearer KEY")
		}
		return client.New(inProcessURL, key, client.WithHTTPClient(hc))
	}
	server := New(connect, opts)
	// The SDK's guard against DNS rebinding refuses a request reaching a loopback listener under
	// another host name, which is what a reverse proxy on the same machine sends. It protects
	// servers that trust whoever reaches them; every call here carries an API key, which a page
	// rebound to the address does not have. Bodies are bounded as the API bounds its own.
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: opts.Logger,
			DisableLocalhostProtection: true, MaxRequestBodyBytes: maxBody})
}

// maxBody bounds a request to /mcp, as the API bounds a request body.
const maxBody = 1 << 20

// apiKey reads the key of an Authorization header, "Bearer KEY" or "Token KEY" as the API takes it.
func apiKey(header string) (string, bool) {
	scheme, key, ok := strings.Cut(header, " ")
	key = strings.TrimSpace(key)
	if !ok || key == "" || !strings.EqualFold(scheme, "Bearer") && !strings.EqualFold(scheme, "Token") {
		return "", false
	}
	return key, true
}

// inProcess is an http.RoundTripper that serves each request with a handler, in process: the
// request the handler sees is the one a server would have built from it.
type inProcess struct{ h http.Handler }

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	in := req.Clone(req.Context())
	in.RequestURI, in.Host, in.RemoteAddr = req.URL.RequestURI(), req.URL.Host, "in-process"
	if in.Body == nil {
		in.Body = http.NoBody
	}
	w := &response{header: http.Header{}}
	t.h.ServeHTTP(w, in)
	if req.Body != nil {
		req.Body.Close()
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return &http.Response{Status: strconv.Itoa(w.status) + " " + http.StatusText(w.status), StatusCode: w.status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: w.header, Body: io.NopCloser(&w.body),
		ContentLength: int64(w.body.Len()), Request: req}, nil
}

// response collects what a handler writes.
type response struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *response) Header() http.Header { return w.header }

func (w *response) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *response) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}
