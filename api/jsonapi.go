package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	segmentjson "github.com/segmentio/encoding/json"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// MediaType is the JSON:API media type every response carries.
const MediaType = "application/vnd.api+json"

// MaxBodyBytes bounds a request body; larger bodies get 413.
const MaxBodyBytes = 1 << 20

// errorDocument is the body of every error response.
type errorDocument struct {
	Errors []errorObject `json:"errors"`
}

type errorObject struct {
	Status string       `json:"status"`
	Title  string       `json:"title"`
	Detail string       `json:"detail,omitempty"`
	Code   string       `json:"code,omitempty"`
	Source *errorSource `json:"source,omitempty"`
	Meta   *errorMeta   `json:"meta,omitempty"`
}

type errorSource struct {
	Pointer   string `json:"pointer,omitempty"`
	Parameter string `json:"parameter,omitempty"`
}

type errorMeta struct {
	RequestID string `json:"request_id,omitempty"`
}

// httpError is an error that already knows its status: problems with the HTTP exchange itself.
type httpError struct {
	status int
	code   string
	// title replaces the status phrase where the reference API words an error its own way.
	title  string
	detail string
	header http.Header
}

func (e *httpError) Error() string { return fmt.Sprintf("%d %s", e.status, e.detail) }

var statusOfKind = map[boxwatch.Kind]int{
	boxwatch.KindInvalid:      http.StatusUnprocessableEntity,
	boxwatch.KindBadRequest:   http.StatusBadRequest,
	boxwatch.KindNotFound:     http.StatusNotFound,
	boxwatch.KindConflict:     http.StatusConflict,
	boxwatch.KindUnauthorized: http.StatusUnauthorized,
	boxwatch.KindForbidden:    http.StatusForbidden,
	boxwatch.KindUnavailable:  http.StatusServiceUnavailable,
}

// writeJSON sends v as the body with the JSON:API media type.
func writeJSON(w http.ResponseWriter, status int, v any) { writeJSONAs(w, status, MediaType, v) }

// writeEmpty answers status without a body, as the reference answers a deletion: 200 where it
// documents 200 (webhooks, custom field definitions, options, custom fields by id), 204 where it
// documents 204 (an entity's custom field by api_slug).
func writeEmpty(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(status)
}

// writeResource answers one resource with its absolute self link and what include added.
func writeResource[R any](w http.ResponseWriter, status int, self string, res R, included []any) {
	writeJSON(w, status, jsonapi.Document[R]{Data: res, Included: included, Links: &jsonapi.Links{Self: self}})
}

// unavailableRetryAfter is the wait, in seconds, every 503 asks for unless it knows better: about
// what a database restart or failover takes.
const unavailableRetryAfter = "5"

// writeJSONAs sends v as the body with the given media type. A 503 always carries Retry-After, so
// clients and load balancers back off instead of hammering a service that is recovering.
func writeJSONAs(w http.ResponseWriter, status int, mediaType string, v any) {
	buf := bodyBuffers.Get().(*bytes.Buffer)
	defer putBodyBuffer(buf)
	encodeJSON(buf, v)
	if status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", unavailableRetryAfter)
	}
	w.Header().Set("Content-Type", mediaType)
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// bodyBuffers holds the buffers responses are encoded into, so that a page of a list does not
// grow a new one each time. A buffer larger than maxPooledBody is left to the collector, so the
// pool never keeps a rare large answer's memory.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBody = 1 << 20

func putBodyBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBody {
		buf.Reset()
		bodyBuffers.Put(buf)
	}
}

// mustJSON encodes v without escaping HTML, ending in a newline.
func mustJSON(v any) []byte {
	var buf bytes.Buffer
	encodeJSON(&buf, v)
	return buf.Bytes()
}

// encodeJSON appends v to buf without escaping HTML, ending in a newline, as encoding/json's
// Encoder with SetEscapeHTML(false) writes it (map keys sorted, U+2028 and U+2029 escaped, invalid
// UTF-8 replaced; TestEncodeJSONAsStandardLibrary compares them), with segmentio/encoding's
// encoder: a page of 100 shipments encodes about three times faster, into the pooled buffer
// without allocating (docs/benchmarks/api.md).
func encodeJSON(buf *bytes.Buffer, v any) {
	buf.Write(append(appendJSON(buf.AvailableBuffer(), v), '\n'))
}

// appendJSON appends v to dst as encodeJSON encodes it, without the newline.
func appendJSON(dst []byte, v any) []byte {
	b, err := segmentjson.Append(dst, v, segmentjson.SortMapKeys)
	if err != nil {
		// Only a programming error gets here: every document is made of plain types.
		panic(fmt.Sprintf("api: encoding %T: %v", v, err))
	}
	return b
}

// maxListedErrors bounds the errors one response lists, so a body holding thousands of bad values
// cannot make the answer thousands of times its size.
const maxListedErrors = 20

// errorResponse turns err into a status and an error document. Internal errors carry no detail;
// the caller logs their cause.
func errorResponse(err error, requestID string) (int, errorDocument, http.Header) {
	var he *httpError
	if errors.As(err, &he) {
		title := he.title
		if title == "" {
			title = http.StatusText(he.status)
		}
		return he.status, errorDocument{Errors: []errorObject{{
			Status: strconv.Itoa(he.status), Title: title, Detail: he.detail, Code: he.code,
		}}}, he.header
	}
	errs := boxwatch.AllErrors(err)
	if len(errs) == 0 {
		return http.StatusInternalServerError, errorDocument{Errors: []errorObject{{
			Status: "500", Title: http.StatusText(500), Code: boxwatch.CodeInternal,
			Detail: "Something went wrong on our side. Quote the request id if you contact the operator.",
			Meta:   &errorMeta{RequestID: requestID},
		}}}, nil
	}
	status := statusOfKind[errs[0].Kind]
	if status == 0 {
		status = http.StatusInternalServerError
	}
	listed := errs[:min(len(errs), maxListedErrors)]
	doc := errorDocument{Errors: make([]errorObject, 0, len(listed)+1)}
	for _, e := range listed {
		o := errorObject{Status: strconv.Itoa(status), Title: http.StatusText(status), Detail: e.Message, Code: e.Code}
		if e.Pointer != "" || e.Parameter != "" {
			o.Source = &errorSource{Pointer: e.Pointer, Parameter: e.Parameter}
		}
		doc.Errors = append(doc.Errors, o)
	}
	if more := len(errs) - len(listed); more > 0 {
		doc.Errors = append(doc.Errors, errorObject{Status: strconv.Itoa(status), Title: http.StatusText(status),
			Code: boxwatch.CodeTooManyErrors, Detail: fmt.Sprintf("%d more errors are not listed.", more)})
	}
	return status, doc, nil
}

// readBody checks the request's media type and size and returns the body.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	switch {
	case ct == "":
		return nil, &httpError{status: http.StatusUnsupportedMediaType, code: boxwatch.CodeUnsupportedMediaType,
			detail: "Send the body as application/vnd.api+json or application/json."}
	case err != nil || (mt != MediaType && mt != "application/json"):
		return nil, &httpError{status: http.StatusUnsupportedMediaType, code: boxwatch.CodeUnsupportedMediaType,
			detail: fmt.Sprintf("Content-Type %q is not supported: send application/vnd.api+json or application/json.", ct)}
	case mt == MediaType && len(params) > 0:
		// JSON:API forbids media type parameters on its own type.
		return nil, &httpError{status: http.StatusUnsupportedMediaType, code: boxwatch.CodeUnsupportedMediaType,
			detail: "application/vnd.api+json must be sent without media type parameters."}
	case mt == "application/json" && len(params) > 0 && !(len(params) == 1 && strings.EqualFold(params["charset"], "utf-8")):
		return nil, &httpError{status: http.StatusUnsupportedMediaType, code: boxwatch.CodeUnsupportedMediaType,
			detail: "application/json is accepted with no parameter other than charset=utf-8."}
	}
	if r.ContentLength > MaxBodyBytes {
		return nil, errTooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errTooLarge
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, &httpError{status: http.StatusRequestTimeout, code: boxwatch.CodeRequestTimeout,
				detail: "The request body was not sent in time.", header: http.Header{"Connection": {"close"}}}
		}
		return nil, &httpError{status: http.StatusBadRequest, code: boxwatch.CodeInvalidBody, detail: "The request body could not be read."}
	}
	return body, nil
}

var errTooLarge = &httpError{status: http.StatusRequestEntityTooLarge, code: boxwatch.CodeTooLarge,
	detail: fmt.Sprintf("The request body is larger than %d bytes.", MaxBodyBytes)}

// parseJSON decodes one JSON value, keeping numbers exact, and rejects anything after it.
func parseJSON(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, badJSON(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &httpError{status: http.StatusBadRequest, code: boxwatch.CodeInvalidJSON, detail: "The body holds more than one JSON value."}
	}
	if pointer, bad := badString(v, ""); bad {
		return nil, boxwatch.Invalid(pointer, boxwatch.CodeInvalid,
			"The value at %s holds a control character, a lone surrogate or invalid UTF-8.", pointer)
	}
	return v, nil
}

// badString finds the first member name or string in a decoded JSON value that fails plainText,
// and returns its pointer.
func badString(v any, pointer string) (string, bool) {
	switch v := v.(type) {
	case string:
		return pointer, !plainText(v)
	case []any:
		for i, e := range v {
			if p, bad := badString(e, pointer+"/"+strconv.Itoa(i)); bad {
				return p, true
			}
		}
	case map[string]any:
		for k, e := range v {
			p := pointer + "/" + escapePointer(k)
			if !plainText(k) {
				return p, true
			}
			if p, bad := badString(e, p); bad {
				return p, true
			}
		}
	}
	return "", false
}

// plainText reports whether s is valid UTF-8 without control characters. The JSON decoder turns
// invalid UTF-8 and lone surrogates into U+FFFD, so that character is refused too: no value boxwatch
// keeps needs it, and PostgreSQL would refuse a NUL byte or invalid UTF-8 with an error.
func plainText(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return false
		}
	}
	return true
}

func badJSON(err error) error {
	detail := "The body is not valid JSON."
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		detail = fmt.Sprintf("The body is not valid JSON: %s at byte %d.", se.Error(), se.Offset)
	case errors.As(err, &te):
		detail = fmt.Sprintf("The body is not valid JSON: %s.", te.Error())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		detail = "The body is empty or ends too early."
	}
	return &httpError{status: http.StatusBadRequest, code: boxwatch.CodeInvalidJSON, detail: detail}
}
