package api

import (
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
	limit, detail := s.cfg.Limits.Default, "Your account has exceeded its API rate limit. Please try again later."
	switch b {
	case bucketCreate:
		limit, detail = s.cfg.Limits.CreateTrackingRequest, "You've hit the create tracking requests limit. Please try again in a minute."
	case bucketInfer:
		limit, detail = s.cfg.Limits.InferNumber, "You've hit the infer number limit. Please try again in a minute."
	case bucketRefresh:
		limit, detail = s.cfg.Limits.Refresh, "You've hit the refresh limit. Please try again in a minute."
	}
	if limit <= 0 { // a limit of 0 or less lifts it
		return nil
	}
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
	return &httpError{status: http.StatusTooManyRequests, code: boxwatch.CodeRateLimited, detail: detail,
		header: http.Header{"Retry-After": {strconv.Itoa(secs)}}}
}
