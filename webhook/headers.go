package webhook

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Limits on a webhook's own headers.
const (
	MaxHeaderNameLength  = 128
	MaxHeaderValueLength = 4096
)

const (
	headerNameSpecials  = "!#$%&'*+-.^_`|~"
	deliveryContentType = "application/json"
	headerContentType   = "Content-Type"
	headerUserAgent     = "User-Agent"
)

// Names of the signature headers boxwatch sets on every delivery, in Go's canonical spelling
// (header names are case-insensitive).
const (
	HeaderSignature         = "X-T49-Webhook-Signature"
	HeaderStandardID        = "Webhook-Id"
	HeaderStandardTimestamp = "Webhook-Timestamp"
	HeaderStandardSignature = "Webhook-Signature"
)

// reserved are the header names a webhook's own headers may not set: those boxwatch signs and
// describes the body with, and those that frame the HTTP message itself.
var reserved = map[string]bool{
	HeaderSignature: true, HeaderStandardID: true, HeaderStandardTimestamp: true, HeaderStandardSignature: true,
	headerContentType: true, headerUserAgent: true,
	"Host": true, "Content-Length": true, "Content-Encoding": true, "Transfer-Encoding": true, "Connection": true,
	"Keep-Alive": true, "Proxy-Connection": true, "Upgrade": true, "Te": true, "Trailer": true, "Expect": true,
}

// Reserved reports whether name (in any letter case) is a header boxwatch sets on every delivery or
// that frames the HTTP message, which a webhook's own headers may not set.
func Reserved(name string) bool {
	return reserved[http.CanonicalHeaderKey(name)]
}

// CheckHeader says in a sentence, fit to show the user, why a webhook may not have the header
// name: value, or returns "" when it may: the name must be an HTTP token that is not Reserved, the
// value free of control characters and surrounding spaces, both within the length limits. Header
// names may repeat; the header is then sent with each value.
func CheckHeader(name, value string) string {
	switch {
	case name == "":
		return "Header names must not be blank."
	case len(name) > MaxHeaderNameLength:
		return fmt.Sprintf("Header names must be at most %d characters long.", MaxHeaderNameLength)
	case !validHeaderName(name):
		return fmt.Sprintf("Header names may contain only letters, digits and %s.", headerNameSpecials)
	case Reserved(name):
		return fmt.Sprintf("The %s header is set by boxwatch on every delivery and cannot be replaced.", http.CanonicalHeaderKey(name))
	case len(value) > MaxHeaderValueLength:
		return fmt.Sprintf("Header values must be at most %d characters long.", MaxHeaderValueLength)
	case !validHeaderValue(value):
		return "Header values must not contain line breaks or other control characters, nor begin or end with spaces."
	}
	return ""
}

// validHeaderName reports whether name is an RFC 9110 token.
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte(headerNameSpecials, c) >= 0:
		default:
			return false
		}
	}
	return true
}

// validHeaderValue reports whether value is an RFC 9110 field value without surrounding spaces.
func validHeaderValue(value string) bool {
	if strings.Trim(value, " \t") != value {
		return false
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// requestHeaders returns the headers of one delivery: the webhook's own first, skipping any that
// CheckHeader refuses (registration keeps them out already), then the content, signature and
// Standard Webhooks headers, which always win.
func requestHeaders(r Request) http.Header {
	h := make(http.Header, len(r.Headers)+6)
	for _, extra := range r.Headers {
		if CheckHeader(extra.Name, extra.Value) == "" {
			h.Add(extra.Name, extra.Value)
		}
	}
	h.Set(headerContentType, deliveryContentType)
	h.Set(headerUserAgent, UserAgent)
	h.Set(HeaderSignature, Sign(r.Secret, r.Body))
	h.Set(HeaderStandardID, r.NotificationID)
	h.Set(HeaderStandardTimestamp, strconv.FormatInt(r.Now.Unix(), 10))
	h.Set(HeaderStandardSignature, SignStandard(r.Secret, r.NotificationID, r.Now, r.Body))
	return h
}
