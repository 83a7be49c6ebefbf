package sim

import (
	"fmt"
	"time"
)

// dice makes the simulator's choices for one subject (a shipment, a carrier's service): every
// choice is a hash of the subject and a label naming the choice, so a choice never depends on the
// order or number of the others, and the world stays the same when new choices are added.
type dice string

// u64 is the raw draw for label: FNV-1a over the subject and label, then a SplitMix64 finaliser
// to spread the bits.
func (d dice) u64(label string) uint64 {
	h := uint64(14695981039346656037)
	for _, s := range []string{string(d), "\x00", label} {
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= 1099511628211
		}
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// intn returns a number in [0, n); n must be positive.
func (d dice) intn(label string, n int) int { return int(d.u64(label) % uint64(n)) }

// frac returns a number in [0, 1).
func (d dice) frac(label string) float64 { return float64(d.u64(label)>>11) / (1 << 53) }

// between returns a duration in [lo, hi], to the minute.
func (d dice) between(label string, lo, hi time.Duration) time.Duration {
	return (lo + time.Duration(d.frac(label)*float64(hi-lo))).Truncate(time.Minute)
}

// digits returns n decimal digits.
func (d dice) digits(label string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + d.intn(fmt.Sprint(label, "/", i), 10))
	}
	return string(b)
}

// weighted is a choice with how often it is made.
type weighted[T any] struct {
	value  T
	weight int
}

// pick chooses by weight; the weights must not all be zero.
func pick[T any](d dice, label string, choices []weighted[T]) T {
	total := 0
	for _, c := range choices {
		total += c.weight
	}
	n := d.intn(label, total)
	for _, c := range choices {
		if n -= c.weight; n < 0 {
			return c.value
		}
	}
	return choices[len(choices)-1].value
}
