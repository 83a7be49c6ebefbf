package webhook_test

import (
	"math"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/webhook"
)

func constant(r float64) func() float64 { return func() float64 { return r } }

func total(scale float64, rnd func() float64) time.Duration {
	var sum time.Duration
	for n := 1; n <= webhook.MaxRetries; n++ {
		sum += webhook.Backoff(n, scale, rnd)
	}
	return sum
}

func TestBackoffTable(t *testing.T) {
	t.Parallel()
	want := []time.Duration{
		time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 16 * time.Minute, 32 * time.Minute,
		64 * time.Minute, 128 * time.Minute, 256 * time.Minute, 512 * time.Minute, 1024 * time.Minute, 2048 * time.Minute,
	}
	if len(want) != webhook.MaxRetries {
		t.Fatalf("table has %d rows, MaxRetries is %d", len(want), webhook.MaxRetries)
	}
	for i, w := range want {
		if got := webhook.Backoff(i+1, 1, nil); got != w {
			t.Errorf("Backoff(%d) = %v, want %v", i+1, got, w)
		}
	}
}

func TestBackoffSpansAboutThreeDays(t *testing.T) {
	t.Parallel()
	const day = 24 * time.Hour
	if got, want := total(1, nil), 68*time.Hour+15*time.Minute; got != want {
		t.Errorf("total without jitter = %v, want %v", got, want)
	}
	for _, r := range []float64{0, 0.5, 0.999999} {
		if got := total(1, constant(r)); got < 2*day+6*time.Hour || got > 3*day+12*time.Hour {
			t.Errorf("total with jitter %v = %v, want about 3 days", r, got)
		}
	}
}

func TestBackoffIncreases(t *testing.T) {
	t.Parallel()
	for n := 2; n <= webhook.MaxRetries; n++ {
		if prev, cur := webhook.Backoff(n-1, 1, nil), webhook.Backoff(n, 1, nil); cur <= prev {
			t.Errorf("Backoff(%d) = %v is not longer than Backoff(%d) = %v", n, cur, n-1, prev)
		}
		// Jitter never reorders the steps: the longest draw of one is shorter than the shortest of the next.
		if prev, cur := webhook.Backoff(n-1, 1, constant(0.999999)), webhook.Backoff(n, 1, constant(0)); cur <= prev {
			t.Errorf("with jitter, Backoff(%d) = %v is not longer than Backoff(%d) = %v", n, cur, n-1, prev)
		}
	}
}

func TestBackoffScales(t *testing.T) {
	t.Parallel()
	if got, want := total(0.001, nil), time.Duration(float64(68*time.Hour+15*time.Minute)*0.001); got != want {
		t.Errorf("total at scale 0.001 = %v, want %v", got, want)
	}
	if got, want := webhook.Backoff(3, 2, nil), 8*time.Minute; got != want {
		t.Errorf("Backoff(3) at scale 2 = %v, want %v", got, want)
	}
	for _, bad := range []float64{0, -1, math.NaN()} {
		if got := webhook.Backoff(1, bad, nil); got != time.Minute {
			t.Errorf("Backoff(1) at scale %v = %v, want the unscaled minute", bad, got)
		}
	}
	if got := webhook.Backoff(webhook.MaxRetries, math.Inf(1), nil); got != 30*24*time.Hour {
		t.Errorf("Backoff at infinite scale = %v, want the 30-day ceiling", got)
	}
}

func TestBackoffJitterBounds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		rnd  func() float64
		want time.Duration
	}{
		{"Low", constant(0), 48 * time.Second},
		{"Middle", constant(0.5), time.Minute},
		{"High", constant(1), 72 * time.Second},
		{"OutOfRangeLow", constant(-3), 48 * time.Second},
		{"OutOfRangeHigh", constant(7), 72 * time.Second},
		{"NaN", constant(math.NaN()), 48 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := webhook.Backoff(1, 1, tt.rnd); got != tt.want {
				t.Errorf("Backoff(1) = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBackoffClampsAttempt(t *testing.T) {
	t.Parallel()
	if got := webhook.Backoff(0, 1, nil); got != time.Minute {
		t.Errorf("Backoff(0) = %v, want the first step", got)
	}
	if got, want := webhook.Backoff(webhook.MaxRetries+5, 1, nil), webhook.Backoff(webhook.MaxRetries, 1, nil); got != want {
		t.Errorf("Backoff beyond the last retry = %v, want the last step %v", got, want)
	}
}

func TestNextDelay(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		retryAfter time.Duration
		retry      int
		scale      float64
		want       time.Duration
	}{
		{"BackoffWhenNoRetryAfter", 0, 3, 1, 4 * time.Minute},
		{"BackoffWhenLonger", 30 * time.Second, 3, 1, 4 * time.Minute},
		{"RetryAfterWhenLonger", time.Hour, 3, 1, time.Hour},
		{"RetryAfterScaled", time.Hour, 3, 0.01, 36 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := webhook.Attempt{Outcome: webhook.Retry, RetryAfter: tt.retryAfter}
			if got := a.NextDelay(tt.retry, tt.scale, nil); got != tt.want {
				t.Errorf("NextDelay = %v, want %v", got, tt.want)
			}
		})
	}
}
