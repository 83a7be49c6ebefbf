// Package terminal is boxwatch's seam to terminal operating systems: the boxwatch terminal
// protocol (docs/terminals.md) that an adapter speaks, its HTTP client, the directory that finds
// the adapter of a terminal by its SMDG or FIRMS code, the terminals file (boxwatch serve
// --terminals), and the metrics of every check.
//
// A Client serves one terminal (or a gateway for several). It talks only to its base URL's host,
// never follows a redirect elsewhere, waits for its rate limit before each request, and reads no
// more than MaxResponseBytes; whatever the terminal answers, a check ends in a report or an error,
// never a panic. Its URLs come from the operator (the terminals file) or the simulator: like a
// carrier's, they are not subject to the SSRF guard of webhook URLs, which customers give.
package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/boxwatch/boxwatch"
)

// Defaults of Config.
const (
	DefaultTimeout = 20 * time.Second
	// DefaultRate is how many checks a second one terminal is sent, DefaultBurst how many at once.
	DefaultRate  = 5.0
	DefaultBurst = 5
	// DefaultMaxWait is the longest a check waits for its turn before Check returns
	// *boxwatch.TerminalBusy instead of waiting.
	DefaultMaxWait = time.Second
)

// Config describes how to reach one terminal. Only BaseURL is required.
type Config struct {
	// BaseURL is the root of the terminal's protocol: GET BaseURL + "/v1/containers/{number}".
	BaseURL string
	// Headers are sent with every request (an API key).
	Headers map[string]string
	// Timeout bounds one check; DefaultTimeout when zero.
	Timeout time.Duration
	// Rate and Burst bound the checks sent to the terminal (a token bucket): DefaultRate and
	// DefaultBurst when zero. A check waits for its turn up to MaxWait and its context's deadline.
	Rate  float64
	Burst int
	// MaxWait is the longest a check waits for its turn: when the bucket's next token is
	// further away, Check asks nothing and returns *boxwatch.TerminalBusy with the wait, so that
	// a backlog at one terminal does not hold the workers that others' checks need.
	// DefaultMaxWait when zero.
	MaxWait time.Duration
	// HTTPClient makes the requests; a plain client when nil. Redirects to another host are refused.
	HTTPClient *http.Client
}

// Client checks containers with one terminal over the boxwatch terminal protocol.
type Client struct {
	base    *url.URL
	headers map[string]string
	timeout time.Duration
	maxWait time.Duration
	limit   *rate.Limiter
	http    *http.Client
}

// New returns a client, or an error for a base URL that is not absolute http(s) or for negative bounds.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSuffix(cfg.BaseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("terminal: base URL %q is not an absolute http(s) URL without credentials, query or fragment", cfg.BaseURL)
	}
	if cfg.Timeout < 0 || cfg.Rate < 0 || cfg.Burst < 0 || cfg.MaxWait < 0 {
		return nil, errors.New("terminal: timeout, rate, burst and maximum wait must not be negative")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Rate == 0 {
		cfg.Rate = DefaultRate
	}
	if cfg.Burst == 0 {
		cfg.Burst = DefaultBurst
	}
	if cfg.MaxWait == 0 {
		cfg.MaxWait = DefaultMaxWait
	}
	return &Client{base: u, headers: maps.Clone(cfg.Headers), timeout: cfg.Timeout, maxWait: cfg.MaxWait,
		limit: rate.NewLimiter(rate.Limit(cfg.Rate), cfg.Burst), http: sameHostOnly(cfg.HTTPClient, u.Host)}, nil
}

// sameHostOnly returns a copy of hc (or of a plain client) that refuses redirects to another host.
func sameHostOnly(hc *http.Client, host string) *http.Client {
	c := &http.Client{}
	if hc != nil {
		cp := *hc
		c = &cp
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != host {
			return fmt.Errorf("redirect to another host (%s)", req.URL.Host)
		}
		if len(via) >= 5 {
			return errors.New("stopped after 5 redirects")
		}
		return nil
	}
	return c
}

// Check asks the terminal about one container. Failures are *boxwatch.TerminalError: 404 is
// not_found; 429 rate_limited and 5xx, timeouts and network errors terminal_unreachable, both
// temporary with the terminal's Retry-After; any other status, or an answer Parse refuses,
// unrecognized_response. A context cancelled by the caller is returned as it is.
func (c *Client) Check(ctx context.Context, q boxwatch.TerminalQuery) (boxwatch.TerminalReport, error) {
	number := strings.ToUpper(strings.TrimSpace(q.Container))
	if boxwatch.ContainerNumberProblem(number) != "" {
		return boxwatch.TerminalReport{}, &boxwatch.TerminalError{Reason: boxwatch.TerminalNotFound, Err: fmt.Errorf("%q is not a container number", q.Container)}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	if err := c.turn(ctx, q.Terminal); err != nil {
		return boxwatch.TerminalReport{}, err
	}
	u := *c.base
	u.Path = c.base.Path + "/v1/containers/" + url.PathEscape(number)
	params := url.Values{}
	for k, v := range map[string]string{"scac": q.SCAC, "bill_of_lading": q.BillOfLading, "booking": q.Booking} {
		if v != "" {
			params.Set(k, v)
		}
	}
	u.RawQuery = params.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return boxwatch.TerminalReport{}, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "boxwatch")
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return boxwatch.TerminalReport{}, err
		}
		return boxwatch.TerminalReport{}, &boxwatch.TerminalError{Reason: boxwatch.TerminalUnreachable, Temporary: true, Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return boxwatch.TerminalReport{}, &boxwatch.TerminalError{Reason: boxwatch.TerminalUnreachable, Temporary: true, Err: err}
	}
	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode == http.StatusNotFound:
		return boxwatch.TerminalReport{}, &boxwatch.TerminalError{Reason: boxwatch.TerminalNotFound, Err: statusError(resp, body)}
	case resp.StatusCode == http.StatusTooManyRequests:
		return boxwatch.TerminalReport{}, &boxwatch.TerminalError{Reason: boxwatch.TerminalRateLimited, Temporary: true,
			RetryAfter: retryAfter(resp), Err: statusError(resp, body)}
	case resp.StatusCode >= 500:
		return boxwatch.TerminalReport{}, &boxwatch.TerminalError{Reason: boxwatch.TerminalUnreachable, Temporary: true,
			RetryAfter: retryAfter(resp), Err: statusError(resp, body)}
	default:
		return boxwatch.TerminalReport{}, &boxwatch.TerminalError{Reason: boxwatch.TerminalUnrecognized, Err: statusError(resp, body)}
	}
	r, err := Parse(body, number)
	if err != nil {
		return boxwatch.TerminalReport{}, &boxwatch.TerminalError{Reason: boxwatch.TerminalUnrecognized, Err: err}
	}
	return r, nil
}

// turn waits for the check's turn in the terminal's bucket: at most maxWait, beyond which it takes
// no token and returns *boxwatch.TerminalBusy. A context cancelled by the caller is returned as it
// is; one that ends while the check waits, as a temporary rate_limited failure.
func (c *Client) turn(ctx context.Context, t boxwatch.TerminalRef) error {
	r := c.limit.Reserve()
	wait := r.Delay()
	switch {
	case wait == 0:
		return nil
	case wait > c.maxWait:
		r.Cancel()
		return &boxwatch.TerminalBusy{Terminal: t, Wait: wait}
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		r.Cancel()
		if errors.Is(context.Cause(ctx), context.Canceled) {
			return ctx.Err()
		}
		return &boxwatch.TerminalError{Reason: boxwatch.TerminalRateLimited, Temporary: true,
			Err: fmt.Errorf("own rate limit: %w", ctx.Err())}
	}
}

// statusError describes an answer other than 200, with the terminal's own message when it sent one.
func statusError(resp *http.Response, body []byte) error {
	var e Error
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		return fmt.Errorf("%s: %.200s", resp.Status, e.Error.Message)
	}
	return errors.New(resp.Status)
}

// retryAfter reads a Retry-After in seconds, capped at an hour; zero when absent or unreadable.
func retryAfter(resp *http.Response) time.Duration {
	s, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After")))
	if err != nil || s < 0 {
		return 0
	}
	return min(time.Duration(s)*time.Second, time.Hour)
}
