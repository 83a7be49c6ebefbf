// Package storetest is the conformance suite every boxwatch.Store must pass, and the helpers that
// open a fresh database of each dialect for a test.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store"
)

// PostgresURLEnv names the variable holding the PostgreSQL server tests may use. Unset, the
// PostgreSQL tests are skipped; set, a server that cannot be reached fails them.
const PostgresURLEnv = "BOXWATCH_TEST_POSTGRES_URL"

// Backend opens a fresh, migrated, empty database of one dialect for a test.
type Backend struct {
	Name string
	// DSN returns the --db value of a new empty database, removed when the test ends.
	DSN func(t testing.TB) string
}

// Open returns a store on a new empty database, closed when the test ends.
func (b Backend) Open(t testing.TB) *store.DB {
	t.Helper()
	return b.OpenWith(t, store.Options{})
}

// OpenWith is Open with options.
func (b Backend) OpenWith(t testing.TB, o store.Options) *store.DB {
	t.Helper()
	db, err := store.OpenWith(context.Background(), b.DSN(t), o)
	if err != nil {
		t.Fatalf("open %s store: %v", b.Name, err)
	}
	t.Cleanup(func() {
		// Close waits for connections in use: one a transaction leaked would hang the test run.
		closed := make(chan struct{})
		go func() {
			db.Close()
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(cleanupTimeout):
			t.Errorf("closing the %s store took over %v: a connection was never released", b.Name, cleanupTimeout)
		}
	})
	return db
}

// cleanupTimeout bounds closing a test's store and dropping its database.
const cleanupTimeout = 10 * time.Second

// SQLite is a database file in the test's temporary directory.
var SQLite = Backend{Name: "sqlite", DSN: func(t testing.TB) string {
	return filepath.Join(t.TempDir(), "boxwatch.db")
}}

// Postgres is a new schema on the server named by BOXWATCH_TEST_POSTGRES_URL, dropped afterwards.
var Postgres = Backend{Name: "postgres", DSN: postgresDSN}

// Backends lists both dialects; run a test against each with ForEach.
var Backends = []Backend{SQLite, Postgres}

// ForEach runs fn as a parallel subtest per backend, skipping PostgreSQL when no server is
// configured. Each run gets its own database, so fn must share nothing else that it changes.
func ForEach(t *testing.T, fn func(t *testing.T, b Backend)) {
	forEach(t, true, fn)
}

// ForEachInTurn is ForEach with one backend at a time, for tests that watch the whole process
// (goroutines, memory) and must not see another run's.
func ForEachInTurn(t *testing.T, fn func(t *testing.T, b Backend)) {
	forEach(t, false, fn)
}

func forEach(t *testing.T, parallel bool, fn func(t *testing.T, b Backend)) {
	for _, b := range Backends {
		t.Run(b.Name, func(t *testing.T) {
			if parallel {
				t.Parallel()
			}
			if b.Name == "postgres" {
				RequirePostgres(t)
			}
			fn(t, b)
		})
	}
}

// RequirePostgres skips the test when BOXWATCH_TEST_POSTGRES_URL is unset, saying so.
func RequirePostgres(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresURLEnv)
	if base == "" {
		t.Skip(PostgresURLEnv + " is not set: PostgreSQL tests skipped")
	}
	return base
}

func postgresDSN(t testing.TB) string {
	t.Helper()
	base := RequirePostgres(t)
	ctx := context.Background()
	var b [6]byte
	rand.Read(b[:])
	schema := "bwtest_" + hex.EncodeToString(b[:])
	if err := store.CreatePostgresSchema(ctx, base, schema); err != nil {
		t.Fatalf("%s is set but: %v", PostgresURLEnv, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		if err := store.DropPostgresSchema(ctx, base, schema); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", PostgresURLEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
