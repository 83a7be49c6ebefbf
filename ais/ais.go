// Package ais decodes AIS messages from NMEA 0183 sentences (!AIVDM and !AIVDO): it checks each
// sentence's checksum, joins the sentences of multi-sentence messages, unarmours the 6-bit payload
// and reads the fields of a message. Today it reads type 5, a ship's static and voyage report
// (identity, name, type, size); a later issue extends it to the full set of message types
// (position reports among them).
//
// It does no I/O: callers read the lines from wherever they come (a file, a receiver's feed) and
// hand them to an Assembler one by one.
package ais

import (
	"strconv"
	"strings"
)

// Assembler turns NMEA lines into AIS messages, joining the sentences of multi-sentence messages:
// those share a sequential message id and channel and follow each other in order. The zero value
// is ready to use. An Assembler is not safe for concurrent use; give each feed its own.
type Assembler struct {
	pending map[string]*partial
}

type partial struct {
	next    int // number of the sentence expected next
	payload strings.Builder
}

// Add takes one NMEA line, with or without its line ending. It returns the message when the line
// completes one, and ok false otherwise: a fragment of a message not complete yet, a line that is
// not an AIS sentence, a bad checksum, or a payload that is not 6-bit armoured.
func (a *Assembler) Add(line string) (m Message, ok bool) {
	payload, fill, ok := a.join(line)
	if !ok {
		return Message{}, false
	}
	bits := unarmor(payload, fill)
	if bits == nil {
		return Message{}, false
	}
	return Message{bits: bits}, true
}

// join returns the armoured payload and the fill-bit count of the last sentence when line
// completes a message.
func (a *Assembler) join(line string) (payload string, fill int, ok bool) {
	body, valid := checkedBody(strings.TrimSpace(line))
	if !valid {
		return "", 0, false
	}
	f := strings.Split(body, ",")
	if len(f) != 7 || !(strings.HasSuffix(f[0], "VDM") || strings.HasSuffix(f[0], "VDO")) {
		return "", 0, false
	}
	count, err1 := strconv.Atoi(f[1])
	num, err2 := strconv.Atoi(f[2])
	fill, err3 := strconv.Atoi(f[6])
	if err1 != nil || err2 != nil || err3 != nil || count < 1 || num < 1 || num > count || fill < 0 || fill > 5 {
		return "", 0, false
	}
	if count == 1 {
		return f[5], fill, true
	}
	if a.pending == nil {
		a.pending = map[string]*partial{}
	}
	key := f[3] + "/" + f[4]
	p := a.pending[key]
	if num == 1 {
		p = &partial{next: 1}
		a.pending[key] = p
	}
	if p == nil || p.next != num {
		delete(a.pending, key)
		return "", 0, false
	}
	p.payload.WriteString(f[5])
	p.next++
	if num < count {
		return "", 0, false
	}
	delete(a.pending, key)
	return p.payload.String(), fill, true
}

// checkedBody returns what lies between the leading '!' and the '*' of a sentence when the
// two-digit hexadecimal checksum after the '*' is the XOR of those characters.
func checkedBody(s string) (string, bool) {
	star := strings.LastIndexByte(s, '*')
	if len(s) < 2 || s[0] != '!' || star < 0 || len(s) < star+3 {
		return "", false
	}
	want, err := strconv.ParseUint(s[star+1:star+3], 16, 8)
	if err != nil {
		return "", false
	}
	body := s[1:star]
	var sum byte
	for i := 0; i < len(body); i++ {
		sum ^= body[i]
	}
	return body, sum == byte(want)
}

// bitString is an AIS payload as bits, most significant first.
type bitString []byte // one bit per byte: simple, and payloads are short

// unarmor turns the 6-bit ASCII armouring of a payload into bits, dropping the fill bits. It
// returns nil when a character is not part of the armouring.
func unarmor(payload string, fill int) bitString {
	bits := make(bitString, 0, len(payload)*6)
	for i := 0; i < len(payload); i++ {
		v := int(payload[i]) - 48
		if v > 40 {
			v -= 8
		}
		if v < 0 || v > 63 {
			return nil
		}
		for b := 5; b >= 0; b-- {
			bits = append(bits, byte(v>>b&1))
		}
	}
	if fill <= len(bits) {
		bits = bits[:len(bits)-fill]
	}
	return bits
}

// uint reads n bits from start as an unsigned number; bits past the end read as zero.
func (b bitString) uint(start, n int) uint32 {
	var v uint32
	for i := start; i < start+n; i++ {
		v <<= 1
		if i < len(b) {
			v |= uint32(b[i])
		}
	}
	return v
}

// text reads chars six-bit characters from start, trimmed of the '@' padding and spaces.
func (b bitString) text(start, chars int) string {
	var s strings.Builder
	for i := 0; i < chars; i++ {
		c := b.uint(start+6*i, 6)
		if c < 32 {
			c += 64
		}
		s.WriteByte(byte(c))
	}
	return strings.TrimRight(strings.TrimRight(s.String(), "@ "), "@ ")
}

// Message is one AIS message, its payload unarmoured.
type Message struct {
	bits bitString
}

// Type is the message type, from the payload's first six bits: 1 to 27 are defined (5 is a static
// and voyage report); an empty payload reads as 0.
func (m Message) Type() int { return int(m.bits.uint(0, 6)) }

// StaticReport is what a ship says about itself in an AIS type 5 message. Text fields are trimmed
// of the protocol's padding.
type StaticReport struct {
	MMSI     uint32
	IMO      uint32
	CallSign string
	Name     string
	ShipType int
	Length   int // metres, bow to stern
}

// Static reads a type 5 message. ok is false when m is of another type or too short to hold the
// fields up to the ship's dimensions.
func (m Message) Static() (StaticReport, bool) {
	b := m.bits
	if m.Type() != 5 || len(b) < 270 {
		return StaticReport{}, false
	}
	return StaticReport{
		MMSI:     b.uint(8, 30),
		IMO:      b.uint(40, 30),
		CallSign: b.text(70, 7),
		Name:     collapseSpaces(b.text(112, 20)),
		ShipType: int(b.uint(232, 8)),
		Length:   int(b.uint(240, 9) + b.uint(249, 9)),
	}, true
}

func collapseSpaces(s string) string { return strings.Join(strings.Fields(s), " ") }
