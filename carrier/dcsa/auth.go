package dcsa

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

// OAuth2 is the client-credentials grant (RFC 6749 §4.4) a carrier may require.
type OAuth2 struct {
	TokenURL     string
	ClientID     string
	ClientSecret string
	// Scope is space-separated; empty asks for the client's default scope.
	Scope string
	// CredentialsInBody sends the client id and secret as form fields instead of HTTP Basic
	// authentication; token endpoints accept one or the other.
	CredentialsInBody bool
}

// maxTokenBytes bounds a token response.
const maxTokenBytes = 64 << 10

// tokenSource fetches an access token and keeps it until shortly before it expires or the
// carrier rejects it.
type tokenSource struct {
	cfg    OAuth2
	client *Client
	// lock is held while the token is read or fetched: one fetch at a time, and waiting for it
	// respects the caller's context.
	lock   chan struct{}
	token  string
	expiry time.Time // zero: until rejected
}

func newTokenSource(cfg OAuth2, c *Client) (*tokenSource, error) {
	if _, err := parseHTTPURL(cfg.TokenURL); err != nil {
		return nil, fmt.Errorf("dcsa: OAuth2 token URL: %w", err)
	}
	if cfg.ClientID == "" || cfg.ClientSecret == "" {
		return nil, errors.New("dcsa: OAuth2 needs a client id and a client secret")
	}
	return &tokenSource{cfg: cfg, client: c, lock: make(chan struct{}, 1)}, nil
}

// get returns the cached token, or a new one when there is none, it has expired or it is the
// token the carrier just rejected.
func (s *tokenSource) get(ctx context.Context, rejected string) (string, error) {
	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return "", s.client.transportError(ctx, ctx.Err())
	}
	defer func() { <-s.lock }()
	now := s.client.now()
	if s.token != "" && s.token != rejected && (s.expiry.IsZero() || now.Before(s.expiry)) {
		return s.token, nil
	}
	s.token = ""
	token, lifetime, err := s.fetch(ctx)
	if err != nil {
		return "", err
	}
	s.token, s.expiry = token, time.Time{}
	if lifetime > 0 {
		s.expiry = now.Add(lifetime - min(time.Minute, lifetime/4))
	}
	return token, nil
}

// fetch asks the token endpoint for a token. A refused client is a permanent
// shipping_line_unreachable: the credentials are wrong until someone changes them.
func (s *tokenSource) fetch(ctx context.Context) (token string, lifetime time.Duration, err error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	if s.cfg.Scope != "" {
		form.Set("scope", s.cfg.Scope)
	}
	if s.cfg.CredentialsInBody {
		form.Set("client_id", s.cfg.ClientID)
		form.Set("client_secret", s.cfg.ClientSecret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", 0, unrecognized(err)
	}
	s.client.setHeaders(req)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if !s.cfg.CredentialsInBody {
		req.SetBasicAuth(url.QueryEscape(s.cfg.ClientID), url.QueryEscape(s.cfg.ClientSecret))
	}
	resp, err := s.client.http.Do(req)
	if err != nil {
		return "", 0, s.client.transportError(ctx, err)
	}
	defer resp.Body.Close()
	switch code := resp.StatusCode; {
	case code == http.StatusBadRequest || code == http.StatusUnauthorized || code == http.StatusForbidden:
		return "", 0, &boxwatch.CarrierError{Reason: boxwatch.ReasonUnreachable, Err: describe(resp, "token")}
	case code != http.StatusOK:
		return "", 0, s.client.statusError(resp, "token")
	}
	body, err := s.client.readBody(ctx, resp.Body, maxTokenBytes)
	if err != nil {
		return "", 0, err
	}
	var answer struct {
		AccessToken string          `json:"access_token"`
		TokenType   string          `json:"token_type"`
		ExpiresIn   json.RawMessage `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return "", 0, unrecognized(fmt.Errorf("token response: %w", err))
	}
	if answer.AccessToken == "" || strings.ContainsAny(answer.AccessToken, "\r\n") {
		return "", 0, unrecognized(errors.New("token response has no usable access_token"))
	}
	if answer.TokenType != "" && !strings.EqualFold(answer.TokenType, "bearer") {
		return "", 0, unrecognized(fmt.Errorf("token type %q is not bearer", answer.TokenType))
	}
	return answer.AccessToken, expiresIn(answer.ExpiresIn), nil
}

// expiresIn reads expires_in, which some servers send as a string; zero when absent or unreadable.
func expiresIn(raw json.RawMessage) time.Duration {
	secs, err := strconv.ParseUint(string(bytes.Trim(raw, `"`)), 10, 32)
	if err != nil {
		return 0
	}
	return time.Duration(secs) * time.Second
}
