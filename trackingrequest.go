package boxwatch

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// Status is where a tracking request stands.
type Status string

const (
	StatusPending          Status = "pending"
	StatusAwaitingManifest Status = "awaiting_manifest"
	StatusCreated          Status = "created"
	StatusFailed           Status = "failed"
	StatusTrackingStopped  Status = "tracking_stopped"
)

// Statuses lists every status.
var Statuses = []Status{StatusPending, StatusAwaitingManifest, StatusCreated, StatusFailed, StatusTrackingStopped}

// TrackingRequest asks for a number to be looked up with a shipping line and, once found, tracked.
type TrackingRequest struct {
	ID            string
	AccountID     string
	RequestType   RequestType
	RequestNumber string
	// SCAC is the primary SCAC of the shipping line, even when the request named an alternative
	// one; empty while the line of a request sent to be detected is not known yet.
	SCAC         string
	RefNumbers   []string
	ShipmentTags []string
	Status       Status
	// FailedReason is empty while the request has not failed.
	FailedReason string
	IsRetrying   bool
	// RetryCount is nil until the first retry.
	RetryCount *int
	// ShipmentID is the tracked shipment, empty until the lookup succeeds.
	ShipmentID string
	// CustomerID is the party the shipment is for, empty when none was named.
	CustomerID string
	// InitialCustomFields are set on the shipment and its containers when the lookup succeeds.
	InitialCustomFields []StagedCustomField
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// Limits on what a tracking request may carry.
const (
	MaxRequestNumberLen = 35 // DCSA's limit for a booking reference, the longest of the three
	MaxRefNumbers       = 50
	MaxRefNumberLen     = 100
	MaxShipmentTags     = 50
	MaxShipmentTagLen   = 100
)

// NewTrackingRequest holds what a caller submits. Normalize and Validate before storing.
type NewTrackingRequest struct {
	RequestType   RequestType
	RequestNumber string
	SCAC          string
	// AutoDetect leaves the line to the lookup when SCAC is empty (auto_detect_vocc_scac): the
	// lines likely to know the number are asked in turn.
	AutoDetect   bool
	RefNumbers   []string
	ShipmentTags []string
	// CustomerID is the party the shipment is for, "" for none; the caller checks it is the account's.
	CustomerID string
}

// Errors is a list of validation errors, each with its own pointer. It is returned only when non-empty.
type Errors []*Error

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// AllErrors returns the *Error values err carries: every one of an Errors, or the single one.
func AllErrors(err error) []*Error {
	var es Errors
	if errors.As(err, &es) {
		return es
	}
	if e := AsError(err); e != nil {
		return []*Error{e}
	}
	return nil
}

const attrPointer = "/data/attributes/"

// NormalizeContainerNumber writes a container number as carriers store it: upper-case, without the
// spaces and dashes people print in it (MSCU 123456-6 → MSCU1234566).
func NormalizeContainerNumber(s string) string {
	return UpperASCII(strings.NewReplacer(" ", "", "-", "", "\t", "").Replace(strings.TrimSpace(s)))
}

// Validate normalises the request number (trimmed, upper-case, and for a container number without
// spaces and dashes) and the SCAC (resolved to the line's
// primary SCAC), and checks every attribute against the carrier registry. An empty SCAC is valid
// with AutoDetect: the number is then checked as any real line's would be. It returns Errors
// listing every problem found.
func (n *NewTrackingRequest) Validate(c *Carriers) error {
	var errs Errors
	n.RequestNumber = UpperASCII(strings.TrimSpace(n.RequestNumber))
	n.SCAC = UpperASCII(strings.TrimSpace(n.SCAC))

	typeOK := false
	switch n.RequestType {
	case "":
		errs = append(errs, Invalid(attrPointer+"request_type", CodeBlank, "Request type can't be blank"))
	case RequestBillOfLading, RequestBookingNumber, RequestContainer:
		typeOK = true
	default:
		errs = append(errs, Invalid(attrPointer+"request_type", CodeInvalid,
			"Request type '%s' is not one of bill_of_lading, booking_number, container", n.RequestType))
	}

	line, known := c.BySCAC(n.SCAC)
	if n.RequestType == RequestContainer && !line.TestLine {
		n.RequestNumber = NormalizeContainerNumber(n.RequestNumber)
	}
	if e := n.validateNumber(typeOK, line.TestLine); e != nil {
		errs = append(errs, e)
	}

	switch {
	case n.SCAC == "" && n.AutoDetect:
	case n.SCAC == "":
		errs = append(errs, Invalid(attrPointer+"scac", CodeBlank, "Scac can't be blank"))
	case !known:
		errs = append(errs, Invalid(attrPointer+"scac", CodeNotRecognized, "Scac '%s' is not recognized", n.SCAC))
	case typeOK && !line.Support.Supports(n.RequestType):
		errs = append(errs, Invalid(attrPointer+"scac", CodeNotSupported,
			"Scac '%s' is not supported for %s tracking. We do not currently track %s by %s",
			n.SCAC, strings.ReplaceAll(string(n.RequestType), "_", " "), line.Name, strings.ReplaceAll(string(n.RequestType), "_", " ")))
	default:
		n.SCAC = line.SCAC
	}

	if e := validateStrings("ref_numbers", n.RefNumbers, MaxRefNumbers, MaxRefNumberLen); e != nil {
		errs = append(errs, e)
	}
	if e := validateStrings("shipment_tags", n.ShipmentTags, MaxShipmentTags, MaxShipmentTagLen); e != nil {
		errs = append(errs, e)
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// validateNumber checks the request number's shape; a test line's container numbers need not be
// ISO 6346 numbers.
func (n *NewTrackingRequest) validateNumber(typeOK, testLine bool) *Error {
	p := attrPointer + "request_number"
	num := n.RequestNumber
	switch {
	case num == "":
		return Invalid(p, CodeBlank, "Request number can't be blank")
	case len(num) > MaxRequestNumberLen:
		return Invalid(p, CodeTooLong, "Request number is too long (maximum is %d characters)", MaxRequestNumberLen)
	}
	for i := 0; i < len(num); i++ {
		c := num[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return Invalid(p, CodeInvalid, "Request number may hold only letters, digits and '-'")
		}
	}
	if typeOK && n.RequestType == RequestContainer && !testLine {
		if problem := ContainerNumberProblem(num); problem != "" {
			return Invalid(p, CodeInvalid, "Request number '%s' is not a valid ISO 6346 container number: it %s", num, problem)
		}
	}
	return nil
}

// ValidateRefNumbers checks a replacement list of reference numbers.
func ValidateRefNumbers(refs []string) error {
	if e := validateStrings("ref_numbers", refs, MaxRefNumbers, MaxRefNumberLen); e != nil {
		return e
	}
	return nil
}

// ValidateShipmentTags checks a replacement list of shipment tags.
func ValidateShipmentTags(tags []string) error {
	if e := validateStrings("tags", tags, MaxShipmentTags, MaxShipmentTagLen); e != nil {
		return e
	}
	return nil
}

func validateStrings(attr string, vals []string, maxCount, maxLen int) *Error {
	p := attrPointer + attr
	if len(vals) > maxCount {
		return Invalid(p, CodeTooLong, "%s may hold at most %d entries", attr, maxCount)
	}
	for i, v := range vals {
		switch {
		case strings.TrimSpace(v) == "":
			return Invalid(fmt.Sprintf("%s/%d", p, i), CodeBlank, "%s entries can't be blank", attr)
		case len(v) > maxLen:
			return Invalid(fmt.Sprintf("%s/%d", p, i), CodeTooLong, "%s entries are at most %d characters", attr, maxLen)
		case strings.ContainsFunc(v, unicode.IsControl):
			// jsonb cannot hold NUL, and no reference or tag needs a line break or a terminal escape.
			return Invalid(fmt.Sprintf("%s/%d", p, i), CodeInvalid, "%s entries can't hold control characters", attr)
		}
	}
	return nil
}

// DuplicateError is the error for a request whose number and SCAC are already being tracked; an
// empty scac is a request whose line is being detected.
func DuplicateError(number, scac string) *Error {
	if scac == "" {
		return Invalid(attrPointer+"request_number", CodeDuplicate,
			"Request number '%s' already exists in a pending tracking_request whose scac is being detected", number)
	}
	return Invalid(attrPointer+"request_number", CodeDuplicate,
		"Request number '%s' with scac '%s' already exists in a tracking_request with a pending or created status", number, scac)
}

// TrackingRequestFilter narrows a listing; zero fields do not filter.
type TrackingRequestFilter struct {
	Status        Status
	SCAC          string
	RequestNumber string
	// Query matches a substring of the request number or of any reference number.
	Query         string
	CreatedAfter  time.Time
	CreatedBefore time.Time
	UpdatedAfter  time.Time
	UpdatedBefore time.Time
}

// Page selects one page of a listing; Number counts from 1.
type Page struct {
	Number int
	Size   int
}

// Offset is the number of records before the page.
func (p Page) Offset() int { return (p.Number - 1) * p.Size }

// CountAhead is how far past a page a filtered listing counts its matches, so that a filter
// over a large account costs at most that many rows more than its page. Unfiltered listings
// of tracking requests, shipments and containers know their exact totals without counting.
const CountAhead = 10_000

// CountLimit is the most matches a filtered listing counts for the page.
func (p Page) CountLimit() int { return p.Offset() + p.Size + CountAhead }

// Total is how many records a listing matches, on every page: exactly N, or, when AtLeast, N
// or more (a filtered listing that found more than its page's CountLimit stopped counting).
type Total struct {
	N       int
	AtLeast bool
}
