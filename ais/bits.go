package ais

import (
	"encoding/binary"
	"time"
)

// maxBits bounds a message: five radio slots carry 1,008 bits; this leaves room for more.
const maxBits = 1344

// bitBuffer is a message's payload as bits, most significant first, packed in bytes. The eight
// bytes after the payload stay zero so that reads never need a bounds check of their own, and
// fields past the end of a short message read as zero.
type bitBuffer struct {
	b     [maxBits/8 + 64]byte
	n     int    // bits written
	acc   uint32 // bits not yet written out, right-aligned
	nacc  uint
	chars int
}

func (p *bitBuffer) reset() { p.n, p.acc, p.nacc, p.chars = 0, 0, 0, 0 }

// armour maps a payload character to its six-bit value, 0xff for characters outside the armour.
var armour = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := 48; c < 88; c++ {
		t[c] = byte(c - 48)
	}
	for c := 96; c < 120; c++ {
		t[c] = byte(c - 56)
	}
	return t
}()

func validArmour(s []byte) bool {
	for _, c := range s {
		if armour[c] == 0xff {
			return false
		}
	}
	return true
}

// add appends armoured characters; false when one is outside the armour or the message grows
// too long.
func (p *bitBuffer) add(s []byte) bool {
	if (p.chars+len(s))*6 > maxBits {
		return false
	}
	p.chars += len(s)
	acc, nacc, n := p.acc, p.nacc, p.n
	for _, c := range s {
		v := armour[c]
		if v == 0xff {
			return false
		}
		acc = acc<<6 | uint32(v)
		nacc += 6
		if nacc >= 8 {
			nacc -= 8
			p.b[n>>3] = byte(acc >> nacc)
			n += 8
		}
	}
	p.acc, p.nacc, p.n = acc, nacc, n
	return true
}

// end flushes the last bits, drops the fill bits and clears what follows; false when there are
// fewer bits than fill bits.
func (p *bitBuffer) end(fill uint8) bool {
	n := p.n
	if p.nacc > 0 {
		p.b[n>>3] = byte(p.acc << (8 - p.nacc))
		n += int(p.nacc)
	}
	if int(fill) > n {
		return false
	}
	n -= int(fill)
	p.n = n
	last := (n + 7) >> 3
	if n&7 != 0 {
		p.b[last-1] &= 0xff << (8 - n&7)
	}
	clear(p.b[last:min(last+64, len(p.b))])
	return true
}

// u reads n ≤ 32 bits from start as an unsigned number.
func (p *bitBuffer) u(start, n int) uint32 {
	v := binary.BigEndian.Uint64(p.b[start>>3:])
	return uint32(v << uint(start&7) >> uint(64-n))
}

// i reads n ≤ 32 bits from start as a two's complement number.
func (p *bitBuffer) i(start, n int) int32 {
	v := binary.BigEndian.Uint64(p.b[start>>3:])
	return int32(int64(v<<uint(start&7)) >> uint(64-n))
}

// text reads chars six-bit characters from start into t, ending at the first '@'.
func (p *bitBuffer) text(t *Text, start, chars int) {
	n := 0
	for i := range chars {
		c := byte(p.u(start+6*i, 6))
		if c == 0 {
			break
		}
		if c < 32 {
			c += 64
		}
		t.b[n] = c
		n++
	}
	for n > 0 && t.b[n-1] == ' ' {
		n--
	}
	t.n = uint8(n)
}

// The shortest length of each message type, in bits, that holds the fields decoded. Receivers
// often drop trailing spare bits, so these stop at the last field read, not the standard length.
var minBits = [28]int{
	1: 137, 2: 137, 3: 137, // through the heading
	4:  138, // through the position fixing device
	5:  302, // through the draught: the destination may be cut short
	18: 133, 19: 301,
	24: 40, // each part checks its own length
	27: 94,
}

// decode reads the fields of the message in p into m, whose envelope (channel, time) is set.
func (p *bitBuffer) decode(m *Message) error {
	if p.n < 38 {
		return ErrShort
	}
	m.Type = int(p.u(0, 6))
	m.Repeat = int(p.u(6, 2))
	m.MMSI = p.u(8, 30)
	if m.Type == 0 || m.Type > 27 {
		return ErrType
	}
	if p.n < minBits[m.Type] {
		return ErrShort
	}
	switch m.Type {
	case 1, 2, 3:
		m.NavStatus = int(p.u(38, 4))
		p.position(m, 50, 61, 89, 116, 128)
	case 4:
		p.position(m, -1, 79, 107, -1, -1)
		year, month, day := int(p.u(38, 14)), int(p.u(52, 4)), int(p.u(56, 5))
		hour, minute, second := int(p.u(61, 5)), int(p.u(66, 6)), int(p.u(72, 6))
		if year > 0 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour < 24 && minute < 60 && second < 60 {
			m.UTC = time.Date(year, time.Month(month), day, hour, minute, second, 0, time.UTC)
		}
	case 5:
		m.IMO = p.u(40, 30)
		p.text(&m.CallSign, 70, 7)
		p.text(&m.Name, 112, 20)
		p.static(m, 232)
		m.ETAMonth, m.ETADay = int(p.u(274, 4)), int(p.u(278, 5))
		m.ETAHour, m.ETAMinute = int(p.u(283, 5)), int(p.u(288, 6))
		m.HasETA = m.ETAMonth >= 1 && m.ETAMonth <= 12 && m.ETADay >= 1 && m.ETAHour < 24 && m.ETAMinute < 60
		if !m.HasETA {
			m.ETAMonth, m.ETADay, m.ETAHour, m.ETAMinute = 0, 0, 0, 0
		}
		m.Draught = float64(p.u(294, 8)) / 10
		p.text(&m.Destination, 302, 20)
	case 18:
		p.position(m, 46, 57, 85, 112, 124)
	case 19:
		p.position(m, 46, 57, 85, 112, 124)
		p.text(&m.Name, 143, 20)
		p.static(m, 263)
	case 24:
		switch p.u(38, 2) {
		case 0:
			if p.n < 160 {
				return ErrShort
			}
			m.Part = 'A'
			p.text(&m.Name, 40, 20)
		case 1:
			if p.n < 162 {
				return ErrShort
			}
			m.Part = 'B'
			m.ShipType = int(p.u(40, 8))
			p.text(&m.CallSign, 90, 7)
			if m.MMSI/10000000 != 98 { // an auxiliary craft gives its mother ship's MMSI instead
				p.dimensions(m, 132)
			}
		default:
			return ErrShort
		}
	case 27:
		m.NavStatus = int(p.u(40, 4))
		lon, lat := p.i(44, 18), p.i(62, 17)
		if lon >= -180*600 && lon <= 180*600 && lat >= -90*600 && lat <= 90*600 {
			m.Position.Lon, m.Position.Lat, m.HasPosition = float64(lon)/600, float64(lat)/600, true
		}
		if sog := p.u(79, 6); sog != 63 {
			m.Speed, m.HasSpeed = float64(sog), true
		}
		if cog := p.u(85, 9); cog < 360 {
			m.Course, m.HasCourse = float64(cog), true
		}
	}
	return nil
}

// position reads a position report's fields from the given bit offsets (-1: the type lacks it).
// Values outside their range, the "not available" ones among them, are left absent.
func (p *bitBuffer) position(m *Message, sog, lon, lat, cog, heading int) {
	x, y := p.i(lon, 28), p.i(lat, 27)
	if x >= -180*600000 && x <= 180*600000 && y >= -90*600000 && y <= 90*600000 {
		m.Position.Lon, m.Position.Lat, m.HasPosition = float64(x)/600000, float64(y)/600000, true
	}
	if sog >= 0 {
		if v := p.u(sog, 10); v != 1023 {
			m.Speed, m.HasSpeed = float64(v)/10, true
		}
	}
	if cog >= 0 {
		if v := p.u(cog, 12); v < 3600 {
			m.Course, m.HasCourse = float64(v)/10, true
		}
	}
	if heading >= 0 {
		if v := p.u(heading, 9); v < 360 {
			m.Heading, m.HasHeading = int(v), true
		}
	}
}

// static reads the ship type and dimensions that types 5 and 19 share.
func (p *bitBuffer) static(m *Message, start int) {
	m.ShipType = int(p.u(start, 8))
	p.dimensions(m, start+8)
}

func (p *bitBuffer) dimensions(m *Message, start int) {
	m.ToBow, m.ToStern = int(p.u(start, 9)), int(p.u(start+9, 9))
	m.ToPort, m.ToStarboard = int(p.u(start+18, 6)), int(p.u(start+24, 6))
}
