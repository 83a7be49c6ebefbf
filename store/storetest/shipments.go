package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

func testShipmentRoundTrip(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	s := mustCreateShipment(t, db, a.ID, "MEDUFR030802", base)
	mustReadBack(t, db, s)

	s.Route = []boxwatch.RouteStop{{Sequence: 1, LOCODE: "NLRTM", Role: boxwatch.RolePOL}, {Sequence: 2, LOCODE: "SGSIN", Role: boxwatch.RolePOD}}
	s.Tags, s.RefNumbers, s.Booking = []string{"cheese"}, []string{"PO-1"}, "BK1"
	s.LastAttemptedAt, s.LastSucceededAt, s.NextRefreshAt, s.UpdatedAt = at(time.Minute), at(time.Minute), at(2*time.Hour), at(time.Minute)
	s.Snapshot = boxwatch.CarrierShipment{BillOfLading: s.BillOfLading, Booking: "BK1", Calls: []boxwatch.TransportCall{
		{LOCODE: "NLRTM", Vessel: &boxwatch.VesselRef{IMO: "9000001", Name: "ALPHA"}}, {LOCODE: "SGSIN"}}}
	tests := []struct {
		name string
		lock func(tx boxwatch.Tx) (boxwatch.Shipment, error)
	}{
		{"LockShipment", func(tx boxwatch.Tx) (boxwatch.Shipment, error) { return tx.LockShipment(ctx, s.ID) }},
		{"LockAccountShipment", func(tx boxwatch.Tx) (boxwatch.Shipment, error) { return tx.LockAccountShipment(ctx, a.ID, s.ID) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustInTx(t, db, func(tx boxwatch.Tx) error {
				locked, err := tt.lock(tx)
				if err != nil {
					return err
				}
				if locked.ID != s.ID || locked.AccountID != a.ID {
					return fmt.Errorf("locked %s of %s, want %s of %s", locked.ID, locked.AccountID, s.ID, a.ID)
				}
				return tx.UpdateShipment(ctx, s)
			})
			mustReadBack(t, db, s)
		})
	}

	t.Run("UpdateErrNotFound", func(t *testing.T) {
		err := db.InTx(ctx, func(tx boxwatch.Tx) error {
			other := s
			other.ID = boxwatch.NewID(base)
			return tx.UpdateShipment(ctx, other)
		})
		wantNotFound(t, "update of an unknown shipment", err)
	})
	t.Run("LockErrNotFound", func(t *testing.T) {
		for name, id := range map[string]string{"Unknown": boxwatch.NewID(base), "Malformed": "x"} {
			err := db.InTx(ctx, func(tx boxwatch.Tx) error { _, err := tx.LockShipment(ctx, id); return err })
			wantNotFound(t, "LockShipment "+name, err)
		}
	})
	t.Run("LockAccountShipmentOtherAccount", func(t *testing.T) {
		for name, id := range foreignIDs(s.ID) {
			err := db.InTx(ctx, func(tx boxwatch.Tx) error { _, err := tx.LockAccountShipment(ctx, b.ID, id); return err })
			wantNotFound(t, "LockAccountShipment "+name, err)
		}
	})
}

func testShipmentScoping(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	s := mustCreateShipment(t, db, a.ID, "MEDUFR030802", base)
	c := mustSaveContainer(t, db, newContainer(s, "MSCU1234565", base))
	e := mustInsertTransportEvent(t, db, newTransportEvent(c, "container.transport.vessel_departed", "NLRTM", base))
	page := boxwatch.Page{Number: 1, Size: 10}

	// The owner sees each record; the other account sees nothing, whatever the id.
	if _, err := db.Shipment(ctx, a.ID, s.ID); err != nil {
		t.Fatalf("owner's shipment: %v", err)
	}
	if _, err := db.Container(ctx, a.ID, c.ID); err != nil {
		t.Fatalf("owner's container: %v", err)
	}
	if _, err := db.TransportEvent(ctx, a.ID, e.ID); err != nil {
		t.Fatalf("owner's transport event: %v", err)
	}
	ids := map[string]map[string]string{"shipment": foreignIDs(s.ID), "container": foreignIDs(c.ID), "event": foreignIDs(e.ID)}
	for _, name := range []string{"OtherAccount", "Unknown", "Malformed"} {
		t.Run(name, func(t *testing.T) {
			_, err := db.Shipment(ctx, b.ID, ids["shipment"][name])
			wantNotFound(t, "Shipment", err)
			_, err = db.Container(ctx, b.ID, ids["container"][name])
			wantNotFound(t, "Container", err)
			_, _, err = db.TransportEvents(ctx, b.ID, ids["container"][name], page)
			wantNotFound(t, "TransportEvents", err)
			_, err = db.TransportEvent(ctx, b.ID, ids["event"][name])
			wantNotFound(t, "TransportEvent", err)
			if list, err := db.ShipmentContainers(ctx, b.ID, ids["shipment"][name]); err != nil || len(list) != 0 {
				t.Errorf("ShipmentContainers = %d containers, err %v; want none", len(list), err)
			}
		})
	}
	if list, total, err := db.Shipments(ctx, b.ID, boxwatch.ShipmentFilter{}, page); err != nil || total != (boxwatch.Total{}) || len(list) != 0 {
		t.Errorf("other account's shipments: %d, total %+v, err %v; want none", len(list), total, err)
	}
	if list, total, err := db.Containers(ctx, b.ID, boxwatch.ContainerFilter{}, page); err != nil || total != (boxwatch.Total{}) || len(list) != 0 {
		t.Errorf("other account's containers: %d, total %+v, err %v; want none", len(list), total, err)
	}
}

func shipmentNumbers(list []boxwatch.Shipment) []string {
	return fieldOf(list, func(s boxwatch.Shipment) string { return s.BillOfLading })
}

func testShipmentList(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	for i := range 5 {
		mustCreateShipment(t, db, a.ID, fmt.Sprintf("BL%d", i), at(time.Duration(i)*time.Minute))
	}
	stopped := mustCreateShipment(t, db, a.ID, "BLSTOP", at(10*time.Minute))
	stopped.StoppedAt, stopped.StoppedReason, stopped.NextRefreshAt = at(11*time.Minute), boxwatch.StopCancelledByUser, time.Time{}
	stopped.Booking = "BK9"
	stopped.RefNumbers = []string{"PO-77_A"}
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.UpdateShipment(ctx, stopped) })
	mustSaveContainer(t, db, newContainer(stopped, "MSKU1234565", at(12*time.Minute)))
	yes, no := true, false

	tests := []struct {
		name      string
		f         boxwatch.ShipmentFilter
		p         boxwatch.Page
		want      []string
		wantTotal int
	}{
		{"FirstPage", boxwatch.ShipmentFilter{}, boxwatch.Page{Number: 1, Size: 2}, []string{"BLSTOP", "BL4"}, 6},
		{"SecondPage", boxwatch.ShipmentFilter{}, boxwatch.Page{Number: 2, Size: 2}, []string{"BL3", "BL2"}, 6},
		{"PastTheEnd", boxwatch.ShipmentFilter{}, boxwatch.Page{Number: 4, Size: 2}, []string{}, 6},
		{"Stopped", boxwatch.ShipmentFilter{TrackingStopped: &yes}, boxwatch.Page{Number: 1, Size: 10}, []string{"BLSTOP"}, 1},
		{"NotStopped", boxwatch.ShipmentFilter{TrackingStopped: &no}, boxwatch.Page{Number: 1, Size: 2}, []string{"BL4", "BL3"}, 5},
		{"NumberBillOfLading", boxwatch.ShipmentFilter{Number: "BL2"}, boxwatch.Page{Number: 1, Size: 10}, []string{"BL2"}, 1},
		{"NumberBooking", boxwatch.ShipmentFilter{Number: "BK9"}, boxwatch.Page{Number: 1, Size: 10}, []string{"BLSTOP"}, 1},
		{"NoMatch", boxwatch.ShipmentFilter{Number: "BL", TrackingStopped: &no}, boxwatch.Page{Number: 1, Size: 10}, []string{}, 0},
		{"QueryBillPart", boxwatch.ShipmentFilter{Query: "l3"}, boxwatch.Page{Number: 1, Size: 10}, []string{"BL3"}, 1},
		{"QueryRefNumber", boxwatch.ShipmentFilter{Query: "po-77_a"}, boxwatch.Page{Number: 1, Size: 10}, []string{"BLSTOP"}, 1},
		{"QueryContainerNumber", boxwatch.ShipmentFilter{Query: "MSKU 123456-5"}, boxwatch.Page{Number: 1, Size: 10}, []string{"BLSTOP"}, 1},
		{"QueryContainerPart", boxwatch.ShipmentFilter{Query: "msku1234"}, boxwatch.Page{Number: 1, Size: 10}, []string{"BLSTOP"}, 1},
		{"QueryWildcardsAreText", boxwatch.ShipmentFilter{Query: "%"}, boxwatch.Page{Number: 1, Size: 10}, []string{}, 0},
		{"QueryUnderscoreIsText", boxwatch.ShipmentFilter{Query: "B_"}, boxwatch.Page{Number: 1, Size: 10}, []string{}, 0},
		{"QueryAndStopped", boxwatch.ShipmentFilter{Query: "BL", TrackingStopped: &yes}, boxwatch.Page{Number: 1, Size: 10}, []string{"BLSTOP"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, total, err := db.Shipments(ctx, a.ID, tt.f, tt.p)
			if err != nil || total != (boxwatch.Total{N: tt.wantTotal}) || !slices.Equal(shipmentNumbers(list), tt.want) {
				t.Fatalf("got %v total %+v err %v; want %v total %d", shipmentNumbers(list), total, err, tt.want, tt.wantTotal)
			}
		})
	}
}

func testShipmentLabels(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	s := mustCreateShipment(t, db, a.ID, "MEDUFR030802", base)
	later := at(time.Hour)
	got, err := db.SetShipmentLabels(ctx, a.ID, s.ID, []string{"PO-1"}, nil, later)
	if err != nil || !slices.Equal(got.RefNumbers, []string{"PO-1"}) || len(got.Tags) != 0 || !got.UpdatedAt.Equal(later) {
		t.Fatalf("refs only: %+v, %v", got, err)
	}
	got, err = db.SetShipmentLabels(ctx, a.ID, strings.ToUpper(s.ID), nil, []string{"hot", "reefer"}, later)
	if err != nil || !slices.Equal(got.RefNumbers, []string{"PO-1"}) || !slices.Equal(got.Tags, []string{"hot", "reefer"}) {
		t.Fatalf("tags only: %+v, %v", got, err)
	}
	got, err = db.SetShipmentLabels(ctx, a.ID, s.ID, []string{}, []string{}, later)
	if err != nil || got.RefNumbers == nil || len(got.RefNumbers) != 0 || got.Tags == nil || len(got.Tags) != 0 {
		t.Fatalf("cleared: %+v, %v", got, err)
	}
	if read, err := db.Shipment(ctx, a.ID, s.ID); err != nil || len(read.RefNumbers) != 0 || read.BillOfLading != s.BillOfLading {
		t.Fatalf("read back: %+v, %v", read, err)
	}
	for name, id := range map[string]string{"OtherAccount": s.ID, "Unknown": boxwatch.NewID(base), "Malformed": "x'; DROP TABLE shipments"} {
		acct := a.ID
		if name == "OtherAccount" {
			acct = b.ID
		}
		if _, err := db.SetShipmentLabels(ctx, acct, id, []string{"x"}, nil, later); !errors.Is(err, boxwatch.ErrNotFound) {
			t.Errorf("%s: err = %v, want ErrNotFound", name, err)
		}
	}
}

func testContainerRefNumbers(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	s := mustCreateShipment(t, db, a.ID, "MEDUFR030802", base)
	c := mustSaveContainer(t, db, newContainer(s, "MSCU1", base))
	sibling := mustSaveContainer(t, db, newContainer(s, "MSCU3", base))
	later := at(time.Hour)
	got, err := db.SetContainerRefNumbers(ctx, a.ID, strings.ToUpper(c.ID), []string{"PO-1", "Ünïcode 'quoted'"}, later)
	if err != nil || got.ID != c.ID || !slices.Equal(got.RefNumbers, []string{"PO-1", "Ünïcode 'quoted'"}) || !got.UpdatedAt.Equal(later) || got.Number != "MSCU1" {
		t.Fatalf("set: %+v, %v", got, err)
	}
	if read, err := db.Container(ctx, a.ID, c.ID); err != nil || !reflect.DeepEqual(read, got) {
		t.Fatalf("read back: %+v, %v; want %+v", read, err, got)
	}
	if read, err := db.Container(ctx, a.ID, sibling.ID); err != nil || read.RefNumbers != nil {
		t.Fatalf("sibling changed: %+v, %v", read.RefNumbers, err)
	}

	// A carrier's refresh saves the container again without references: the account's stay.
	c.CurrentStatus, c.UpdatedAt = boxwatch.ContainerOnShip, at(2*time.Hour)
	mustSaveContainer(t, db, c)
	if read, err := db.Container(ctx, a.ID, c.ID); err != nil || !slices.Equal(read.RefNumbers, []string{"PO-1", "Ünïcode 'quoted'"}) || read.CurrentStatus != boxwatch.ContainerOnShip {
		t.Fatalf("after refresh: %+v, %v", read, err)
	}

	got, err = db.SetContainerRefNumbers(ctx, a.ID, c.ID, []string{}, later)
	if err != nil || len(got.RefNumbers) != 0 {
		t.Fatalf("cleared: %+v, %v", got, err)
	}
	if read, err := db.Container(ctx, a.ID, c.ID); err != nil || len(read.RefNumbers) != 0 {
		t.Fatalf("read back cleared: %+v, %v", read.RefNumbers, err)
	}

	for name, id := range map[string]string{"OtherAccount": c.ID, "Unknown": boxwatch.NewID(base), "Malformed": "x'; DROP TABLE containers"} {
		acct := a.ID
		if name == "OtherAccount" {
			acct = b.ID
		}
		if _, err := db.SetContainerRefNumbers(ctx, acct, id, []string{"x"}, later); !errors.Is(err, boxwatch.ErrNotFound) {
			t.Errorf("%s: err = %v, want ErrNotFound", name, err)
		}
	}
	if read, err := db.Container(ctx, a.ID, c.ID); err != nil || len(read.RefNumbers) != 0 {
		t.Fatalf("another account's update reached the container: %+v, %v", read.RefNumbers, err)
	}
}

func testDueShipments(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	due := func(account, number string, next time.Time) string {
		s := mustCreateShipment(t, db, account, number, base)
		s.NextRefreshAt = next
		mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.UpdateShipment(ctx, s) })
		return s.ID
	}
	now := at(time.Hour)
	late := due(a.ID, "LATE", now.Add(-time.Minute))
	latest := due(b.ID, "LATEST", now.Add(-time.Hour)) // every account's shipments are work
	onTime := due(a.ID, "ONTIME", now)
	due(a.ID, "FUTURE", now.Add(time.Second))
	due(a.ID, "NEVER", time.Time{})
	stopped := mustCreateShipment(t, db, a.ID, "STOPPED", base)
	stopped.StoppedAt, stopped.StoppedReason, stopped.NextRefreshAt = base, boxwatch.StopPastArrivalWindow, now.Add(-2*time.Hour)
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.UpdateShipment(ctx, stopped) })

	tests := []struct {
		name  string
		limit int
		want  []string
	}{
		{"MostOverdueFirst", 10, []string{latest, late, onTime}},
		{"Limit", 2, []string{latest, late}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.DueShipments(ctx, now, tt.limit)
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("DueShipments = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	if got, err := db.DueShipments(ctx, now.Add(-2*time.Hour), 10); err != nil || len(got) != 0 {
		t.Fatalf("nothing tracked is due two hours earlier, yet %v (err %v)", got, err)
	}
}

func containerNumbers(list []boxwatch.Container) []string {
	return fieldOf(list, func(c boxwatch.Container) string { return c.Number })
}

func testContainers(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	s := mustCreateShipment(t, db, a.ID, "MEDUFR030802", base)
	other := mustCreateShipment(t, db, a.ID, "MEDUFR030803", base)
	// Saved newest number first, so that "by number" and "newest first" disagree with insertion.
	c3 := mustSaveContainer(t, db, newContainer(s, "MSCU3", at(time.Second)))
	c1 := mustSaveContainer(t, db, newContainer(s, "MSCU1", at(2*time.Second)))
	mustSaveContainer(t, db, newContainer(other, "MSCU2", at(3*time.Second)))

	yes := true
	c1.ISOCode, c1.SealNumber, c1.CurrentStatus, c1.AvailableForPickup = "45G1", "SEAL1", boxwatch.ContainerOnShip, &yes
	c1.LoadedAt, c1.DepartedAt, c1.UpdatedAt = at(time.Hour), at(2*time.Hour), at(2*time.Hour)
	c1.PickupLFD, c1.TerminalCheckedAt, c1.LocationAtTerminal = at(96*time.Hour), at(3*time.Hour), "Block A3"
	c1.Holds = []boxwatch.TerminalHold{{Name: "customs", Status: "hold", Description: "Exam ordered"}}
	c1.Fees = []boxwatch.TerminalFee{{Type: "demurrage", Amount: 150.5, Currency: "USD"}}
	c1.PickupLFDTerminal, c1.PickupLFDLine, c1.PickupAppointmentAt = at(96*time.Hour), at(120*time.Hour), at(80*time.Hour)
	c1.PODTerminalID, c1.TerminalFullOutAt, c1.TerminalEmptyInAt = boxwatch.TerminalID("USLAX", "APMT"), at(81*time.Hour), at(150*time.Hour)
	c1.TerminalNextCheckAt, c1.TerminalFailedReason = at(4*time.Hour), boxwatch.TerminalUnreachable
	mustSaveContainer(t, db, c1)
	boxwatch.DescribeEquipment(&c1)
	got, err := db.Container(ctx, a.ID, c1.ID)
	if err != nil || !reflect.DeepEqual(got, c1) {
		t.Fatalf("after update (err %v):\n got %+v\nwant %+v", err, got, c1)
	}

	t.Run("StoreShipmentContainers", func(t *testing.T) {
		list, err := db.ShipmentContainers(ctx, a.ID, s.ID)
		if err != nil || !slices.Equal(containerNumbers(list), []string{"MSCU1", "MSCU3"}) {
			t.Fatalf("got %v, %v; want MSCU1, MSCU3 by number", containerNumbers(list), err)
		}
	})
	t.Run("TxShipmentContainers", func(t *testing.T) {
		var list []boxwatch.Container
		mustInTx(t, db, func(tx boxwatch.Tx) error {
			var err error
			list, err = tx.ShipmentContainers(ctx, s.ID)
			return err
		})
		if !slices.Equal(containerNumbers(list), []string{"MSCU1", "MSCU3"}) || list[1].ID != c3.ID {
			t.Fatalf("got %v; want MSCU1, MSCU3 by number", containerNumbers(list))
		}
	})
	t.Run("Containers", func(t *testing.T) {
		for _, tt := range []struct {
			name  string
			f     boxwatch.ContainerFilter
			p     boxwatch.Page
			want  []string
			total int
		}{
			{"FirstPage", boxwatch.ContainerFilter{}, boxwatch.Page{Number: 1, Size: 2}, []string{"MSCU2", "MSCU1"}, 3},
			{"LastPage", boxwatch.ContainerFilter{}, boxwatch.Page{Number: 2, Size: 2}, []string{"MSCU3"}, 3},
			{"PastTheEnd", boxwatch.ContainerFilter{}, boxwatch.Page{Number: 3, Size: 2}, []string{}, 3},
			{"Number", boxwatch.ContainerFilter{Number: "MSCU3"}, boxwatch.Page{Number: 1, Size: 10}, []string{"MSCU3"}, 1},
			{"NumberAsPrinted", boxwatch.ContainerFilter{Number: "mscu-3"}, boxwatch.Page{Number: 1, Size: 10}, []string{"MSCU3"}, 1},
			{"NumberNoPartialMatch", boxwatch.ContainerFilter{Number: "MSCU"}, boxwatch.Page{Number: 1, Size: 10}, []string{}, 0},
		} {
			list, total, err := db.Containers(ctx, a.ID, tt.f, tt.p)
			if err != nil || total != (boxwatch.Total{N: tt.total}) || !slices.Equal(containerNumbers(list), tt.want) {
				t.Errorf("%s: got %v total %+v err %v; want %v total %d", tt.name, containerNumbers(list), total, err, tt.want, tt.total)
			}
		}
	})
}

func eventPlaces(list []boxwatch.TransportEvent) []string {
	return fieldOf(list, func(e boxwatch.TransportEvent) string { return e.LOCODE })
}

func testTransportEvents(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	s := mustCreateShipment(t, db, a.ID, "MEDUFR030802", base)
	c := mustSaveContainer(t, db, newContainer(s, "MSCU1234565", base))
	const departed = "container.transport.vessel_departed"
	// Inserted out of time order: the listing is by timestamp, oldest first.
	rtm := newTransportEvent(c, departed, "NLRTM", at(2*time.Hour))
	rtm.VoyageNumber, rtm.VesselIMO = "001W", "9321483"
	mustInsertTransportEvent(t, db, rtm)
	mustInsertTransportEvent(t, db, newTransportEvent(c, departed, "SGSIN", at(3*time.Hour)))
	mustInsertTransportEvent(t, db, newTransportEvent(c, departed, "CNSHA", at(time.Hour)))

	t.Run("SameKeyStoredOnce", func(t *testing.T) {
		again := newTransportEvent(c, departed, "NLRTM", at(5*time.Hour))
		var stored bool
		var byKey boxwatch.TransportEvent
		mustInTx(t, db, func(tx boxwatch.Tx) error {
			var err error
			if stored, err = tx.InsertTransportEvent(ctx, again); err != nil {
				return err
			}
			byKey, err = tx.TransportEventByKey(ctx, c.ID, departed, "NLRTM")
			return err
		})
		if stored || !reflect.DeepEqual(byKey, rtm) {
			t.Fatalf("second insert stored=%v; by key %+v, want the first %+v", stored, byKey, rtm)
		}
	})
	t.Run("ByKeyErrNotFound", func(t *testing.T) {
		err := db.InTx(ctx, func(tx boxwatch.Tx) error {
			_, err := tx.TransportEventByKey(ctx, c.ID, departed, "USNYC")
			return err
		})
		wantNotFound(t, "unknown place", err)
	})
	t.Run("TransportEvent", func(t *testing.T) {
		got, err := db.TransportEvent(ctx, a.ID, rtm.ID)
		if err != nil || !reflect.DeepEqual(got, rtm) {
			t.Fatalf("got %+v, %v; want %+v", got, err, rtm)
		}
	})
	for _, tt := range []struct {
		name string
		p    boxwatch.Page
		want []string
	}{
		{"OldestFirst", boxwatch.Page{Number: 1, Size: 10}, []string{"CNSHA", "NLRTM", "SGSIN"}},
		{"SecondPage", boxwatch.Page{Number: 2, Size: 2}, []string{"SGSIN"}},
		{"PastTheEnd", boxwatch.Page{Number: 3, Size: 2}, []string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			list, total, err := db.TransportEvents(ctx, a.ID, c.ID, tt.p)
			if err != nil || total != 3 || !slices.Equal(eventPlaces(list), tt.want) {
				t.Fatalf("got %v total %d err %v; want %v total 3", eventPlaces(list), total, err, tt.want)
			}
		})
	}
}

func testVessels(t *testing.T, db *store.DB) {
	imo := "9321483"
	v := boxwatch.Vessel{ID: boxwatch.VesselID(imo), IMO: imo, MMSI: "636091234", Name: "EMMA", CallSign: "OYGR2", Flag: "DK"}
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.SaveVessel(ctx, v, base) })
	for _, key := range []string{v.ID, imo} {
		if got, err := db.Vessel(ctx, key); err != nil || !reflect.DeepEqual(got, v) {
			t.Fatalf("Vessel(%s) = %+v, %v; want %+v", key, got, err, v)
		}
	}
	// A later report refreshes what it knows and keeps what it leaves out.
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		return tx.SaveVessel(ctx, boxwatch.Vessel{ID: v.ID, IMO: imo, Name: "EMMA MAERSK"}, at(time.Hour))
	})
	v.Name = "EMMA MAERSK"
	if got, err := db.Vessel(ctx, imo); err != nil || !reflect.DeepEqual(got, v) {
		t.Fatalf("after update: %+v, %v; want %+v", got, err, v)
	}
	for name, key := range map[string]string{"UnknownID": boxwatch.VesselID("1234567"), "UnknownIMO": "1234567", "Empty": ""} {
		_, err := db.Vessel(ctx, key)
		wantNotFound(t, name, err)
	}
}

func eventKeys(list []boxwatch.Event) []string {
	return fieldOf(list, func(e boxwatch.Event) string { return e.Key })
}

func testEvents(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	b := MustCreateAccount(t, db, "globex")
	first := newEvent(a.ID, eventFailed, "k2", at(2*time.Second))
	first.Data = json.RawMessage(`{"reason":"not_found"}`)
	var stored []bool
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		for _, e := range []boxwatch.Event{
			first,
			newEvent(a.ID, eventFailed, "k1", at(time.Second)),
			newEvent(a.ID, eventFailed, "k3", at(3*time.Second)),
			newEvent(a.ID, eventFailed, "k2", at(4*time.Second)), // the same change again
			newEvent(b.ID, eventFailed, "k2", at(5*time.Second)), // keys are per account
		} {
			ok, err := tx.AppendEvent(ctx, e)
			if err != nil {
				return err
			}
			stored = append(stored, ok)
		}
		return nil
	})
	if !slices.Equal(stored, []bool{true, true, true, false, true}) {
		t.Fatalf("AppendEvent stored %v, want every event but the repeated key", stored)
	}
	got, err := db.Event(ctx, a.ID, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]string
	if json.Unmarshal(got.Data, &data) != nil || data["reason"] != "not_found" || got.Key != "k2" || !got.CreatedAt.Equal(first.CreatedAt) {
		t.Fatalf("Event = %+v (data %s)", got, got.Data)
	}
	for name, id := range foreignIDs(first.ID) {
		_, err := db.Event(ctx, b.ID, id)
		wantNotFound(t, "Event "+name, err)
	}
	for _, tt := range []struct {
		name          string
		offset, limit int
		want          []string
	}{
		{"OldestFirst", 0, 10, []string{"k1", "k2", "k3"}},
		{"Offset", 1, 1, []string{"k2"}},
		{"PastTheEnd", 3, 10, []string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			list, err := db.Events(ctx, a.ID, tt.offset, tt.limit)
			if err != nil || !slices.Equal(eventKeys(list), tt.want) {
				t.Fatalf("Events = %v, %v; want %v", eventKeys(list), err, tt.want)
			}
		})
	}
}

// testRecordLookup: a lookup sets the shipment's lookup time on each of its containers, and with
// pod the port of discharge's on those not picked up there; saving a container keeps both.
func testRecordLookup(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	s := mustCreateShipment(t, db, a.ID, "MEDUFR030802", base)
	other := mustCreateShipment(t, db, a.ID, "MEDUFR030803", base)
	waiting := mustSaveContainer(t, db, newContainer(s, "MSCU1", base))
	gone := newContainer(s, "MSCU2", base)
	gone.PODFullOutAt = at(time.Hour)
	mustSaveContainer(t, db, gone)
	untouched := mustSaveContainer(t, db, newContainer(other, "MSCU3", base))
	// Read once, so that a read cache holds the rows RecordLookup then writes.
	if _, err := db.ShipmentContainers(ctx, a.ID, s.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Container(ctx, a.ID, waiting.ID); err != nil {
		t.Fatal(err)
	}
	record := func(at time.Time, pod bool) {
		t.Helper()
		mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.RecordLookup(ctx, s.ID, at, pod) })
	}
	times := func(id string) (shipment, pod time.Time) {
		t.Helper()
		c, err := db.Container(ctx, a.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		return c.ShipmentLastTrackingRequestAt, c.PODLastTrackingRequestAt
	}
	tests := []struct {
		name                  string
		at                    time.Time
		pod                   bool
		waitingPOD, otherTime time.Time
	}{
		{"AtSea", at(2 * time.Hour), false, time.Time{}, time.Time{}},
		{"AtPOD", at(3 * time.Hour), true, at(3 * time.Hour), time.Time{}},
		{"AfterPOD", at(4 * time.Hour), false, at(3 * time.Hour), time.Time{}},
	}
	for _, tt := range tests {
		record(tt.at, tt.pod)
		for _, c := range []struct {
			id                string
			shipment, podTime time.Time
		}{{waiting.ID, tt.at, tt.waitingPOD}, {gone.ID, tt.at, time.Time{}}, {untouched.ID, time.Time{}, time.Time{}}} {
			if shipment, pod := times(c.id); !shipment.Equal(c.shipment) || !pod.Equal(c.podTime) {
				t.Errorf("%s: container %s has lookups %v / %v, want %v / %v", tt.name, c.id, shipment, pod, c.shipment, c.podTime)
			}
		}
	}
	list, err := db.ShipmentContainers(ctx, a.ID, s.ID)
	if err != nil || len(list) != 2 || !list[0].ShipmentLastTrackingRequestAt.Equal(at(4*time.Hour)) {
		t.Fatalf("listed after the lookups: %+v, %v", list, err)
	}
	// A carrier's answer saved afterwards leaves the lookup times as they are.
	waiting.CurrentStatus, waiting.UpdatedAt = boxwatch.ContainerOnShip, at(5*time.Hour)
	mustSaveContainer(t, db, waiting)
	if shipment, pod := times(waiting.ID); !shipment.Equal(at(4*time.Hour)) || !pod.Equal(at(3*time.Hour)) {
		t.Errorf("after SaveContainer: lookups %v / %v", shipment, pod)
	}
	// A shipment without containers records nothing and fails nothing.
	empty := mustCreateShipment(t, db, a.ID, "MEDUFR030804", base)
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.RecordLookup(ctx, empty.ID, at(6*time.Hour), true) })
}

// mustReadBack checks that the store answers s as it was written: the shipment without its
// snapshot, with the vessel names the snapshot gives, and with its snapshot.
func mustReadBack(t *testing.T, db *store.DB, s boxwatch.Shipment) {
	t.Helper()
	got, err := db.Shipment(ctx, s.AccountID, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := s
	want.Snapshot, want.VesselNames = boxwatch.CarrierShipment{}, boxwatch.VesselNamesOf(s.Snapshot)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back:\n got %+v\nwant %+v", got, want)
	}
	want.Snapshot = s.Snapshot
	full, err := db.ShipmentWithSnapshot(ctx, s.AccountID, s.ID)
	if err != nil || !reflect.DeepEqual(full, want) {
		t.Fatalf("read back with its snapshot (err %v):\n got %+v\nwant %+v", err, full, want)
	}
	if _, err := db.ShipmentWithSnapshot(ctx, "00000000-0000-4000-8000-000000000000", s.ID); !errors.Is(err, boxwatch.ErrNotFound) {
		t.Fatalf("another account's shipment with its snapshot: %v, want ErrNotFound", err)
	}
}
