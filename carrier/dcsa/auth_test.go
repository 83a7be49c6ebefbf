package dcsa

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
)

// tokenServer is an OAuth2 token endpoint on loopback that grants client "boxwatch" with secret
// "s3cret" tokens named tok-1, tok-2, …
type tokenServer struct {
	srv *httptest.Server
	// inBody expects the credentials as form fields rather than HTTP Basic.
	inBody    bool
	expiresIn any
	// respond, when set, answers instead of granting.
	respond func(w http.ResponseWriter)
	delay   time.Duration

	issued atomic.Int32
	mu     sync.Mutex
	forms  []http.Header // headers of each token request
}

func (s *tokenServer) start(t *testing.T) *tokenServer {
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.Method != http.MethodPost || r.PostForm.Get("grant_type") != "client_credentials" {
			http.Error(w, `{"error": "invalid_request"}`, http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.forms = append(s.forms, r.Header.Clone())
		s.mu.Unlock()
		if s.respond != nil {
			s.respond(w)
			return
		}
		id, secret, basic := r.BasicAuth()
		if !s.inBody && (!basic || id != "boxwatch" || secret != "s3cret") ||
			s.inBody && (basic || r.PostForm.Get("client_id") != "boxwatch" || r.PostForm.Get("client_secret") != "s3cret") {
			http.Error(w, `{"error": "invalid_client"}`, http.StatusUnauthorized)
			return
		}
		time.Sleep(s.delay)
		n := s.issued.Add(1)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("tok-%d", n), "token_type": "Bearer", "expires_in": s.expiresIn, "scope": r.PostForm.Get("scope")})
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *tokenServer) oauth2() *OAuth2 {
	return &OAuth2{TokenURL: s.srv.URL + "/oauth/token", ClientID: "boxwatch", ClientSecret: "s3cret", CredentialsInBody: s.inBody}
}

// authorisingCarrier serves the journey to requests bearing an accepted token.
func authorisingCarrier(t *testing.T, accepted func(token string) bool) *carrier {
	c := &carrier{pages: [][]byte{readTestdata(t, "journey.json")}}
	c.respond = func(w http.ResponseWriter, r *http.Request) {
		var token string
		if _, err := fmt.Sscanf(r.Header.Get("Authorization"), "Bearer %s", &token); err != nil || !accepted(token) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		c.servePages(w, r)
	}
	return c.start(t)
}

func anyToken(string) bool { return true }

func TestOAuth2(t *testing.T) {
	container := ref(boxwatch.RequestContainer, "MSKU1234565")

	t.Run("TokenCachedAcrossLookups", func(t *testing.T) {
		tokens := (&tokenServer{expiresIn: 3600}).start(t)
		c := authorisingCarrier(t, anyToken)
		client := mustNew(t, Config{BaseURL: c.base(), OAuth2: tokens.oauth2()})
		for range 3 {
			if _, err := client.Lookup(t.Context(), container); err != nil {
				t.Fatal(err)
			}
		}
		if n := tokens.issued.Load(); n != 1 {
			t.Errorf("%d tokens fetched for 3 lookups, want 1", n)
		}
	})

	t.Run("OneTokenForConcurrentLookups", func(t *testing.T) {
		tokens := (&tokenServer{expiresIn: 3600, delay: 50 * time.Millisecond}).start(t)
		c := authorisingCarrier(t, anyToken)
		client := mustNew(t, Config{BaseURL: c.base(), OAuth2: tokens.oauth2()})
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if _, err := client.Lookup(t.Context(), container); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if n := tokens.issued.Load(); n != 1 {
			t.Errorf("%d tokens fetched for 8 concurrent lookups, want 1", n)
		}
	})

	t.Run("TokenFetchedAgainShortlyBeforeExpiry", func(t *testing.T) {
		tokens := (&tokenServer{expiresIn: "3600"}).start(t)
		c := authorisingCarrier(t, anyToken)
		now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
		client := mustNew(t, Config{BaseURL: c.base(), OAuth2: tokens.oauth2(), Now: func() time.Time { return now }})
		for _, step := range []struct {
			advance time.Duration
			issued  int32
		}{{0, 1}, {30 * time.Minute, 1}, {29 * time.Minute, 2}, {time.Minute, 2}} {
			now = now.Add(step.advance)
			if _, err := client.Lookup(t.Context(), container); err != nil {
				t.Fatal(err)
			}
			if n := tokens.issued.Load(); n != step.issued {
				t.Fatalf("after %v more: %d tokens fetched, want %d", step.advance, n, step.issued)
			}
		}
	})

	t.Run("TokenFetchedAgainOnceOn401", func(t *testing.T) {
		tokens := (&tokenServer{}).start(t)
		c := authorisingCarrier(t, func(token string) bool { return token != "tok-1" })
		client := mustNew(t, Config{BaseURL: c.base(), OAuth2: tokens.oauth2()})
		if _, err := client.Lookup(t.Context(), container); err != nil {
			t.Fatal(err)
		}
		if n, m := tokens.issued.Load(), len(c.seen()); n != 2 || m != 2 {
			t.Errorf("%d tokens, %d requests, want 2 and 2", n, m)
		}
		if _, err := client.Lookup(t.Context(), container); err != nil {
			t.Fatal(err)
		}
		if n := tokens.issued.Load(); n != 2 {
			t.Errorf("%d tokens after a second lookup, want the new token kept", n)
		}
	})

	t.Run("UnreachableWhenRejectedAfterRefresh", func(t *testing.T) {
		tokens := (&tokenServer{}).start(t)
		c := authorisingCarrier(t, func(string) bool { return false })
		_, err := mustNew(t, Config{BaseURL: c.base(), OAuth2: tokens.oauth2()}).Lookup(t.Context(), container)
		wantCarrierError(t, err, boxwatch.ReasonUnreachable, false)
		if n, m := tokens.issued.Load(), len(c.seen()); n != 2 || m != 2 {
			t.Errorf("%d tokens, %d requests, want 2 and 2", n, m)
		}
	})

	t.Run("CredentialsInBodyWithScope", func(t *testing.T) {
		tokens := (&tokenServer{inBody: true}).start(t)
		c := authorisingCarrier(t, anyToken)
		o := tokens.oauth2()
		o.Scope = "tnt:read"
		if _, err := mustNew(t, Config{BaseURL: c.base(), OAuth2: o}).Lookup(t.Context(), container); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("APIKeyHeadersSentToTokenEndpointToo", func(t *testing.T) {
		tokens := (&tokenServer{}).start(t)
		c := authorisingCarrier(t, anyToken)
		cfg := Config{BaseURL: c.base(), OAuth2: tokens.oauth2(), Headers: map[string]string{"Consumer-Key": "ck"}}
		if _, err := mustNew(t, cfg).Lookup(t.Context(), container); err != nil {
			t.Fatal(err)
		}
		tokens.mu.Lock()
		got := tokens.forms[0].Get("Consumer-Key")
		tokens.mu.Unlock()
		if got != "ck" {
			t.Errorf("token request Consumer-Key = %q", got)
		}
		if got := c.seen()[0].Header.Get("Consumer-Key"); got != "ck" {
			t.Errorf("events request Consumer-Key = %q", got)
		}
	})

	for _, tc := range []struct {
		name       string
		respond    func(w http.ResponseWriter)
		reason     string
		temporary  bool
		retryAfter time.Duration
	}{
		{name: "UnreachableWhenClientRefused", reason: boxwatch.ReasonUnreachable, respond: func(w http.ResponseWriter) {
			http.Error(w, `{"error": "invalid_client"}`, http.StatusUnauthorized)
		}},
		{name: "TemporaryWhenTokenEndpointDown", reason: boxwatch.ReasonUnreachable, temporary: true, retryAfter: 30 * time.Second, respond: func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusServiceUnavailable)
		}},
		{name: "UnrecognizedWhenTokenMalformed", reason: boxwatch.ReasonUnrecognizedResponse, respond: func(w http.ResponseWriter) {
			fmt.Fprint(w, `{"access_token": 12`)
		}},
		{name: "UnrecognizedWhenNoAccessToken", reason: boxwatch.ReasonUnrecognizedResponse, respond: func(w http.ResponseWriter) {
			fmt.Fprint(w, `{"token_type": "bearer"}`)
		}},
		{name: "UnrecognizedWhenNotBearer", reason: boxwatch.ReasonUnrecognizedResponse, respond: func(w http.ResponseWriter) {
			fmt.Fprint(w, `{"access_token": "t", "token_type": "mac"}`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tokens := (&tokenServer{respond: tc.respond}).start(t)
			c := authorisingCarrier(t, anyToken)
			_, err := mustNew(t, Config{BaseURL: c.base(), OAuth2: tokens.oauth2()}).Lookup(t.Context(), container)
			ce := wantCarrierError(t, err, tc.reason, tc.temporary)
			if ce.RetryAfter != tc.retryAfter {
				t.Errorf("RetryAfter = %v, want %v", ce.RetryAfter, tc.retryAfter)
			}
			if n := len(c.seen()); n != 0 {
				t.Errorf("%d events requests without a token", n)
			}
		})
	}
}
