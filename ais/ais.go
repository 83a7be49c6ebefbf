// Package ais decodes and encodes AIS, the radio reports ships broadcast, in their NMEA 0183 form:
// !AIVDM and !AIVDO sentences from any talker (!BSVDM, !ABVDM…), with optional NMEA 4 tag blocks.
// A Decoder checks each sentence's checksum, joins the sentences of multi-sentence messages,
// unarmours the six-bit payload and reads message types 1, 2, 3 (class A position), 4 (base
// station), 5 (static and voyage), 18 and 19 (class B position), 24 (class B static) and 27
// (long-range position) into a caller-owned Message, without allocating. An Encoder does the
// reverse for the same types.
//
// The package does no I/O and keeps no global state: callers read lines from wherever they come
// (a file, a receiver's UDP datagrams, an aggregator's TCP stream) and hand them over one by one.
// Malformed input is reported and counted, never a panic.
package ais

import (
	"strings"
	"time"

	"github.com/boxwatch/boxwatch/geo"
)

// Message is one decoded AIS message. The fields a message type does not carry are zero, and so
// are values the sender marked "not available": the Has… flags say which are present, so a zero
// is never mistaken for a position off Africa or a ship at rest.
//
// Message holds no pointers into the line it came from and owns its text in fixed arrays, so a
// caller may keep one Message and decode every line into it.
type Message struct {
	Type    int    // message type, 1 to 27
	Repeat  int    // repeat indicator, 0 to 3
	MMSI    uint32 // the sender's Maritime Mobile Service Identity
	Channel byte   // radio channel from the sentence ('A', 'B', '1', '2'), 0 when not given
	Own     bool   // from a VDO sentence: the receiver's own ship

	// Time is when the report was received, from the tag block's c: field; zero without one.
	Time time.Time

	// Position, types 1, 2, 3, 4, 18, 19, 27.
	Position    geo.Point
	HasPosition bool
	// Speed over ground in knots (types 1, 2, 3, 18, 19, 27).
	Speed    float64
	HasSpeed bool
	// Course over ground in degrees from true north (types 1, 2, 3, 18, 19, 27).
	Course    float64
	HasCourse bool
	// True heading in whole degrees (types 1, 2, 3, 18, 19).
	Heading    int
	HasHeading bool
	// Navigational status (types 1, 2, 3, 27): 0 under way using engine, 1 at anchor, 5 moored,
	// 15 not defined.
	NavStatus int

	// UTC is the base station's clock (type 4); zero when the station does not know it.
	UTC time.Time

	// Static data, types 5, 19 and 24.
	IMO      uint32 // type 5; 0 when not given
	Name     Text   // types 5, 19, 24 part A
	CallSign Text   // types 5, 24 part B
	ShipType int    // ship and cargo type (types 5, 19, 24 part B); 0 when not given
	// Distances from the position reference to bow, stern, port and starboard, in metres
	// (types 5, 19, 24 part B).
	ToBow, ToStern, ToPort, ToStarboard int
	Part                                byte // type 24: 'A' (name) or 'B' (type, call sign, size)

	// Voyage data, type 5.
	Draught     float64 // metres; 0 when not given
	Destination Text
	// Estimated time of arrival, UTC, without a year: month 1–12, day 1–31, hour 0–23,
	// minute 0–59. HasETA is false when any part is not available.
	ETAMonth, ETADay, ETAHour, ETAMinute int
	HasETA                               bool
}

// Length is the ship's length in metres from its dimensions, 0 when not given.
func (m *Message) Length() int { return m.ToBow + m.ToStern }

// Text is a six-bit text field (name, call sign, destination) of up to 20 characters: upper-case
// letters, digits, space and some punctuation. Decoding ends it at the first '@' (the protocol's
// padding) and drops trailing spaces.
type Text struct {
	n uint8
	b [20]byte
}

// TextOf returns s as a Text: upper-cased, cut to 20 characters, with characters the six-bit
// alphabet lacks replaced by '?'.
func TextOf(s string) Text {
	var t Text
	for i := 0; i < len(s) && int(t.n) < len(t.b); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c < 32 || c > 95 || c == '@' {
			c = '?'
		}
		t.b[t.n] = c
		t.n++
	}
	t.n = uint8(len(strings.TrimRight(string(t.b[:t.n]), " ")))
	return t
}

// String returns the text; it allocates, so hot loops should use Bytes or Equal.
func (t Text) String() string { return string(t.b[:t.n]) }

// Bytes returns the text; the slice shares t's memory.
func (t *Text) Bytes() []byte { return t.b[:t.n] }

// Len is the number of characters.
func (t Text) Len() int { return int(t.n) }

// Equal reports whether t reads s.
func (t *Text) Equal(s string) bool { return string(t.b[:t.n]) == s }
