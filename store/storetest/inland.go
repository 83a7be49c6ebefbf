package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

// testInland stores a shipment's inland destination and a container's rail leg, reads them back
// whole, changes them, and clears the destination again.
func testInland(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	s := mustCreateShipment(t, db, a.ID, "MEDUFR030817", base)
	if got, err := db.Shipment(ctx, a.ID, s.ID); err != nil || got.Destination != nil {
		t.Fatalf("a new shipment has a destination: %+v, %v", got.Destination, err)
	}
	dest := &boxwatch.Destination{LOCODE: "USCHI", Name: "Chicago rail ramp", FacilityCode: "G4", FacilityCodeList: "BIC",
		FacilityType: "RAMP", Mode: "RAIL", ETA: at(400 * time.Hour), OriginalETA: at(390 * time.Hour), ATA: at(410 * time.Hour)}
	s.Destination = dest
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.UpdateShipment(ctx, s) })
	got, err := db.Shipment(ctx, a.ID, s.ID)
	if err != nil || got.Destination == nil || !sameDestination(*got.Destination, *dest) {
		t.Fatalf("destination round trip: %+v, %v; want %+v", got.Destination, err, dest)
	}

	c := newContainer(s, "MSCU1234565", base)
	if got := mustSaveContainer(t, db, c); !reflect.DeepEqual(got.Inland, boxwatch.ContainerInland{}) {
		t.Fatalf("saved inland %+v", got.Inland)
	}
	if back, err := db.Container(ctx, a.ID, c.ID); err != nil || !reflect.DeepEqual(back.Inland, boxwatch.ContainerInland{}) {
		t.Fatalf("a port-only box reads back inland %+v, %v", back.Inland, err)
	}
	c.Inland = boxwatch.ContainerInland{DestinationLOCODE: "USCHI", PODRailCarrierSCAC: "UPRR", IndRailCarrierSCAC: "BNSF",
		PODRailLoadedAt: at(300 * time.Hour), PODRailDepartedAt: at(302 * time.Hour), IndETAAt: at(400 * time.Hour),
		IndATAAt: at(410 * time.Hour), IndRailUnloadedAt: at(412 * time.Hour), FinalDestinationFullOutAt: at(430 * time.Hour)}
	c.CurrentStatus = boxwatch.ContainerPickedUp
	mustSaveContainer(t, db, c)
	back, err := db.Container(ctx, a.ID, c.ID)
	if err != nil || !sameInland(back.Inland, c.Inland) {
		t.Fatalf("inland round trip: %+v, %v; want %+v", back.Inland, err, c.Inland)
	}
	list, err := db.ShipmentContainers(ctx, a.ID, s.ID)
	if err != nil || len(list) != 1 || !sameInland(list[0].Inland, c.Inland) {
		t.Fatalf("inland in the shipment's containers: %+v, %v", list, err)
	}

	s.Destination = nil
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.UpdateShipment(ctx, s) })
	if got, err := db.Shipment(ctx, a.ID, s.ID); err != nil || got.Destination != nil {
		t.Fatalf("a cleared destination reads back %+v, %v", got.Destination, err)
	}
}

func sameDestination(a, b boxwatch.Destination) bool {
	return a.LOCODE == b.LOCODE && a.Name == b.Name && a.FacilityCode == b.FacilityCode && a.FacilityCodeList == b.FacilityCodeList &&
		a.FacilityType == b.FacilityType && a.Mode == b.Mode && a.ETA.Equal(b.ETA) && a.OriginalETA.Equal(b.OriginalETA) && a.ATA.Equal(b.ATA)
}

func sameInland(a, b boxwatch.ContainerInland) bool {
	return a.DestinationLOCODE == b.DestinationLOCODE && a.PODRailCarrierSCAC == b.PODRailCarrierSCAC &&
		a.IndRailCarrierSCAC == b.IndRailCarrierSCAC && a.PODRailLoadedAt.Equal(b.PODRailLoadedAt) &&
		a.PODRailDepartedAt.Equal(b.PODRailDepartedAt) && a.IndETAAt.Equal(b.IndETAAt) && a.IndATAAt.Equal(b.IndATAAt) &&
		a.IndRailUnloadedAt.Equal(b.IndRailUnloadedAt) && a.FinalDestinationFullOutAt.Equal(b.FinalDestinationFullOutAt)
}
