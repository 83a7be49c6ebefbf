package api_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// The HTTP benchmarks run client and server on loopback in one process. Each group has a
// "baseline": a bare net/http handler answering the same bytes, measured in the same run, so
// make bench can print the API's throughput as a ratio to it (machines here are shared and noisy).

func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64}}
}

// hammer issues requests from parallel clients until b.N are done and reports requests/s.
func hammer(b *testing.B, newReq func() *http.Request, wantStatus int) {
	client := benchClient()
	b.SetParallelism(8)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := client.Do(newReq())
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != wantStatus {
				b.Errorf("status %d, want %d", res.StatusCode, wantStatus)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// bare serves fixed bytes with the headers the API sends.
func bare(status int, body []byte) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			io.Copy(io.Discard, r.Body)
		}
		w.Header().Set("Content-Type", api.MediaType)
		w.Header().Set("X-Request-Id", "0123456789abcdef01234567")
		w.WriteHeader(status)
		w.Write(body)
	}))
	return srv
}

func BenchmarkGetTrackingRequest(b *testing.B) {
	// The bytes the bare handler returns are a real answer of the API.
	ref := newTestServer(b, storetest.SQLite, withLimits(api.Limits{}))
	id := ref.mustCreate(b, ref.acme, "bill_of_lading", "MEDUFR030802", "MSCU", `"ref_numbers":["PO12345"]`)
	body := ref.do(b, "GET", "/v2/tracking_requests/"+id, ref.acme, "").want(b, 200).raw

	b.Run("baseline", func(b *testing.B) {
		srv := bare(200, body)
		defer srv.Close()
		hammer(b, func() *http.Request {
			req, _ := http.NewRequest("GET", srv.URL+"/v2/tracking_requests/"+id, nil)
			req.Header.Set("Authorization", "Token "+ref.acme)
			return req
		}, 200)
	})
	for _, be := range storetest.Backends {
		b.Run(be.Name, func(b *testing.B) {
			if be.Name == "postgres" {
				storetest.RequirePostgres(b)
			}
			// Limits stay on (set high) so each request pays for its rate-limit check.
			ts := newTestServer(b, be, production)
			id := ts.mustCreate(b, ts.acme, "bill_of_lading", "MEDUFR030802", "MSCU", `"ref_numbers":["PO12345"]`)
			hammer(b, func() *http.Request {
				req, _ := http.NewRequest("GET", ts.URL+"/v2/tracking_requests/"+id, nil)
				req.Header.Set("Authorization", "Token "+ts.acme)
				return req
			}, 200)
		})
	}
}

func BenchmarkCreateTrackingRequest(b *testing.B) {
	var n atomic.Int64
	body := func() string {
		return createBody("bill_of_lading", fmt.Sprintf("BENCH%d", n.Add(1)), "MSCU", `"ref_numbers":["PO12345"]`)
	}
	ref := newTestServer(b, storetest.SQLite)
	created := ref.do(b, "POST", "/v2/tracking_requests", ref.acme, body()).want(b, 201).raw

	b.Run("baseline", func(b *testing.B) {
		srv := bare(201, created)
		defer srv.Close()
		hammer(b, func() *http.Request {
			req, _ := http.NewRequest("POST", srv.URL+"/v2/tracking_requests", strings.NewReader(body()))
			req.Header.Set("Authorization", "Token "+ref.acme)
			req.Header.Set("Content-Type", api.MediaType)
			return req
		}, 201)
	})
	for _, be := range storetest.Backends {
		b.Run(be.Name, func(b *testing.B) {
			if be.Name == "postgres" {
				storetest.RequirePostgres(b)
			}
			ts := newTestServer(b, be, production, withLimits(api.Limits{})) // limits lifted
			hammer(b, func() *http.Request {
				req, _ := http.NewRequest("POST", ts.URL+"/v2/tracking_requests", strings.NewReader(body()))
				req.Header.Set("Authorization", "Token "+ts.acme)
				req.Header.Set("Content-Type", api.MediaType)
				return req
			}, 201)
		})
	}
}
