package boxwatch_test

import (
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
)

// TestContainerStatus derives every status of the reference from the facts that reach it, and
// fails when a status is reached by no case.
func TestContainerStatus(t *testing.T) {
	at := func(h int) time.Time {
		return time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(h) * time.Hour)
	}
	yes, no := true, false
	hold := []boxwatch.TerminalHold{{Name: "customs", Status: "hold"}}
	pending := []boxwatch.TerminalHold{{Name: "freight", Status: "pending"}}
	loaded := boxwatch.Container{EmptyOutAt: at(0), FullInAt: at(10), LoadedAt: at(20)}
	departed := loaded
	departed.DepartedAt = at(24)
	arrived := departed
	arrived.PODArrivedAt = at(500)
	discharged := arrived
	discharged.PODDischargedAt = at(505)
	with := func(c boxwatch.Container, edit func(*boxwatch.Container)) boxwatch.Container {
		edit(&c)
		return c
	}
	tests := []struct {
		name string
		c    boxwatch.Container
		want string
	}{
		{"New", boxwatch.Container{}, boxwatch.ContainerNew},
		{"NewWithTheEmptyOut", boxwatch.Container{EmptyOutAt: at(0)}, boxwatch.ContainerNew},
		{"NewGatedInFull", boxwatch.Container{EmptyOutAt: at(0), FullInAt: at(10)}, boxwatch.ContainerNew},
		{"OnShipLoaded", loaded, boxwatch.ContainerOnShip},
		{"OnShipDeparted", departed, boxwatch.ContainerOnShip},
		{"OnShipDepartedWithoutLoading", boxwatch.Container{DepartedAt: at(24)}, boxwatch.ContainerOnShip},
		{"OnShipArrived", arrived, boxwatch.ContainerOnShip},
		{"GroundedWithoutATerminal", discharged, boxwatch.ContainerGrounded},
		{"GroundedTerminalSilentOnAvailability", with(discharged, func(c *boxwatch.Container) { c.TerminalCheckedAt = at(506) }), boxwatch.ContainerGrounded},
		{"Available", with(discharged, func(c *boxwatch.Container) { c.TerminalCheckedAt, c.AvailableForPickup = at(506), &yes }), boxwatch.ContainerAvailable},
		{"NotAvailableTerminalSays", with(discharged, func(c *boxwatch.Container) { c.TerminalCheckedAt, c.AvailableForPickup = at(506), &no }), boxwatch.ContainerNotAvailable},
		{"NotAvailableHeld", with(discharged, func(c *boxwatch.Container) { c.TerminalCheckedAt, c.Holds = at(506), hold }), boxwatch.ContainerNotAvailable},
		{"NotAvailableHeldThoughAvailable", with(discharged, func(c *boxwatch.Container) {
			c.TerminalCheckedAt, c.AvailableForPickup, c.Holds = at(506), &yes, hold
		}), boxwatch.ContainerNotAvailable},
		{"NotAvailableHoldPending", with(discharged, func(c *boxwatch.Container) {
			c.TerminalCheckedAt, c.AvailableForPickup, c.Holds = at(506), &yes, pending
		}), boxwatch.ContainerNotAvailable},
		{"PickedUp", with(discharged, func(c *boxwatch.Container) { c.PODFullOutAt, c.AvailableForPickup = at(530), &no }), boxwatch.ContainerPickedUp},
		{"PickedUpWithAHoldLeftListed", with(discharged, func(c *boxwatch.Container) { c.PODFullOutAt, c.Holds = at(530), hold }), boxwatch.ContainerPickedUp},
		{"AwaitingInlandTransfer", with(discharged, func(c *boxwatch.Container) { c.Inland.DestinationLOCODE = "USCHI" }), boxwatch.ContainerAwaitingInlandTransfer},
		{"AwaitingInlandTransferThoughHeld", with(discharged, func(c *boxwatch.Container) {
			c.Inland.DestinationLOCODE, c.TerminalCheckedAt, c.Holds = "USCHI", at(506), hold
		}), boxwatch.ContainerAwaitingInlandTransfer},
		{"InlandBoxNotYetDischargedIsOnShip", with(arrived, func(c *boxwatch.Container) { c.Inland.DestinationLOCODE = "USCHI" }), boxwatch.ContainerOnShip},
		{"OnRailLoaded", with(discharged, func(c *boxwatch.Container) {
			c.Inland.DestinationLOCODE, c.Inland.PODRailLoadedAt = "USCHI", at(520)
		}), boxwatch.ContainerOnRail},
		{"OnRailDepartedWithoutLoading", with(discharged, func(c *boxwatch.Container) {
			c.Inland.DestinationLOCODE, c.Inland.PODRailDepartedAt = "USCHI", at(522)
		}), boxwatch.ContainerOnRail},
		{"OnRailArrivedNotUnloaded", with(discharged, func(c *boxwatch.Container) {
			c.Inland.DestinationLOCODE, c.Inland.PODRailLoadedAt, c.Inland.IndATAAt = "USCHI", at(520), at(600)
		}), boxwatch.ContainerOnRail},
		{"GroundedInlandUnloaded", with(discharged, func(c *boxwatch.Container) {
			c.Inland.DestinationLOCODE, c.Inland.PODRailLoadedAt, c.Inland.IndATAAt, c.Inland.IndRailUnloadedAt = "USCHI", at(520), at(600), at(605)
		}), boxwatch.ContainerGrounded},
		{"GroundedInlandByBarge", with(discharged, func(c *boxwatch.Container) {
			c.Inland.DestinationLOCODE, c.Inland.IndATAAt = "DEDUI", at(560)
		}), boxwatch.ContainerGrounded},
		{"PickedUpAtTheInlandDestination", with(discharged, func(c *boxwatch.Container) {
			c.Inland.DestinationLOCODE, c.Inland.PODRailLoadedAt, c.Inland.IndRailUnloadedAt = "USCHI", at(520), at(605)
			c.Inland.FinalDestinationFullOutAt = at(630)
		}), boxwatch.ContainerPickedUp},
		{"EmptyReturnedAfterInland", with(discharged, func(c *boxwatch.Container) {
			c.Inland.DestinationLOCODE, c.Inland.FinalDestinationFullOutAt, c.EmptyTerminatedAt = "USCHI", at(630), at(700)
		}), boxwatch.ContainerEmptyReturned},
		{"OffDock", with(discharged, func(c *boxwatch.Container) {
			c.Inland.OffDockAt, c.TerminalCheckedAt, c.AvailableForPickup = at(520), at(521), &yes
		}), boxwatch.ContainerOffDock},
		{"PickedUpFromTheOffDockYard", with(discharged, func(c *boxwatch.Container) { c.Inland.OffDockAt, c.PODFullOutAt = at(520), at(560) }), boxwatch.ContainerPickedUp},
		{"DeliveredLive", with(discharged, func(c *boxwatch.Container) { c.PODFullOutAt, c.Inland.DeliveredAt = at(530), at(534) }), boxwatch.ContainerDelivered},
		{"Dropped", with(discharged, func(c *boxwatch.Container) {
			c.PODFullOutAt, c.Inland.DeliveredAt, c.Inland.DroppedAt = at(530), at(534), at(534)
		}), boxwatch.ContainerDropped},
		{"LoadedAfterTheDrop", with(discharged, func(c *boxwatch.Container) {
			c.PODFullOutAt, c.Inland.DeliveredAt, c.Inland.DroppedAt, c.Inland.ReloadedAt = at(530), at(534), at(534), at(560)
		}), boxwatch.ContainerLoaded},
		{"DeliveredAfterInland", with(discharged, func(c *boxwatch.Container) {
			c.Inland.DestinationLOCODE, c.Inland.FinalDestinationFullOutAt, c.Inland.DeliveredAt = "USCHI", at(630), at(640)
		}), boxwatch.ContainerDelivered},
		{"EmptyReturnedAfterTheDoor", with(discharged, func(c *boxwatch.Container) {
			c.PODFullOutAt, c.Inland.DeliveredAt, c.Inland.DroppedAt, c.Inland.ReloadedAt, c.EmptyTerminatedAt = at(530), at(534), at(534), at(560), at(600)
		}), boxwatch.ContainerEmptyReturned},
		{"EmptyReturned", with(discharged, func(c *boxwatch.Container) { c.PODFullOutAt, c.EmptyTerminatedAt = at(530), at(600) }), boxwatch.ContainerEmptyReturned},
	}
	reached := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := boxwatch.ContainerStatus(tt.c); got != tt.want {
				t.Errorf("ContainerStatus = %s, want %s", got, tt.want)
			}
		})
		reached[tt.want] = true
	}
	if len(boxwatch.ContainerStatuses) != 13 {
		t.Fatalf("%d statuses; the reference has 13", len(boxwatch.ContainerStatuses))
	}
	for _, status := range boxwatch.ContainerStatuses {
		if !reached[status] {
			t.Errorf("%s is reached by no case", status)
		}
	}
}
