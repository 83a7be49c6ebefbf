package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

func testTerminals(t *testing.T, db *store.DB) {
	save := func(locode, code, name string, when time.Time) boxwatch.Terminal {
		t.Helper()
		term := boxwatch.Terminal{ID: boxwatch.TerminalID(locode, code), LOCODE: locode, SMDGCode: code, Name: name, CreatedAt: when, UpdatedAt: when}
		mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.SaveTerminal(ctx, term) })
		return term
	}
	first := save("NLRTM", "ECTDE", "ECT Delta", base)
	got, err := db.Terminal(ctx, strings.ToUpper(first.ID))
	if err != nil || got != first {
		t.Fatalf("round trip: %+v, %v; want %+v", got, err, first)
	}
	// A report without a name keeps the known one; a new name replaces it.
	save("NLRTM", "ECTDE", "", at(time.Hour))
	if got, _ := db.Terminal(ctx, first.ID); got.Name != "ECT Delta" || !got.UpdatedAt.Equal(base) || !got.CreatedAt.Equal(base) {
		t.Errorf("after a nameless report: %+v", got)
	}
	save("NLRTM", "ECTDE", "ECT Delta Terminal", at(2*time.Hour))
	if got, _ := db.Terminal(ctx, first.ID); got.Name != "ECT Delta Terminal" || !got.UpdatedAt.Equal(at(2*time.Hour)) || !got.CreatedAt.Equal(base) {
		t.Errorf("after a rename: %+v", got)
	}
	// The same code at another port is another terminal.
	other := save("BEANR", "ECTDE", "", base)
	if other.ID == first.ID {
		t.Fatal("two ports' terminals share an id")
	}
	if got, err := db.Terminal(ctx, other.ID); err != nil || got.LOCODE != "BEANR" {
		t.Errorf("other port's terminal: %+v %v", got, err)
	}
	save("NLRTM", "APMT2", "", base)
	byPort, err := db.TerminalsAtPorts(ctx, []string{"NLRTM", "BEANR", "NLRTM", "XXXXX", ""})
	if err != nil || len(byPort) != 2 || len(byPort["NLRTM"]) != 2 || byPort["NLRTM"][0].SMDGCode != "APMT2" || len(byPort["BEANR"]) != 1 {
		t.Errorf("terminals at ports: %+v, %v", byPort, err)
	}
	if none, err := db.TerminalsAtPorts(ctx, nil); err != nil || len(none) != 0 {
		t.Errorf("no ports: %+v, %v", none, err)
	}
	for name, id := range map[string]string{"Unknown": boxwatch.TerminalID("NLRTM", "NOPE"), "Malformed": "ECTDE"} {
		if _, err := db.Terminal(ctx, id); !errors.Is(err, boxwatch.ErrNotFound) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A terminal event keeps one row per container and place; a new value replaces the old.
func testTransportEventValue(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	s := mustCreateShipment(t, db, a.ID, "MEDUFR030802", base)
	c := mustSaveContainer(t, db, newContainer(s, "MSCU1234565", base))
	const lfd = "container.pickup_lfd.changed"
	e := newTransportEvent(c, lfd, "NLRTM", at(96*time.Hour))
	e.DataSource, e.Value = "terminal", at(96*time.Hour).Format(time.RFC3339)
	mustInsertTransportEvent(t, db, e)
	if got, err := db.TransportEvent(ctx, a.ID, e.ID); err != nil || got.Value != e.Value || got.DataSource != "terminal" {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	later := at(120 * time.Hour)
	var got boxwatch.TransportEvent
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		var err error
		got, err = tx.SetTransportEventValue(ctx, c.ID, lfd, "NLRTM", later, later.Format(time.RFC3339))
		return err
	})
	if got.ID != e.ID || !got.Timestamp.Equal(later) || got.Value != later.Format(time.RFC3339) {
		t.Fatalf("after the change: %+v", got)
	}
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		_, err := tx.SetTransportEventValue(ctx, c.ID, lfd, "BEANR", later, "x")
		return err
	})
	if !errors.Is(err, boxwatch.ErrNotFound) {
		t.Errorf("no such event: %v", err)
	}
}

// A listed terminal (from the terminal list) is written whole and keeps its name whatever a
// carrier calls it; one is found by port and SMDG code, or by FIRMS code.
func testListedTerminals(t *testing.T, db *store.DB) {
	carrierSaw := boxwatch.Terminal{ID: boxwatch.TerminalID("USLAX", "APMT"), LOCODE: "USLAX", SMDGCode: "APMT", Name: "APM PIER 400",
		CreatedAt: base, UpdatedAt: base}
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.SaveTerminal(ctx, carrierSaw) })
	listed := boxwatch.Terminal{ID: carrierSaw.ID, LOCODE: "USLAX", SMDGCode: "APMT", FIRMSCode: "W185", Name: "APM Terminals Pier 400",
		Nickname: "APMT", Street: "2500 Navy Way", City: "Terminal Island", State: "California", StateAbbr: "CA", Zip: "90731",
		Country: "US", Listed: true, CreatedAt: at(time.Hour), UpdatedAt: at(time.Hour)}
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.SaveTerminal(ctx, listed) })
	want := listed
	want.CreatedAt = base
	if got, err := db.Terminal(ctx, listed.ID); err != nil || got != want {
		t.Fatalf("listed over a carrier's report:\n got %+v, %v\nwant %+v", got, err, want)
	}
	// A carrier's later name changes nothing of a listed terminal.
	carrierSaw.Name, carrierSaw.UpdatedAt = "APM TERMINALS LOS ANGELES", at(2*time.Hour)
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.SaveTerminal(ctx, carrierSaw) })
	if got, _ := db.Terminal(ctx, listed.ID); got != want {
		t.Errorf("a carrier renamed a listed terminal:\n got %+v\nwant %+v", got, want)
	}
	// Saving the same list again changes nothing, updated_at included.
	again := listed
	again.UpdatedAt = at(3 * time.Hour)
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.SaveTerminal(ctx, again) })
	if got, _ := db.Terminal(ctx, listed.ID); got != want {
		t.Errorf("the same list again:\n got %+v\nwant %+v", got, want)
	}
	firmsOnly := boxwatch.Terminal{LOCODE: "USLGB", FIRMSCode: "W183", Name: "Long Beach Container Terminal (Pier F)", Country: "US",
		Listed: true, CreatedAt: base, UpdatedAt: base}
	firmsOnly.ID = firmsOnly.Ref().ID()
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.SaveTerminal(ctx, firmsOnly) })

	for _, tt := range []struct {
		name string
		ref  boxwatch.TerminalRef
		want string
	}{
		{"BySMDG", boxwatch.TerminalRef{LOCODE: "uslax", SMDGCode: "apmt"}, listed.ID},
		{"ByFIRMS", boxwatch.TerminalRef{FIRMSCode: "W185"}, listed.ID},
		{"UnknownSMDGKnownFIRMS", boxwatch.TerminalRef{LOCODE: "USLAX", SMDGCode: "NOPE", FIRMSCode: "W183"}, firmsOnly.ID},
		{"FIRMSOnly", boxwatch.TerminalRef{LOCODE: "USLGB", FIRMSCode: "W183"}, firmsOnly.ID},
		{"ErrNotFound", boxwatch.TerminalRef{LOCODE: "USLAX", SMDGCode: "NOPE"}, ""},
		{"ErrNotFoundFIRMS", boxwatch.TerminalRef{FIRMSCode: "ZZZZ"}, ""},
		{"ErrNotFoundEmpty", boxwatch.TerminalRef{}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.TerminalByRef(ctx, tt.ref)
			if tt.want == "" {
				if !errors.Is(err, boxwatch.ErrNotFound) {
					t.Fatalf("got %+v, %v; want ErrNotFound", got, err)
				}
				return
			}
			if err != nil || got.ID != tt.want {
				t.Fatalf("got %+v, %v; want %s", got, err, tt.want)
			}
		})
	}
}

// Terminal checks come due per container, most overdue first, never for a shipment the user
// stopped, still for one whose carrier tracking ended; a container is locked and read whole by id.
func testDueTerminalChecks(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	s := mustCreateShipment(t, db, a.ID, "MEDUFR030802", base)
	other := mustCreateShipment(t, db, b.ID, "MEDUFR030803", base)
	stopped := mustCreateShipment(t, db, a.ID, "MEDUFR030804", base)
	stopped.StoppedAt, stopped.StoppedReason = base, boxwatch.StopCancelledByUser
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.UpdateShipment(ctx, stopped) })
	ended := mustCreateShipment(t, db, a.ID, "MEDUFR030805", base)
	ended.StoppedAt, ended.StoppedReason = base, boxwatch.StopPastArrivalWindow
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.UpdateShipment(ctx, ended) })
	now := at(time.Hour)
	due := func(s boxwatch.Shipment, number string, next time.Time) boxwatch.Container {
		c := newContainer(s, number, base)
		c.TerminalNextCheckAt = next
		return mustSaveContainer(t, db, c)
	}
	late := due(s, "MSCU1", now.Add(-time.Minute))
	latest := due(other, "MSCU2", now.Add(-time.Hour))
	onTime := due(s, "MSCU3", now)
	due(s, "MSCU4", now.Add(time.Second))
	due(s, "MSCU5", time.Time{})
	due(stopped, "MSCU6", now.Add(-2*time.Hour))
	afterTheLine := due(ended, "MSCU7", now.Add(-30*time.Minute))
	for _, tt := range []struct {
		name  string
		limit int
		want  []string
	}{
		{"MostOverdueFirst", 10, []string{latest.ID, afterTheLine.ID, late.ID, onTime.ID}},
		{"Limit", 2, []string{latest.ID, afterTheLine.ID}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := db.DueTerminalChecks(ctx, now, tt.limit); err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	t.Run("ContainerAndShipment", func(t *testing.T) {
		c, sh, err := db.ContainerAndShipment(ctx, strings.ToUpper(latest.ID))
		if err != nil || c.ID != latest.ID || c.Number != "MSCU2" || !c.TerminalNextCheckAt.Equal(latest.TerminalNextCheckAt) ||
			sh.ID != other.ID || sh.AccountID != b.ID || sh.BillOfLading != other.BillOfLading {
			t.Fatalf("got %+v, %+v, %v; want %s of shipment %s", c, sh, err, latest.ID, other.ID)
		}
		// It reads on a reader while a transaction holds the container.
		mustInTx(t, db, func(tx boxwatch.Tx) error {
			if _, err := tx.LockContainer(ctx, late.ID); err != nil {
				return err
			}
			c, sh, err := db.ContainerAndShipment(ctx, late.ID)
			if err != nil || c.ID != late.ID || sh.ID != s.ID {
				t.Errorf("under another's lock: %+v, %+v, %v", c, sh, err)
			}
			return nil
		})
		for _, id := range []string{boxwatch.NewID(now), "MSCU1", ""} {
			if _, _, err := db.ContainerAndShipment(ctx, id); !errors.Is(err, boxwatch.ErrNotFound) {
				t.Errorf("%q: %v, want ErrNotFound", id, err)
			}
		}
	})
	t.Run("LockContainer", func(t *testing.T) {
		var got boxwatch.Container
		mustInTx(t, db, func(tx boxwatch.Tx) error {
			var err error
			got, err = tx.LockContainer(ctx, strings.ToUpper(late.ID))
			return err
		})
		if !got.TerminalNextCheckAt.Equal(late.TerminalNextCheckAt) || got.ID != late.ID || got.Number != "MSCU1" {
			t.Fatalf("got %+v; want %+v", got, late)
		}
		for _, id := range []string{boxwatch.NewID(now), "MSCU1"} {
			err := db.InTx(ctx, func(tx boxwatch.Tx) error {
				_, err := tx.LockContainer(ctx, id)
				return err
			})
			if !errors.Is(err, boxwatch.ErrNotFound) {
				t.Errorf("%s: %v, want ErrNotFound", id, err)
			}
		}
	})
}
