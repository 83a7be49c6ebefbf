package client_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/infer"
	"github.com/boxwatch/boxwatch/journey"
	"github.com/boxwatch/boxwatch/journey/journeytest"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
	"github.com/boxwatch/boxwatch/webhook"
	"github.com/boxwatch/boxwatch/webhook/dispatch"
)

// server is the real API over a real store on loopback, with the tracking engine and webhook
// deliveries running on the simulated carriers.
type server struct {
	URL  string
	db   *store.DB
	key  string // of account "acme", with every feature
	keyB string // of account "globex"
}

func startServer(t *testing.T, b storetest.Backend) *server {
	t.Helper()
	db := b.Open(t)
	policy := webhook.Policy{AllowPrivate: true, Timeout: time.Second}
	cfg := api.Config{
		Store: db, Limiter: db.Limiter(), Carriers: data.Carriers(), Ports: data.Ports(),
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), Webhooks: policy,
		Limits: api.Limits{CreateTrackingRequest: 1 << 20, InferNumber: 1 << 20, Default: 1 << 20},
	}
	stack := trackingtest.Start(t, db, trackingtest.Options{Webhooks: policy, Renderer: jsonapi.NewNotificationRenderer(db, cfg.Carriers, cfg.Ports)})
	cfg.Tracker, cfg.Redeliverer = stack.Engine, stack.Deliveries
	if err := withEngines(&cfg, db); err != nil {
		t.Fatal(err)
	}
	h, err := api.NewHandler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &server{URL: srv.URL, db: db, key: mustKey(t, db, "acme", boxwatch.Features...), keyB: mustKey(t, db, "globex")}
}

// withEngines gives cfg what serve builds beside the store: number inference over the shipped
// lessor list, the journey engine over db and db's stored positions.
func withEngines(cfg *api.Config, db *store.DB) error {
	inferEngine, err := infer.New(cfg.Carriers, data.Lessors())
	if err != nil {
		return err
	}
	journeys, err := journey.New(journeytest.Config(db, nil))
	if err != nil {
		return err
	}
	cfg.Infer, cfg.Journey, cfg.Positions = inferEngine, journeys, db
	return nil
}

func mustKey(t testing.TB, db *store.DB, name string, features ...boxwatch.Feature) string {
	t.Helper()
	a := storetest.MustCreateAccount(t, db, name, features...)
	key, rec, err := boxwatch.NewAPIKey(a.ID, boxwatch.SystemClock())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateAPIKey(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	return key
}

// exampleServer starts the API on a temporary SQLite file for the runnable examples. Its engine
// queues lookups and runs none, so tracking requests stay pending and the output is fixed.
func exampleServer() (url, key string, stop func()) {
	dir, err := os.MkdirTemp("", "boxwatch-example")
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(dir, "example.db"))
	if err != nil {
		panic(err)
	}
	if err := tracking.Migrate(ctx, db); err != nil {
		panic(err)
	}
	engine, err := tracking.New(tracking.Config{DB: db, Registry: data.Carriers()})
	if err != nil {
		panic(err)
	}
	deliveries, err := dispatch.New(dispatch.Config{Store: db, Work: db})
	if err != nil {
		panic(err)
	}
	cfg := api.Config{Store: db, Tracker: engine, Redeliverer: deliveries, Limiter: db.Limiter(),
		Carriers: data.Carriers(), Ports: data.Ports(), Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))}
	if err := withEngines(&cfg, db); err != nil {
		panic(err)
	}
	h, err := api.NewHandler(cfg)
	if err != nil {
		panic(err)
	}
	now := boxwatch.SystemClock()
	acct := boxwatch.Account{ID: boxwatch.NewID(now), Name: "example", Features: boxwatch.Features, CreatedAt: now}
	if err := db.CreateAccount(ctx, acct); err != nil {
		panic(err)
	}
	key, rec, err := boxwatch.NewAPIKey(acct.ID, now)
	if err != nil {
		panic(err)
	}
	if err := db.CreateAPIKey(ctx, rec); err != nil {
		panic(err)
	}
	srv := httptest.NewServer(h)
	return srv.URL, key, func() { srv.Close(); db.Close(); os.RemoveAll(dir) }
}
