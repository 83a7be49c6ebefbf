// Package boxwatch holds the domain of the container-tracking service: accounts and API keys,
// tracking requests, shipping lines and the errors, validation rules and interfaces the other
// packages implement or use.
//
// It imports only the standard library. Storage lives in package store, the HTTP API in package api,
// and cmd/boxwatch wires them together.
package boxwatch

import "time"

// TimeFormat is how every timestamp crosses the API: ISO 8601 in UTC with a trailing Z.
const TimeFormat = "2006-01-02T15:04:05Z"

// Clock returns the current time. Services take one so tests can control time.
type Clock func() time.Time

// SystemClock is the real clock, truncated to microseconds so that a value survives a round trip
// through either database unchanged.
func SystemClock() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
