package infer

import (
	"encoding/json"
	"strconv"
)

// NumberType is the kind of number inferred.
type NumberType string

const (
	Container    NumberType = "container"
	BillOfLading NumberType = "bill_of_lading"
	// Booking is also the answer for a number that fits no known format: booking formats vary
	// most and rarely identify their carrier.
	Booking NumberType = "booking"
)

// Decision says what a client may do with the selected carrier.
type Decision string

const (
	// AutoSelect: the top candidate's confidence is at least 0.95; use it without asking.
	AutoSelect Decision = "auto_select"
	// NeedsConfirmation: the top candidate's confidence is at least 0.70; ask the user.
	NeedsConfirmation Decision = "needs_confirmation"
	// NoPrediction: no candidate reaches 0.70; candidates, if any, are only suggestions.
	NoPrediction Decision = "no_prediction"
)

// Thresholds of the decisions, on the top candidate's confidence.
const (
	autoSelectAt        = 0.95
	needsConfirmationAt = 0.70
)

func decide(confidence float64) Decision {
	switch {
	case confidence >= autoSelectAt:
		return AutoSelect
	case confidence >= needsConfirmationAt:
		return NeedsConfirmation
	}
	return NoPrediction
}

// Result is the answer for one number. It marshals to the attributes object of an
// infer_number_results resource.
type Result struct {
	NumberType   NumberType     `json:"number_type"`
	Validation   Validation     `json:"validation"`
	ShippingLine LinePrediction `json:"shipping_line"`
}

// Validation reports whether the number is well formed.
type Validation struct {
	// IsValid is unknown for bookings and for bills of lading whose format is not known.
	IsValid NullBool `json:"is_valid"`
	// Type is "container" for containers and "shipment" for bills of lading and bookings.
	Type string `json:"type"`
	// CheckDigitPassed is the ISO 6346 check, known for containers only.
	CheckDigitPassed NullBool `json:"check_digit_passed"`
	// ParsedNumber is the number without separators, upper-case; for a bill of lading that
	// starts with its carrier's prefix, the body after the prefix.
	ParsedNumber string `json:"parsed_number"`
	// Reason says why IsValid is false.
	Reason NullString `json:"reason"`
}

// Validation types.
const (
	validationContainer = "container"
	validationShipment  = "shipment"
)

// Reasons.
const (
	reasonCheckDigit        = "Invalid check digit"
	reasonMissingCheckDigit = "Missing check digit"
)

// LinePrediction is the predicted shipping line.
type LinePrediction struct {
	Decision Decision `json:"decision"`
	// Selected is the first candidate, or nil when Decision is NoPrediction.
	Selected *Candidate `json:"selected"`
	// Candidates are ranked by decreasing confidence, then registry order. Never nil.
	Candidates []Candidate `json:"candidates"`
}

// Candidate is one shipping line that may have issued the number.
type Candidate struct {
	SCAC string `json:"scac"`
	Name string `json:"name"`
	// Confidence is the probability, in [0, 1] with three decimals, that this is the line to
	// track the number with.
	Confidence float64 `json:"confidence"`
}

// NullBool is a boolean that may be unknown. It marshals to true, false or null.
type NullBool struct {
	Bool  bool
	Valid bool
}

// Known returns a NullBool holding b.
func Known(b bool) NullBool { return NullBool{Bool: b, Valid: true} }

func (b NullBool) MarshalJSON() ([]byte, error) {
	if !b.Valid {
		return []byte("null"), nil
	}
	return strconv.AppendBool(nil, b.Bool), nil
}

func (b *NullBool) UnmarshalJSON(data []byte) error {
	var v *bool
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*b = NullBool{}
	if v != nil {
		*b = Known(*v)
	}
	return nil
}

// NullString is a string that marshals to null when empty.
type NullString string

func (s NullString) MarshalJSON() ([]byte, error) {
	if s == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(s))
}

func (s *NullString) UnmarshalJSON(data []byte) error {
	var v *string
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*s = ""
	if v != nil {
		*s = NullString(*v)
	}
	return nil
}
