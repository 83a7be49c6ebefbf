package ais

import (
	"bytes"
	"time"
)

// Error is the kind of fault that made a Decoder skip a line. It is comparable: test with ==.
type Error uint8

// The kinds of malformed input, as counted in Stats.Errors.
const (
	ErrNotAIS   Error = iota + 1 // not an AIS sentence: no leading '!', or not a VDM/VDO sentence
	ErrChecksum                  // the sentence's checksum does not match its characters
	ErrSentence                  // the fields of the sentence are malformed (count, number, fill bits)
	ErrTagBlock                  // the tag block is malformed or its checksum does not match
	ErrPayload                   // the payload has a character outside the six-bit armour, or is too long
	ErrShort                     // the message is too short for the fields of its type
	ErrType                      // the message type is 0 or above 27, the last one defined
	ErrExpired                   // fragments dropped: their message never completed (counted only, never returned)
	numErrors
)

// ErrorKinds is one more than the largest Error, the length of Stats.Errors.
const ErrorKinds = int(numErrors)

var errorNames = [numErrors]string{"", "not_ais", "checksum", "sentence", "tag_block", "payload", "short", "type", "expired"}

// String is the kind's name in statistics: "checksum", "short"…
func (e Error) String() string {
	if e >= numErrors {
		return "unknown"
	}
	return errorNames[e]
}

func (e Error) Error() string { return "ais: " + e.String() }

// Stats counts what a Decoder has seen.
type Stats struct {
	Lines    int             // lines given to Decode
	Messages [28]int         // complete messages by type, 1 to 27
	Errors   [ErrorKinds]int // skipped lines by Error; index 0 is unused
}

// DefaultWindow is how many lines a message's fragments wait for the rest when Decoder.Window is 0.
const DefaultWindow = 100

// maxFragments is the most sentences a message may have: the count is one digit.
const maxFragments = 9

// maxFragmentChars bounds one fragment's payload; NMEA sentences are at most 82 characters, so
// this leaves room for receivers that exceed the limit.
const maxFragmentChars = 120

// pendingSlots is how many multi-sentence messages may be incomplete at once; when all are in
// use, the oldest is dropped for a new one.
const pendingSlots = 16

// Decoder turns NMEA lines into AIS messages. Messages of several sentences are joined by their
// sequential message id, channel and sentence count; their fragments may be interleaved with
// other messages and arrive in any order. A message whose fragments have not all arrived within
// Window lines of its first is dropped (counted as ErrExpired): a line-count window, rather than a
// clock, keeps decoding a pure function of the input and works for files without times.
//
// The zero value is ready to use. A Decoder is large (it holds the pending fragments in place,
// so that decoding does not allocate): keep one per feed and pass it by pointer. It is not safe
// for concurrent use.
type Decoder struct {
	// Window is how many lines a message's fragments wait for the rest; 0 means DefaultWindow.
	Window int
	// Stats counts lines, messages and errors since the Decoder was made; callers may reset it.
	Stats Stats

	line    int // lines seen, for expiry
	pending [pendingSlots]fragments
	bits    bitBuffer
}

// fragments are the sentences of one multi-sentence message received so far.
type fragments struct {
	used         bool
	count, got   uint8
	have         uint16 // bit i set: sentence i+1 received
	seq, channel byte
	own          bool
	first        int   // Decoder.line of the first sentence received
	timeMilli    int64 // tag-block time of any sentence, 0 when none
	hasTime      bool
	fill         uint8 // fill bits of the last sentence
	lens         [maxFragments]uint8
	data         [maxFragments][maxFragmentChars]byte
}

// Decode reads one line (with or without its line ending) into m. It returns true when the line
// completes a message, which m then holds, entirely overwritten. It returns false and a nil error
// when the line is a fragment of a message not complete yet, or a blank line; false and an Error
// when the line is skipped as malformed, or completes a message too short for its type. m is
// left unspecified unless Decode returns true. Decode neither retains line nor allocates.
func (d *Decoder) Decode(line []byte, m *Message) (bool, error) {
	d.Stats.Lines++
	d.line++
	ok, err := d.decode(line, m)
	if err != nil {
		d.Stats.Errors[err.(Error)]++
	} else if ok {
		d.Stats.Messages[m.Type]++
	}
	return ok, err
}

func (d *Decoder) decode(line []byte, m *Message) (bool, error) {
	line = trimSpace(line)
	if len(line) == 0 {
		return false, nil
	}
	var tagMilli int64
	hasTime := false
	if line[0] == '\\' {
		end := bytes.IndexByte(line[1:], '\\')
		if end < 0 {
			return false, ErrTagBlock
		}
		var err error
		tagMilli, hasTime, err = parseTagBlock(line[1 : 1+end])
		if err != nil {
			return false, err
		}
		line = line[end+2:]
	}
	s, err := parseSentence(line)
	if err != nil {
		return false, err
	}
	if s.count == 1 {
		d.bits.reset()
		if !d.bits.add(s.payload) {
			return false, ErrPayload
		}
		return d.finish(m, s.fill, s.channel, s.own, tagMilli, hasTime)
	}
	if len(s.payload) > maxFragmentChars || !validArmour(s.payload) {
		return false, ErrPayload
	}
	f := d.slot(s)
	if f.have&(1<<(s.num-1)) == 0 {
		f.got++
	} else if s.num == 1 {
		// A first sentence again: the message it belonged to will not complete.
		d.Stats.Errors[ErrExpired]++
		*f = fragments{used: true, count: s.count, seq: s.seq, channel: s.channel, own: s.own, first: d.line, got: 1}
	}
	f.have |= 1 << (s.num - 1)
	f.lens[s.num-1] = uint8(len(s.payload))
	copy(f.data[s.num-1][:], s.payload)
	if s.num == s.count {
		f.fill = s.fill
	}
	if hasTime && !f.hasTime {
		f.timeMilli, f.hasTime = tagMilli, true
	}
	if f.got < f.count {
		return false, nil
	}
	d.bits.reset()
	for i := range int(f.count) {
		if !d.bits.add(f.data[i][:f.lens[i]]) {
			f.used = false
			return false, ErrPayload
		}
	}
	f.used = false
	return d.finish(m, f.fill, f.channel, f.own, f.timeMilli, f.hasTime)
}

// Pending is how many multi-sentence messages wait for more sentences: at the end of a file,
// the ones that will never complete.
func (d *Decoder) Pending() int {
	n := 0
	for i := range d.pending {
		if d.pending[i].used {
			n++
		}
	}
	return n
}

// slot returns the pending message sentence s belongs to, starting one when there is none and
// dropping expired ones on the way.
func (d *Decoder) slot(s sentence) *fragments {
	window := d.Window
	if window <= 0 {
		window = DefaultWindow
	}
	var free, oldest *fragments
	for i := range d.pending {
		f := &d.pending[i]
		if f.used && d.line-f.first > window {
			f.used = false
			d.Stats.Errors[ErrExpired]++
		}
		if !f.used {
			if free == nil {
				free = f
			}
			continue
		}
		if f.seq == s.seq && f.channel == s.channel && f.count == s.count && f.own == s.own {
			return f
		}
		if oldest == nil || f.first < oldest.first {
			oldest = f
		}
	}
	if free == nil {
		free = oldest
		d.Stats.Errors[ErrExpired]++
	}
	free.used, free.count, free.got, free.have = true, s.count, 0, 0
	free.seq, free.channel, free.own, free.first = s.seq, s.channel, s.own, d.line
	free.hasTime, free.timeMilli = false, 0
	return free
}

// finish decodes the payload in d.bits into m.
func (d *Decoder) finish(m *Message, fill uint8, channel byte, own bool, milli int64, hasTime bool) (bool, error) {
	if !d.bits.end(fill) {
		return false, ErrShort
	}
	*m = Message{Channel: channel, Own: own}
	if hasTime {
		m.Time = time.UnixMilli(milli).UTC()
	}
	if err := d.bits.decode(m); err != nil {
		return false, err
	}
	return true, nil
}

// sentence is the parsed fields of one VDM or VDO sentence.
type sentence struct {
	count, num uint8
	seq        byte // sequential message id as a digit, 0 when empty
	channel    byte
	own        bool
	payload    []byte
	fill       uint8
}

// parseSentence reads "!ccVDM,count,num,seq,channel,payload,fill*hh". Anything after the
// checksum must start with a comma (some receivers append fields there) and is ignored.
func parseSentence(b []byte) (sentence, error) {
	var s sentence
	if len(b) < 7 || b[0] != '!' {
		return s, ErrNotAIS
	}
	var sum byte
	star := -1
	for i := 1; i < len(b); i++ {
		if b[i] == '*' {
			star = i
			break
		}
		sum ^= b[i]
	}
	if star < 0 || star+3 > len(b) || star+3 < len(b) && b[star+3] != ',' {
		return s, ErrSentence
	}
	want, ok := hexByte(b[star+1], b[star+2])
	if !ok {
		return s, ErrSentence
	}
	body := b[1:star]
	if len(body) < 6 || body[2] != 'V' || body[3] != 'D' || body[5] != ',' || body[4] != 'M' && body[4] != 'O' {
		return s, ErrNotAIS
	}
	if sum != want {
		return s, ErrChecksum
	}
	s.own = body[4] == 'O'
	f := body[6:]
	var fields [6][]byte
	for i := range fields {
		j := bytes.IndexByte(f, ',')
		if i == len(fields)-1 {
			if j >= 0 {
				return s, ErrSentence
			}
			fields[i] = f
			break
		}
		if j < 0 {
			return s, ErrSentence
		}
		fields[i], f = f[:j], f[j+1:]
	}
	count, ok1 := digit(fields[0])
	num, ok2 := digit(fields[1])
	fill, ok3 := digit(fields[5])
	if !ok1 || !ok2 || !ok3 || count < 1 || num < 1 || num > count || fill > 5 || len(fields[3]) > 1 {
		return s, ErrSentence
	}
	switch len(fields[2]) {
	case 0:
	case 1:
		if fields[2][0] < '0' || fields[2][0] > '9' {
			return s, ErrSentence
		}
		s.seq = fields[2][0]
	default:
		return s, ErrSentence
	}
	if len(fields[3]) == 1 {
		s.channel = fields[3][0]
	}
	s.count, s.num, s.fill, s.payload = count, num, fill, fields[4]
	return s, nil
}

// parseTagBlock reads the fields of an NMEA 4 tag block ("s:rx1,c:1700000000*hh", without the
// backslashes) and returns its c: time in milliseconds: the value is unix seconds, or
// milliseconds when it is too large to be seconds (after the year 5138).
func parseTagBlock(b []byte) (milli int64, ok bool, err error) {
	star := bytes.IndexByte(b, '*')
	if star < 0 || star+3 != len(b) {
		return 0, false, ErrTagBlock
	}
	want, valid := hexByte(b[star+1], b[star+2])
	var sum byte
	for _, c := range b[:star] {
		sum ^= c
	}
	if !valid || sum != want {
		return 0, false, ErrTagBlock
	}
	f := b[:star]
	for len(f) > 0 {
		field := f
		if j := bytes.IndexByte(f, ','); j >= 0 {
			field, f = f[:j], f[j+1:]
		} else {
			f = nil
		}
		if len(field) < 2 || field[1] != ':' {
			return 0, false, ErrTagBlock
		}
		if field[0] != 'c' {
			continue
		}
		v, valid := decimal(field[2:])
		if !valid {
			return 0, false, ErrTagBlock
		}
		if v < 1e11 {
			v *= 1000
		}
		milli, ok = v, true
	}
	return milli, ok, nil
}

func digit(b []byte) (uint8, bool) {
	if len(b) != 1 || b[0] < '0' || b[0] > '9' {
		return 0, false
	}
	return b[0] - '0', true
}

// decimal reads a non-negative integer of at most 15 digits.
func decimal(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

func hexByte(hi, lo byte) (byte, bool) {
	h, ok1 := hexDigit(hi)
	l, ok2 := hexDigit(lo)
	return h<<4 | l, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}
