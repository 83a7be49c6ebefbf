package api

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/boxwatch/boxwatch"
)

// bucket names a rate-limit budget.
type bucket string

const (
	bucketDefault bucket = "default"
	bucketCreate  bucket = "create_tracking_request"
	bucketInfer   bucket = "infer_number"
	bucketRefresh bucket = "refresh"
)

// rateLimit takes one request from the account's bucket for the route, or answers 429.
func (s *server) rateLimit(w http.ResponseWriter, r *http.Request, a boxwatch.Account, b bucket) error {
	limit, detail := s.cfg.Limits.Default, "Your account has exceeded its API rate limit."
	switch b {
	case bucketCreate:
		limit, detail = s.cfg.Limits.CreateTrackingRequest, "You've hit the create tracking requests limit."
	case bucketInfer:
		limit, detail = s.cfg.Limits.InferNumber, "You've hit the infer number limit."
	case bucketRefresh:
		limit, detail = s.cfg.Limits.Refresh, "You've hit the refresh limit."
	}
	if limit <= 0 { // a limit of 0 or less lifts it
		return nil
	}
	s.metrics.rateChecked(string(b))
	ok, retry, err := s.cfg.Limiter.Allow(r.Context(), "acct:"+a.ID+":"+string(b), limit, time.Minute)
	if err != nil {
		return err
	}
	if ok {
		return nil
	}
	secs := int(math.Ceil(retry.Seconds()))
	if secs < 1 {
		secs = 1
	}
	s.metrics.rateLimited(string(b))
	// The detail says what Retry-After says, in words.
	wait := fmt.Sprintf("%d seconds", secs)
	if secs == 1 {
		wait = "1 second"
	}
	return &httpError{status: http.StatusTooManyRequests, code: boxwatch.CodeRateLimited, detail: detail + " Please try again in " + wait + ".",
		header: http.Header{"Retry-After": {strconv.Itoa(secs)}}}
}
