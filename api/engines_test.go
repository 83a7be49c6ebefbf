package api_test

import (
	"testing"

	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/infer"
	"github.com/boxwatch/boxwatch/journey/journeytest"
	"github.com/boxwatch/boxwatch/store"
)

// withEngines gives cfg what cmd/boxwatch builds and passes to the API, where no option did: number
// inference over the shipped lessor list, the journey engine over db with the API's clock, and
// db's stored positions.
func withEngines(t testing.TB, cfg *api.Config, db *store.DB) {
	t.Helper()
	if cfg.Infer == nil {
		engine, err := infer.New(cfg.Carriers, data.Lessors())
		if err != nil {
			t.Fatal(err)
		}
		cfg.Infer = engine
	}
	if cfg.Journey == nil {
		cfg.Journey = journeytest.New(t, db, cfg.Clock)
	}
	if cfg.Positions == nil {
		cfg.Positions = db
	}
}
