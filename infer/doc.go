// Package infer tells, from a bare number, which kind of number it is (container, bill of lading or
// booking) and which shipping line issued it, with a confidence and a decision. It answers
// POST /v2/tracking_requests/infer_number.
//
// The engine knows nothing by itself: every owner prefix, bill-of-lading prefix and number format
// comes from the carrier registry (data/carriers/carriers.json) and the lessor list
// (data/lessors/lessors.json), compiled into lookup tables by New. It never calls a carrier and
// never guesses beyond that data: a leased box, an unknown owner code or a bare number that several
// carriers' formats fit is never auto-selected.
//
// # Registry fields read by this package
//
// Besides container_prefixes and bill_of_lading_prefixes, a registry entry may carry:
//
//   - "bill_of_lading_formats": formats of the bill-of-lading body, the part after the carrier's
//     bill-of-lading prefix (a bare body, as printed without prefix, must match them too);
//   - "booking_formats": formats of booking numbers;
//   - "parent_scac": the line whose group absorbed this one and whose fleet now holds its
//     equipment (APL and ANL under CMA CGM, Hamburg Süd and Safmarine under Maersk). A container
//     with such a line's owner prefix selects the parent first and lists the line second.
//
// # Format notation
//
// A format is a sequence of space-separated tokens, each matching a run of characters of the
// normalised number (upper-case letters and digits):
//
//	D9       nine digits            L3      three letters        X12    twelve letters or digits
//	D4-7     four to seven digits   'SA'    the literal SA       [EBTW] one of E, B, T or W
//	[AB]2    two characters, each A or B
//
// So "L3 D7" is three letters then seven digits (ABC1234567) and "'SA' D8" is SA then eight
// digits. Counts run from 1 to 40; a number matches when the whole of it is consumed.
//
// # Confidence
//
// Containers take the confidence of their owner prefix, lowered for a wrong or missing check
// digit. Prefixed bills of lading whose body fits the carrier's format are near certain. For a
// bare number, each carrier's format is weighed by how much narrower it is than the number's own
// shape of letters and digits (a literal prefix weighs more than "twelve letters or digits"),
// against a fixed weight for carriers whose formats are unknown; bare numbers are never
// auto-selected.
package infer
