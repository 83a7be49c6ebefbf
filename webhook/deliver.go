package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/boxwatch/boxwatch"
)

// Request is one delivery of one notification to one webhook.
type Request struct {
	URL     string
	Headers []boxwatch.WebhookHeader // the webhook's own; those CheckHeader refuses are skipped
	Secret  string
	// NotificationID is sent as webhook-id: the same on every attempt, so receivers can deduplicate.
	NotificationID string
	// Body is sent and signed byte for byte.
	Body []byte
	// Now is the time of the attempt, sent as webhook-timestamp; zero means the system clock.
	Now time.Time
}

// Outcome is what the caller should do after an attempt.
type Outcome string

const (
	// Succeeded: the receiver answered 200, 201, 202 or 204. The notification is delivered.
	Succeeded Outcome = "succeeded"
	// Retry: anything else. Try again after Attempt.NextDelay, up to MaxRetries times.
	Retry Outcome = "retry"
	// Gone: the receiver answered 410. Stop, and deactivate the webhook.
	Gone Outcome = "gone"
)

// Limits on what Deliver reads of a response.
const (
	// SnippetSize is how much of the response body Attempt.ResponseSnippet keeps.
	SnippetSize = 1 << 10
	// drainSize is how much of the body is read in all, so that the connection can be reused.
	drainSize = 64 << 10
	// MaxRetryAfter caps the wait a receiver can ask for with Retry-After.
	MaxRetryAfter = 6 * time.Hour
)

// Attempt is the record of one delivery attempt.
type Attempt struct {
	At      time.Time
	Outcome Outcome
	// StatusCode is the response status, or 0 when no response arrived.
	StatusCode int
	// Latency runs from sending the request to reading the end of the response (or failing).
	Latency time.Duration
	// Err says in a sentence, fit to show the webhook's owner, why the attempt did not succeed;
	// it is empty when it did.
	Err string
	// ResponseSnippet is the first SnippetSize bytes of the response body, made valid UTF-8.
	ResponseSnippet string
	// RetryAfter is the wait asked for by a 429 or 503 response's Retry-After header, capped at
	// MaxRetryAfter; zero otherwise.
	RetryAfter time.Duration
	// RequestHeaders are the headers sent; ResponseHeaders those received (nil without a response).
	RequestHeaders  http.Header
	ResponseHeaders http.Header
}

// Deliver POSTs r.Body to r.URL once, through client (one made by NewClient), and reports how it
// went. It returns no error: a failed attempt has Outcome Retry (Gone for a 410) and Err set. An
// empty Secret or NotificationID is refused without sending anything.
//
// The request carries the webhook's own headers, then Content-Type: application/json, User-Agent,
// X-T49-Webhook-Signature (Sign) and the Standard Webhooks webhook-id, webhook-timestamp and
// webhook-signature (SignStandard); a webhook's own header never replaces any of these (see Reserved).
func Deliver(ctx context.Context, client *http.Client, r Request) Attempt {
	if r.Now.IsZero() {
		r.Now = time.Now().UTC()
	}
	a := Attempt{At: r.Now, Outcome: Retry}
	switch {
	case r.Secret == "":
		a.Err = "The webhook has no secret, so the notification was not sent."
		return a
	case r.NotificationID == "":
		a.Err = "The notification has no id, so it was not sent."
		return a
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		a.Err = "The webhook URL is not a valid URL."
		return a
	}
	req.Header = requestHeaders(r)
	a.RequestHeaders = req.Header.Clone()

	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		a.Latency = time.Since(start)
		a.Err = describe(err, client.Timeout)
		return a
	}
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, SnippetSize))
	io.Copy(io.Discard, io.LimitReader(resp.Body, drainSize-SnippetSize))
	resp.Body.Close()
	a.Latency = time.Since(start)
	a.StatusCode = resp.StatusCode
	a.ResponseHeaders = resp.Header
	a.ResponseSnippet = strings.ToValidUTF8(string(snippet), string(utf8.RuneError))

	status := fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	switch code := resp.StatusCode; {
	case code == http.StatusOK, code == http.StatusCreated, code == http.StatusAccepted, code == http.StatusNoContent:
		a.Outcome = Succeeded
	case code == http.StatusGone:
		a.Outcome = Gone
		a.Err = "The endpoint answered 410 Gone, which deactivates the webhook."
	case code >= 300 && code < 400:
		a.Err = fmt.Sprintf("The endpoint answered %s; redirects are not followed, so point the webhook at the final URL.", status)
	case code == http.StatusTooManyRequests, code == http.StatusServiceUnavailable:
		a.RetryAfter, _ = parseRetryAfter(resp.Header.Get("Retry-After"), responseTime(resp, r.Now.Add(a.Latency)))
		a.Err = fmt.Sprintf("The endpoint answered %s.", status)
		if a.RetryAfter > 0 {
			a.Err = fmt.Sprintf("The endpoint answered %s and asked to wait %s.", status, a.RetryAfter)
		}
	default:
		a.Err = fmt.Sprintf("The endpoint answered %s; only 200, 201, 202 and 204 count as delivered.", status)
	}
	return a
}

// responseTime is when the receiver says it answered (its Date header), to measure an HTTP-date
// Retry-After against the receiver's own clock; fallback when it sent none.
func responseTime(resp *http.Response, fallback time.Time) time.Time {
	if t, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		return t
	}
	return fallback
}

// parseRetryAfter reads a Retry-After value, delay-seconds or an HTTP date, as a wait from now,
// capped at MaxRetryAfter. A date in the past is a wait of zero; ok is false when v is neither form.
func parseRetryAfter(v string, now time.Time) (wait time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if strings.Trim(v, "0123456789") == "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n > uint64(MaxRetryAfter/time.Second) {
			return MaxRetryAfter, true
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return min(max(t.Sub(now), 0), MaxRetryAfter), true
}

// describe turns a failed exchange into a sentence for the webhook's owner.
func describe(err error, timeout time.Duration) string {
	var (
		blocked  *blockedError
		dnsErr   *net.DNSError
		certErr  *tls.CertificateVerificationError
		hostErr  x509.HostnameError
		recErr   tls.RecordHeaderError
		netErr   net.Error
		opErr    *net.OpError
		urlErr   *url.Error
		innerErr = err
	)
	if errors.As(err, &urlErr) {
		innerErr = urlErr.Err // without the method and URL
	}
	switch {
	case errors.Is(err, errPlainHTTP):
		return "The webhook URL uses http; deliveries go over https only."
	case errors.As(err, &blocked):
		return "The host " + blocked.Error() + "."
	case errors.Is(err, context.Canceled):
		return "The attempt was interrupted before a response arrived; it will be retried."
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		if timeout > 0 {
			return fmt.Sprintf("No complete response within %s.", timeout)
		}
		return "No complete response before the deadline."
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return fmt.Sprintf("The host name %s could not be resolved.", dnsErr.Name)
		}
		return fmt.Sprintf("The host name %s could not be looked up: %s.", dnsErr.Name, dnsErr.Err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "The endpoint refused the connection."
	case errors.As(err, &hostErr):
		return "The endpoint's TLS certificate is not valid for its host name."
	case errors.As(err, &certErr):
		return fmt.Sprintf("The endpoint's TLS certificate could not be verified: %v.", certErr.Err)
	case errors.As(err, &recErr):
		return "The endpoint did not answer with TLS."
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "The endpoint closed the connection before answering."
	case errors.As(err, &opErr):
		return fmt.Sprintf("The connection failed: %v.", opErr.Err)
	}
	return fmt.Sprintf("The request failed: %v.", innerErr)
}
