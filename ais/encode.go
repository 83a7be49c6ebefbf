package ais

import (
	"errors"
	"math"
	"strconv"
)

// Encoder writes Messages as NMEA sentences, as a receiver would hand them on: the simulator's
// broadcasts and the tests' fixtures come from it. The zero value writes !AIVDM sentences on
// channel A. An Encoder is not safe for concurrent use.
type Encoder struct {
	// Talker is the sentence's two-character talker id; "AI" when empty.
	Talker string
	seq    int // sequential message id of the last multi-sentence message, 0 to 9
	bits   [maxBits/8 + 8]byte
}

// maxSentenceChars is how many payload characters one sentence carries, so that a sentence with
// its envelope stays within NMEA's 82 characters.
const maxSentenceChars = 60

// ErrUnsupported is returned by Encoder.Append for a message type it does not write.
var ErrUnsupported = errors.New("ais: the encoder does not write this message type")

// Append appends m as NMEA lines, each ending in "\r\n", and returns the extended slice. It writes
// types 1, 2, 3, 4, 5, 18, 19, 24 (the part m.Part names) and 27; other types return
// ErrUnsupported. Absent values (HasPosition false…) are written as "not available"; values are
// rounded to the message's resolution and clamped to its fields. A message longer than one
// sentence gets the next sequential message id; its first sentence carries a tag block with m.Time
// (unix seconds, or milliseconds when m.Time has a fraction of a second) unless m.Time is zero.
// m.Own writes a VDO sentence; m.Channel is written as given, or 'A' when 0.
func (e *Encoder) Append(dst []byte, m *Message) ([]byte, error) {
	n, err := e.pack(m)
	if err != nil {
		return dst, err
	}
	chars := (n + 5) / 6
	fill := chars*6 - n
	payload := make([]byte, chars)
	for i := range payload {
		v := byte(e.u(6*i, 6))
		if v < 40 {
			payload[i] = v + 48
		} else {
			payload[i] = v + 56
		}
	}
	count := (chars + maxSentenceChars - 1) / maxSentenceChars
	seq := ""
	if count > 1 {
		e.seq = (e.seq + 1) % 10
		seq = strconv.Itoa(e.seq)
	}
	talker, kind := e.Talker, "VDM"
	if len(talker) != 2 {
		talker = "AI"
	}
	if m.Own {
		kind = "VDO"
	}
	channel := m.Channel
	if channel == 0 {
		channel = 'A'
	}
	for i := range count {
		part := payload[i*maxSentenceChars : min((i+1)*maxSentenceChars, chars)]
		f := 0
		if i == count-1 {
			f = fill
		}
		if i == 0 && !m.Time.IsZero() {
			var c string
			if ms := m.Time.UnixMilli(); ms%1000 != 0 {
				c = "c:" + strconv.FormatInt(ms, 10)
			} else {
				c = "c:" + strconv.FormatInt(ms/1000, 10)
			}
			dst = append(dst, '\\')
			dst = appendChecked(dst, c)
			dst = append(dst, '\\')
		}
		body := talker + kind + "," + strconv.Itoa(count) + "," + strconv.Itoa(i+1) + "," + seq + "," +
			string(channel) + "," + string(part) + "," + strconv.Itoa(f)
		dst = appendChecked(append(dst, '!'), body)
		dst = append(dst, "\r\n"...)
	}
	return dst, nil
}

// appendChecked appends s, '*' and the two hexadecimal digits of the XOR of s's bytes.
func appendChecked(dst []byte, s string) []byte {
	var sum byte
	for i := 0; i < len(s); i++ {
		sum ^= s[i]
	}
	const hex = "0123456789ABCDEF"
	return append(append(dst, s...), '*', hex[sum>>4], hex[sum&15])
}

// pack writes m's fields into e.bits and returns the message's length in bits.
func (e *Encoder) pack(m *Message) (int, error) {
	clear(e.bits[:])
	e.put(0, 6, uint32(m.Type))
	e.put(6, 2, uint32(m.Repeat))
	e.put(8, 30, m.MMSI)
	switch m.Type {
	case 1, 2, 3:
		e.put(38, 4, uint32(m.NavStatus))
		e.put(42, 8, 0x80) // rate of turn not available
		e.position(m, 50, 61, 89, 116, 128)
		e.put(137, 6, 60) // time stamp not available
		return 168, nil
	case 4:
		if t := m.UTC; !t.IsZero() {
			e.put(38, 14, uint32(t.Year()))
			e.put(52, 4, uint32(t.Month()))
			e.put(56, 5, uint32(t.Day()))
			e.put(61, 5, uint32(t.Hour()))
			e.put(66, 6, uint32(t.Minute()))
			e.put(72, 6, uint32(t.Second()))
		} else {
			e.put(61, 5, 24)
			e.put(66, 6, 60)
			e.put(72, 6, 60)
		}
		e.position(m, -1, 79, 107, -1, -1)
		return 168, nil
	case 5:
		e.put(40, 30, m.IMO)
		e.text(70, 7, &m.CallSign)
		e.text(112, 20, &m.Name)
		e.static(m, 232)
		if m.HasETA {
			e.put(274, 4, uint32(m.ETAMonth))
			e.put(278, 5, uint32(m.ETADay))
			e.put(283, 5, uint32(m.ETAHour))
			e.put(288, 6, uint32(m.ETAMinute))
		} else {
			e.put(283, 5, 24)
			e.put(288, 6, 60)
		}
		e.put(294, 8, clamp(math.Round(m.Draught*10), 255))
		e.text(302, 20, &m.Destination)
		return 424, nil
	case 18:
		e.position(m, 46, 57, 85, 112, 124)
		e.put(133, 6, 60)
		return 168, nil
	case 19:
		e.position(m, 46, 57, 85, 112, 124)
		e.put(133, 6, 60)
		e.text(143, 20, &m.Name)
		e.static(m, 263)
		return 312, nil
	case 24:
		switch m.Part {
		case 'A':
			e.text(40, 20, &m.Name)
			return 160, nil
		case 'B':
			e.put(38, 2, 1)
			e.put(40, 8, uint32(m.ShipType))
			e.text(90, 7, &m.CallSign)
			e.dimensions(m, 132)
			return 168, nil
		}
		return 0, errors.New("ais: a type 24 message needs Part 'A' or 'B'")
	case 27:
		e.put(40, 4, uint32(m.NavStatus))
		lon, lat := int32(181*600), int32(91*600)
		if m.HasPosition {
			lon, lat = int32(math.Round(m.Position.Lon*600)), int32(math.Round(m.Position.Lat*600))
		}
		e.put(44, 18, uint32(lon))
		e.put(62, 17, uint32(lat))
		e.put(79, 6, orNA(m.HasSpeed, m.Speed, 1, 62, 63))
		e.put(85, 9, orNA(m.HasCourse, m.Course, 1, 359, 511))
		return 96, nil
	}
	return 0, ErrUnsupported
}

func (e *Encoder) position(m *Message, sog, lon, lat, cog, heading int) {
	x, y := int32(181*600000), int32(91*600000)
	if m.HasPosition {
		x, y = int32(math.Round(m.Position.Lon*600000)), int32(math.Round(m.Position.Lat*600000))
	}
	e.put(lon, 28, uint32(x))
	e.put(lat, 27, uint32(y))
	if sog >= 0 {
		e.put(sog, 10, orNA(m.HasSpeed, m.Speed, 10, 1022, 1023))
	}
	if cog >= 0 {
		e.put(cog, 12, orNA(m.HasCourse, m.Course, 10, 3599, 3600))
	}
	if heading >= 0 {
		e.put(heading, 9, orNA(m.HasHeading, float64(m.Heading), 1, 359, 511))
	}
}

// orNA is v in units of 1/scale, clamped to max, or na when v is absent.
func orNA(has bool, v, scale float64, max, na uint32) uint32 {
	if !has {
		return na
	}
	return clamp(math.Round(v*scale), max)
}

func clamp(v float64, max uint32) uint32 {
	if v < 0 {
		return 0
	}
	if v > float64(max) {
		return max
	}
	return uint32(v)
}

func (e *Encoder) static(m *Message, start int) {
	e.put(start, 8, uint32(m.ShipType))
	e.dimensions(m, start+8)
}

func (e *Encoder) dimensions(m *Message, start int) {
	e.put(start, 9, clamp(float64(m.ToBow), 511))
	e.put(start+9, 9, clamp(float64(m.ToStern), 511))
	e.put(start+18, 6, clamp(float64(m.ToPort), 63))
	e.put(start+24, 6, clamp(float64(m.ToStarboard), 63))
}

// text writes t in chars six-bit characters, padded with '@'.
func (e *Encoder) text(start, chars int, t *Text) {
	for i := range min(chars, t.Len()) {
		e.put(start+6*i, 6, uint32(t.b[i]&63))
	}
}

// put writes the low n bits of v at start.
func (e *Encoder) put(start, n int, v uint32) {
	for i := range n {
		bit := byte(v>>(n-1-i)) & 1
		j := start + i
		e.bits[j>>3] |= bit << (7 - j&7)
	}
}

// u reads n bits from start.
func (e *Encoder) u(start, n int) uint32 {
	var v uint32
	for i := range n {
		j := start + i
		v = v<<1 | uint32(e.bits[j>>3]>>(7-j&7)&1)
	}
	return v
}
