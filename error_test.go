package boxwatch_test

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/boxwatch/boxwatch"
)

// No code path can change a sentinel: every *Error read from one, wrapped or not, is the
// reader's own, so a reader that points it at a request member or rewords it (as an error
// renderer may) leaves the sentinel, and every other reader, as they were. The readers run at once,
// so that -race would also see one shared *Error.
func TestSentinelsCannotChange(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sentinel *boxwatch.Sentinel
		want     boxwatch.Error
	}{
		{"ErrNotFound", boxwatch.ErrNotFound, boxwatch.Error{Kind: boxwatch.KindNotFound, Code: "not_found", Message: "The resource was not found."}},
		{"ErrUnauthorized", boxwatch.ErrUnauthorized, boxwatch.Error{Kind: boxwatch.KindUnauthorized, Code: "unauthorized", Message: "Invalid or missing API token."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wrapped := fmt.Errorf("store: lookup: %w", tc.sentinel)
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Go(func() {
					for _, err := range []error{tc.sentinel, wrapped} {
						e := boxwatch.AsError(err)
						if e == nil || *e != tc.want {
							t.Errorf("AsError(%v) = %+v, want %+v", err, e, tc.want)
							return
						}
						e.Message, e.Pointer, e.Code = "changed by reader "+strconv.Itoa(i), "/url", "changed"
						if got := e.Error(); got != "changed by reader "+strconv.Itoa(i)+" (changed at /url)" {
							t.Errorf("the changed copy reads %q", got)
						}
						for _, e := range boxwatch.AllErrors(err) {
							e.Parameter = "page[size]"
						}
					}
				})
			}
			wg.Wait()
			for _, err := range []error{tc.sentinel, wrapped} {
				if e := boxwatch.AsError(err); e == nil || *e != tc.want {
					t.Errorf("after the readers changed their copies, AsError(%v) = %+v", err, e)
				}
				if !errors.Is(err, tc.sentinel) || !boxwatch.IsKind(err, tc.want.Kind) {
					t.Errorf("%v is no longer the sentinel", err)
				}
			}
			if got, want := tc.sentinel.Error(), tc.want.Message+" ("+tc.want.Code+")"; got != want {
				t.Errorf("Error() = %q, want %q", got, want)
			}
		})
	}
}

// A sentinel declared elsewhere behaves as the domain's own: a fresh *Error per reader, found
// behind errors.Join and multi-%w wrapping too.
func TestNewSentinel(t *testing.T) {
	errBusy := boxwatch.NewSentinel(boxwatch.KindUnavailable, boxwatch.CodeUnavailable, "Busy: try again shortly.")
	err := fmt.Errorf("%w: %w", errBusy, errors.New("driver: too many connections"))
	a, b := boxwatch.AsError(err), boxwatch.AsError(errors.Join(err))
	if a == nil || b == nil || a == b || *a != *b || a.Kind != boxwatch.KindUnavailable || a.Message != "Busy: try again shortly." {
		t.Fatalf("AsError = %+v and %+v, want two equal copies of the sentinel's *Error", a, b)
	}
	if !errors.Is(err, errBusy) || errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("errors.Is does not tell the sentinels apart")
	}
}
