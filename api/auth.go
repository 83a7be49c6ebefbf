package api

import (
	"net/http"
	"strings"

	"github.com/boxwatch/boxwatch"
)

// authenticate checks "Authorization: Token <key>", the reference API's scheme, or "Bearer <key>",
// which many HTTP clients send by habit: both carry the same key. The key is compared by hash in
// constant time and never logged.
func (s *server) authenticate(r *http.Request) (boxwatch.Account, error) {
	scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Token") && !strings.EqualFold(scheme, "Bearer") {
		return boxwatch.Account{}, boxwatch.ErrUnauthorized
	}
	key = strings.TrimSpace(key)
	id, ok := boxwatch.ParseAPIKey(key)
	if !ok {
		return boxwatch.Account{}, boxwatch.ErrUnauthorized
	}
	rec, acct, err := s.cfg.Store.APIKey(r.Context(), id) // cached by the store: see store.KeyCacheTTL
	if err != nil {
		if boxwatch.IsKind(err, boxwatch.KindNotFound) {
			return boxwatch.Account{}, boxwatch.ErrUnauthorized
		}
		return boxwatch.Account{}, err
	}
	if !rec.Matches(key) {
		return boxwatch.Account{}, boxwatch.ErrUnauthorized
	}
	return acct, nil
}

// authenticated serves h to callers with a valid API key, and answers the others as every
// authenticated route does. It takes no rate-limit token: what h does in the API's name is
// charged there.
func (s *server) authenticated(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := requestInfoOf(r)
		ri.route = r.URL.Path
		a, err := s.authenticate(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		ri.account = a
		h.ServeHTTP(w, r)
	})
}
