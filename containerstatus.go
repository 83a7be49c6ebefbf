package boxwatch

// Container statuses (current_status): the 13 values of the reference, in journey order.
const (
	ContainerNew                    = "new"
	ContainerOnShip                 = "on_ship"
	ContainerGrounded               = "grounded"
	ContainerAvailable              = "available"
	ContainerNotAvailable           = "not_available"
	ContainerAwaitingInlandTransfer = "awaiting_inland_transfer"
	ContainerOnRail                 = "on_rail"
	ContainerOffDock                = "off_dock"
	ContainerPickedUp               = "picked_up"
	ContainerDelivered              = "delivered"
	ContainerDropped                = "dropped"
	ContainerLoaded                 = "loaded"
	ContainerEmptyReturned          = "empty_returned"
)

// ContainerStatuses lists every current_status of the reference, in journey order.
var ContainerStatuses = []string{
	ContainerNew, ContainerOnShip, ContainerGrounded, ContainerAvailable, ContainerNotAvailable,
	ContainerAwaitingInlandTransfer, ContainerOnRail, ContainerOffDock, ContainerPickedUp,
	ContainerDelivered, ContainerDropped, ContainerLoaded, ContainerEmptyReturned,
}

// ContainerStatus derives a container's current_status from what is known of it, by the
// reference's rules and, where its guide leaves them undefined, boxwatch's (docs/api.md):
// empty_returned once the empty is back; after the pickup, at the consignee's door, loaded once
// it was hooked again after a drop, dropped once it was left there, delivered once it arrived
// there (unloaded live); picked_up once it left the port of discharge, its off-dock yard or its
// inland destination full; off_dock once it moved from the terminal to an off-dock yard; for a box that goes on inland, grounded once it
// reached the inland destination (off the train, or arrived by truck or barge), on_rail from its
// loading onto the train (or the train's departure) at the port of discharge, and
// awaiting_inland_transfer from its discharge until then; otherwise, once discharged, not_available while a hold is listed or the terminal
// says it cannot be picked up, available when a terminal reported it free of holds and
// available, grounded while no terminal said either; on_ship from loading or departure at the
// port of lading until discharge (transshipments included); new before. It reads the domain's
// facts only, not where they came from.
func ContainerStatus(c Container) string {
	switch {
	case !c.EmptyTerminatedAt.IsZero():
		return ContainerEmptyReturned
	case !c.Inland.ReloadedAt.IsZero():
		return ContainerLoaded
	case !c.Inland.DroppedAt.IsZero():
		return ContainerDropped
	case !c.Inland.DeliveredAt.IsZero():
		return ContainerDelivered
	case !c.PODFullOutAt.IsZero() || !c.Inland.FinalDestinationFullOutAt.IsZero():
		return ContainerPickedUp
	case !c.Inland.OffDockAt.IsZero():
		return ContainerOffDock
	case c.Inland.DestinationLOCODE != "" && (!c.Inland.IndRailUnloadedAt.IsZero() ||
		!c.Inland.IndATAAt.IsZero() && c.Inland.PODRailLoadedAt.IsZero() && c.Inland.PODRailDepartedAt.IsZero()):
		return ContainerGrounded
	case !c.Inland.PODRailLoadedAt.IsZero() || !c.Inland.PODRailDepartedAt.IsZero():
		return ContainerOnRail
	case c.Inland.DestinationLOCODE != "" && !c.PODDischargedAt.IsZero():
		return ContainerAwaitingInlandTransfer
	case !c.PODDischargedAt.IsZero():
		switch {
		case len(c.Holds) > 0 || c.AvailableForPickup != nil && !*c.AvailableForPickup:
			return ContainerNotAvailable
		case !c.TerminalCheckedAt.IsZero() && c.AvailableForPickup != nil:
			return ContainerAvailable
		}
		return ContainerGrounded
	case !c.LoadedAt.IsZero() || !c.DepartedAt.IsZero() || !c.PODArrivedAt.IsZero():
		return ContainerOnShip
	}
	return ContainerNew
}
