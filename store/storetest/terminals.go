package storetest

import (
	"errors"
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
