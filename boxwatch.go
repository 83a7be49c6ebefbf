// Package boxwatch holds the domain of the container-tracking service: accounts and API keys,
// tracking requests, shipping lines and the errors, validation rules and interfaces the other
// packages implement or use.
//
// It imports only the standard library. Storage lives in package store, the HTTP API in package api,
// and cmd/boxwatch wires them together.
package boxwatch

import (
	"crypto/sha1"
	"time"
)

// TimeFormat is how every timestamp crosses the API: ISO 8601 in UTC with a trailing Z.
const TimeFormat = "2006-01-02T15:04:05Z"

// Clock returns the current time. Services take one so tests can control time.
type Clock func() time.Time

// SystemClock is the real clock, truncated to microseconds so that a value survives a round trip
// through either database unchanged.
func SystemClock() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// NameUUID derives a UUID from a name with the version 5 layout (SHA-1 based), so that an
// identifier made from the same name is the same on every installation, run and replica:
// reference data (ShippingLineID, PortID, VesselID) and the simulator's events use it.
func NameUUID(name string) string {
	h := sha1.Sum([]byte(name))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	return FormatUUID(h[:16])
}

// FormatUUID writes the first 16 bytes of b as a UUID in canonical lower-case hex form.
func FormatUUID(b []byte) string {
	const digits = "0123456789abcdef"
	var out [36]byte
	j := 0
	for i, c := range b[:16] {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out[j] = '-'
			j++
		}
		out[j], out[j+1] = digits[c>>4], digits[c&0x0f]
		j += 2
	}
	return string(out[:])
}
