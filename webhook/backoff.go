package webhook

import (
	"math"
	"time"
)

// MaxRetries is how many times a notification is retried after its first attempt; when the last
// retry fails too, the notification is failed.
const MaxRetries = 12

const (
	firstRetry = time.Minute
	// jitter spreads each wait uniformly over ±20 %, so that the notifications of one outage do
	// not all come back at the same instant.
	jitter     = 0.2
	maxBackoff = 30 * 24 * time.Hour
)

// Backoff returns how long to wait before retry number attempt (1 to MaxRetries; values outside
// are clamped): one minute, doubling with each retry, times scale, times a jitter factor of
// 0.8 + 0.4×rnd() (rnd returns values in [0, 1), like math/rand's Float64; nil means no jitter).
// A scale that is not positive, or NaN, counts as 1. The result never exceeds 30 days.
//
// At scale 1 without jitter:
//
//	retry   wait     since the first attempt
//	1       1m       1m
//	2       2m       3m
//	3       4m       7m
//	4       8m       15m
//	5       16m      31m
//	6       32m      1h03m
//	7       1h04m    2h07m
//	8       2h08m    4h15m
//	9       4h16m    8h31m
//	10      8h32m    17h03m
//	11      17h04m   34h07m
//	12      34h08m   68h15m (2.8 days; 2.3 to 3.4 days with jitter)
func Backoff(attempt int, scale float64, rnd func() float64) time.Duration {
	attempt = min(max(attempt, 1), MaxRetries)
	wait := float64(firstRetry) * math.Ldexp(1, attempt-1) * normalScale(scale)
	if rnd != nil {
		r := rnd()
		if !(r >= 0) { // also NaN
			r = 0
		}
		wait *= 1 - jitter + 2*jitter*min(r, 1)
	}
	return time.Duration(min(wait, float64(maxBackoff)))
}

// NextDelay returns how long to wait after a before retry number retry: Backoff(retry, scale,
// rnd), or the receiver's Retry-After times scale when that is longer. Retry-After is scaled like
// the schedule so that a shortened schedule (tests, --retry-scale) stays short; at scale 1 it is
// honoured exactly, up to MaxRetryAfter.
func (a Attempt) NextDelay(retry int, scale float64, rnd func() float64) time.Duration {
	asked := time.Duration(min(float64(a.RetryAfter)*normalScale(scale), float64(maxBackoff)))
	return max(Backoff(retry, scale, rnd), asked)
}

func normalScale(scale float64) float64 {
	if !(scale > 0) {
		return 1
	}
	return scale
}
