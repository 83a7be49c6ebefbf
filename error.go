package boxwatch

import (
	"errors"
	"fmt"
)

// Kind classifies an Error; the HTTP layer maps each kind to one status code.
type Kind int

const (
	// KindInternal is any failure the caller cannot fix. Its cause is logged, never shown.
	KindInternal Kind = iota
	// KindInvalid is input that breaks a rule: a bad attribute value, a duplicate, an unknown carrier.
	KindInvalid
	// KindBadRequest is a malformed request: bad JSON, an unknown query parameter.
	KindBadRequest
	// KindNotFound is a resource that does not exist or belongs to another account.
	KindNotFound
	// KindConflict is a name or key that is already taken.
	KindConflict
	// KindUnauthorized is a missing, malformed or unknown API key.
	KindUnauthorized
	// KindForbidden is an account that lacks the feature an endpoint needs.
	KindForbidden
	// KindUnavailable is a dependency, such as the database, that cannot be reached: try again later.
	KindUnavailable
)

// Machine codes carried by Error.Code. Codes shared with the reference API keep its spelling.
const (
	CodeBlank         = "blank"
	CodeInvalid       = "invalid"
	CodeDuplicate     = "duplicate"
	CodeNotRecognized = "not_recognized"
	CodeNotSupported  = "not_supported"
	CodeTooLong       = "too_long"
	CodeNotFound      = "not_found"
	CodeTaken         = "taken"
	CodeUnauthorized  = "unauthorized"
	CodeForbidden     = "forbidden"
	CodeInternal      = "internal"
	CodeUnavailable   = "unavailable"
	// CodeWebhookInactive refuses a redelivery to a webhook that is not active.
	CodeWebhookInactive = "webhook_inactive"

	// Problems with the HTTP exchange itself, answered by the API before a request reaches the
	// domain.
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeInvalidBody          = "invalid_body"
	CodeTooLarge             = "too_large"
	CodeRequestTimeout       = "request_timeout"
	CodeInvalidJSON          = "invalid_json"
	CodeTypeMismatch         = "type_mismatch"
	CodeIDMismatch           = "id_mismatch"
	CodeRateLimited          = "rate_limited"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeRouteNotFound        = "route_not_found"
	// CodeTooManyErrors ends an error list cut short: its message counts the errors left out.
	CodeTooManyErrors = "too_many_errors"
)

// Error is the service's error type: a kind, a machine code and a message that is safe to show to
// the caller. Pointer (a JSON pointer into the request body) or Parameter (a query parameter name)
// says which part of the request is at fault.
type Error struct {
	Kind      Kind
	Code      string
	Message   string
	Pointer   string
	Parameter string
}

func (e *Error) Error() string {
	where := e.Pointer
	if where == "" {
		where = e.Parameter
	}
	if where != "" {
		return fmt.Sprintf("%s (%s at %s)", e.Message, e.Code, where)
	}
	return fmt.Sprintf("%s (%s)", e.Message, e.Code)
}

// Invalid returns a KindInvalid error for the body member at pointer.
func Invalid(pointer, code, format string, args ...any) *Error {
	return &Error{Kind: KindInvalid, Code: code, Message: fmt.Sprintf(format, args...), Pointer: pointer}
}

// BadParameter returns a KindBadRequest error naming the query parameter at fault.
func BadParameter(param, format string, args ...any) *Error {
	return &Error{Kind: KindBadRequest, Code: CodeInvalid, Message: fmt.Sprintf(format, args...), Parameter: param}
}

// A Sentinel is an error value to compare with errors.Is, such as ErrNotFound. It reads as an
// *Error of its kind, code and message: errors.As (and so AsError and AllErrors) gives a new *Error
// each time, which the caller owns and may change without changing what the next caller sees. A
// Sentinel cannot be changed once made.
type Sentinel struct {
	err Error
}

// NewSentinel returns a sentinel of kind k with a machine code and a public message.
func NewSentinel(k Kind, code, message string) *Sentinel {
	return &Sentinel{err: Error{Kind: k, Code: code, Message: message}}
}

func (s *Sentinel) Error() string { return s.err.Error() }

// As sets target, when it is an **Error, to a new *Error with the sentinel's fields.
func (s *Sentinel) As(target any) bool {
	p, ok := target.(**Error)
	if ok {
		e := s.err
		*p = &e
	}
	return ok
}

// ErrNotFound is returned by every lookup whose target does not exist or is not the caller's.
var ErrNotFound = NewSentinel(KindNotFound, CodeNotFound, "The resource was not found.")

// ErrUnauthorized is returned for a missing, malformed or unknown API key.
var ErrUnauthorized = NewSentinel(KindUnauthorized, CodeUnauthorized, "Invalid or missing API token.")

// AsError returns err's *Error, or nil when err is not one (an internal failure).
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// IsKind reports whether err is an *Error of kind k.
func IsKind(err error, k Kind) bool {
	e := AsError(err)
	return e != nil && e.Kind == k
}
