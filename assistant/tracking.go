package assistant

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/boxwatch/boxwatch/client"
)

type trackIn struct {
	Number          string   `json:"number,omitempty" jsonschema:"the container, bill of lading or booking number to track"`
	NumberType      string   `json:"numberType,omitempty" jsonschema:"container, bill_of_lading or booking_number (default: inferred from the number)"`
	ContainerNumber string   `json:"containerNumber,omitempty" jsonschema:"deprecated: number, for a container number"`
	BookingNumber   string   `json:"bookingNumber,omitempty" jsonschema:"deprecated: number, for a booking number"`
	SCAC            string   `json:"scac,omitempty" jsonschema:"the shipping line's SCAC, such as MAEU (default: inferred from the number; get_supported_shipping_lines lists them)"`
	RefNumbers      []string `json:"refNumbers,omitempty" jsonschema:"your own reference numbers for the shipment, such as a purchase order"`
}

// Tracked is what track_container did.
type Tracked struct {
	Created         bool            `json:"tracking_request_created" jsonschema:"false when the number was tracked already: its live request is returned"`
	TrackingRequest TrackingRequest `json:"tracking_request"`
	// Inference is there when the number's type was inferred.
	Inference *Inference `json:"inference,omitempty" jsonschema:"what infer_number said of the number, when its type was inferred"`
	// Shipment is there when the request has become one.
	Shipment *Shipment `json:"shipment,omitempty"`
}

// number picks the number from number and its deprecated aliases, and the type an alias implies.
func (in trackIn) number() (number, impliedType string, err error) {
	given := map[string]string{}
	for name, v := range map[string]string{"number": in.Number, "containerNumber": in.ContainerNumber, "bookingNumber": in.BookingNumber} {
		if v = strings.TrimSpace(v); v != "" {
			given[name] = v
		}
	}
	switch {
	case len(given) == 0:
		return "", "", errors.New("number is required: the container, bill of lading or booking number to track")
	case given["number"] != "":
		number = given["number"]
	case given["containerNumber"] != "":
		number, impliedType = given["containerNumber"], client.ContainerType
	default:
		number, impliedType = given["bookingNumber"], client.BookingNumber
	}
	for name, v := range given {
		if !strings.EqualFold(v, number) {
			return "", "", fmt.Errorf("number and %s differ (%q, %q): give the number once, in number", name, number, v)
		}
	}
	return number, impliedType, nil
}

func trackContainer(ctx context.Context, c *client.Client, in trackIn) (Tracked, string, error) {
	number, typ, err := in.number()
	if err != nil {
		return Tracked{}, "", err
	}
	if in.NumberType != "" {
		typ = in.NumberType
	}
	var out Tracked
	if typ == "" {
		res, err := c.InferNumber(ctx, number)
		if err != nil {
			return Tracked{}, "", failed(err, "")
		}
		inf := inferenceView(number, res)
		out.Inference = &inf
		if typ = res.RequestType(); typ == "" {
			return Tracked{}, "", fmt.Errorf("what kind of number %q is cannot be told: give numberType (container, bill_of_lading or booking_number)", number)
		}
	}
	scac := strings.TrimSpace(in.SCAC)
	tr, err := c.CreateTrackingRequest(ctx, client.NewTrackingRequest{RequestType: typ, RequestNumber: number, SCAC: scac,
		AutoDetect: scac == "", RefNumbers: in.RefNumbers})
	out.Created = err == nil
	var e *client.Error
	if errors.As(err, &e) && e.Code() == "duplicate" {
		tr, err = c.LiveTrackingRequest(ctx, number, scac)
	}
	if err != nil {
		return Tracked{}, "", failed(err, "")
	}
	out.TrackingRequest = trackingRequestView(tr)
	if tr.ShipmentID != "" {
		s, err := c.Shipment(ctx, tr.ShipmentID)
		if err != nil {
			return Tracked{}, "", failed(err, "")
		}
		sv := shipmentView(s)
		out.Shipment = &sv
	}
	return out, trackedSummary(out), nil
}

func trackedSummary(t Tracked) string {
	tr := t.TrackingRequest
	line := tr.SCAC
	if line == "" {
		line = "its line being detected"
	}
	var b strings.Builder
	if t.Created {
		fmt.Fprintf(&b, "Tracking request %s created for %s (%s, %s): %s.", tr.ID, tr.RequestNumber, tr.RequestType, line, tr.Status)
	} else {
		fmt.Fprintf(&b, "%s is tracked already (request %s, %s, %s): %s.", tr.RequestNumber, tr.ID, tr.RequestType, line, tr.Status)
	}
	switch {
	case t.Shipment != nil:
		fmt.Fprintf(&b, " %s Its containers: %s.", shipmentSentence(*t.Shipment), strings.Join(t.Shipment.ContainerNumbers, ", "))
	case tr.Status == client.StatusFailed:
		reason := "unknown"
		if tr.FailedReason != nil {
			reason = *tr.FailedReason
		}
		fmt.Fprintf(&b, " It failed (%s): check the number and the line, then track it again.", reason)
	default:
		b.WriteString(" The lookup with the carrier follows, usually within minutes: check it with list_tracking_requests, " +
			"then read the shipment with get_shipment_details.")
	}
	return b.String()
}

type listTrackingRequestsIn struct {
	Filters     map[string]string `json:"filters,omitempty" jsonschema:"further filters by name, such as {\"filter[scac]\": \"MAEU\"} or {\"filter[created_at][start]\": \"2026-01-01T00:00:00Z\"}"`
	Status      string            `json:"status,omitempty" jsonschema:"only requests with this status"`
	RequestType string            `json:"request_type,omitempty" jsonschema:"Terminal49's request_type filter, which boxwatch does not have: it is refused"`
	pageIn
}

// TrackingRequests is a page of tracking requests.
type TrackingRequests struct {
	Items []TrackingRequest `json:"items"`
	Paging
}

func listTrackingRequests(ctx context.Context, c *client.Client, in listTrackingRequestsIn) (TrackingRequests, string, error) {
	filters := map[string]string{}
	for name, v := range in.Filters {
		filters[filterName(name)] = v
	}
	if in.RequestType != "" {
		filters["filter[request_type]"] = in.RequestType // refused by the API, which names the filters it has
	}
	list, err := c.TrackingRequests(ctx, client.TrackingRequestQuery{Status: in.Status, Filters: filters,
		Page: client.Page{Number: in.Page, Size: in.size()}})
	if err != nil {
		return TrackingRequests{}, "", failed(err, "")
	}
	out := TrackingRequests{Items: []TrackingRequest{}, Paging: pageOf(list)}
	counts := map[string]int{}
	for _, tr := range list.Items {
		out.Items = append(out.Items, trackingRequestView(tr))
		counts[tr.Status]++
	}
	return out, listSummary("tracking requests", out.Paging, len(out.Items), counts), nil
}

// filterName names a filter as the API does: "scac" and "created_at[start]" are
// filter[scac] and filter[created_at][start]; "q" and names already so spelled stay.
func filterName(name string) string {
	if name == "q" || strings.HasPrefix(name, "filter[") {
		return name
	}
	head, rest, _ := strings.Cut(name, "[")
	if rest != "" {
		rest = "[" + rest
	}
	return "filter[" + head + "]" + rest
}

type numberIn struct {
	Number string `json:"number" jsonschema:"a container, bill of lading or booking number; spaces, dashes, dots and slashes are ignored"`
}

// Inference is what a number is, and which shipping lines may have issued it.
type Inference struct {
	Number      string `json:"number"`
	NumberType  string `json:"number_type" jsonschema:"container, bill_of_lading or booking"`
	RequestType string `json:"request_type" jsonschema:"the numberType to track it with; empty when unknown"`
	Validation  struct {
		IsValid          *bool  `json:"is_valid" jsonschema:"true valid, false invalid, null unknown (bookings)"`
		CheckDigitPassed *bool  `json:"check_digit_passed" jsonschema:"a container number's ISO 6346 check digit"`
		Reason           string `json:"reason" jsonschema:"why the number is invalid"`
	} `json:"validation"`
	ShippingLine struct {
		Decision   string      `json:"decision" jsonschema:"auto_select (confidence ≥ 0.95: use it), needs_confirmation (ask the user) or no_prediction"`
		Selected   *Candidate  `json:"selected"`
		Candidates []Candidate `json:"candidates" jsonschema:"ranked by confidence"`
	} `json:"shipping_line"`
}

// Candidate is a shipping line that may have issued a number.
type Candidate struct {
	SCAC       string  `json:"scac"`
	Name       string  `json:"name"`
	Confidence float64 `json:"confidence" jsonschema:"from 0 to 1"`
}

func inferenceView(number string, res client.Inference) Inference {
	v := Inference{Number: number, NumberType: res.NumberType, RequestType: res.RequestType()}
	v.Validation.IsValid, v.Validation.CheckDigitPassed, v.Validation.Reason = res.Validation.IsValid, res.Validation.CheckDigitPassed, res.Validation.Reason
	v.ShippingLine.Decision, v.ShippingLine.Candidates = res.ShippingLine.Decision, []Candidate{}
	if s := res.ShippingLine.Selected; s != nil {
		v.ShippingLine.Selected = &Candidate{SCAC: s.SCAC, Name: s.Name, Confidence: s.Confidence}
	}
	for _, cand := range res.ShippingLine.Candidates {
		v.ShippingLine.Candidates = append(v.ShippingLine.Candidates, Candidate{SCAC: cand.SCAC, Name: cand.Name, Confidence: cand.Confidence})
	}
	return v
}

func inferNumber(ctx context.Context, c *client.Client, in numberIn) (Inference, string, error) {
	res, err := c.InferNumber(ctx, in.Number)
	if err != nil {
		return Inference{}, "", failed(err, "")
	}
	v := inferenceView(in.Number, res)
	var b strings.Builder
	fmt.Fprintf(&b, "%s looks like a %s number", in.Number, strings.ReplaceAll(v.NumberType, "_", " "))
	if v.Validation.IsValid != nil && !*v.Validation.IsValid {
		fmt.Fprintf(&b, ", but it is invalid (%s)", v.Validation.Reason)
	}
	switch line := v.ShippingLine; {
	case line.Decision == client.AutoSelect && line.Selected != nil:
		fmt.Fprintf(&b, ", issued by %s (%s, confidence %.2f): track it with that scac.", line.Selected.Name, line.Selected.SCAC, line.Selected.Confidence)
	case len(line.Candidates) > 0:
		var names []string
		for _, cand := range line.Candidates {
			names = append(names, fmt.Sprintf("%s %s (%.2f)", cand.SCAC, cand.Name, cand.Confidence))
		}
		fmt.Fprintf(&b, "; its line needs the user's choice (%s): %s.", line.Decision, strings.Join(names, ", "))
	default:
		b.WriteString("; no shipping line can be inferred: ask the user for it.")
	}
	return v, b.String(), nil
}

type linesIn struct {
	Search string `json:"search,omitempty" jsonschema:"part of a line's name, or one of its SCACs"`
}

// ShippingLines are the lines boxwatch tracks.
type ShippingLines struct {
	TotalLines    int            `json:"total_lines"`
	ShippingLines []ShippingLine `json:"shipping_lines"`
}

// ShippingLine is a carrier and the number types it is tracked by.
type ShippingLine struct {
	SCAC             string   `json:"scac"`
	Name             string   `json:"name"`
	ShortName        string   `json:"short_name"`
	AlternativeSCACs []string `json:"alternative_scacs" jsonschema:"other SCACs accepted for the line"`
	Tracks           struct {
		BillOfLading  bool `json:"bill_of_lading"`
		BookingNumber bool `json:"booking_number"`
		Container     bool `json:"container"`
	} `json:"tracks" jsonschema:"the number types the line can be tracked by"`
}

func getSupportedShippingLines(ctx context.Context, c *client.Client, in linesIn) (ShippingLines, string, error) {
	lines, err := c.FindShippingLines(ctx, strings.TrimSpace(in.Search))
	if err != nil {
		return ShippingLines{}, "", failed(err, "")
	}
	out := ShippingLines{TotalLines: len(lines), ShippingLines: []ShippingLine{}}
	for _, l := range lines {
		v := ShippingLine{SCAC: l.SCAC, Name: l.Name, ShortName: l.ShortName, AlternativeSCACs: nonNil(l.AlternativeSCACs)}
		v.Tracks.BillOfLading, v.Tracks.BookingNumber, v.Tracks.Container = l.BillOfLadingTrackingSupport, l.BookingNumberTrackingSupport, l.ContainerNumberTrackingSupport
		out.ShippingLines = append(out.ShippingLines, v)
	}
	switch {
	case len(lines) == 0:
		return out, fmt.Sprintf("No shipping line matches %q: try part of its name, or list them all without search.", in.Search), nil
	case len(lines) == 1:
		l := out.ShippingLines[0]
		return out, fmt.Sprintf("%s (%s) is supported.", l.Name, l.SCAC), nil
	}
	return out, fmt.Sprintf("%d shipping lines.", len(lines)), nil
}
