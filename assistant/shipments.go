package assistant

import (
	"context"
	"fmt"
	"strings"

	"github.com/boxwatch/boxwatch/client"
)

type getShipmentIn struct {
	ID                string `json:"id" jsonschema:"the shipment's boxwatch id (a UUID): search_container or list_shipments finds it"`
	IncludeContainers *bool  `json:"include_containers,omitempty" jsonschema:"add the shipment's containers in full (default true)"`
}

func getShipmentDetails(ctx context.Context, c *client.Client, in getShipmentIn) (ShipmentDetails, string, error) {
	if err := shipmentID.check("id", in.ID); err != nil {
		return ShipmentDetails{}, "", err
	}
	s, err := c.Shipment(ctx, in.ID)
	if err != nil {
		return ShipmentDetails{}, "", failed(err, shipmentID.notFound())
	}
	v := shipmentDetails(s, in.IncludeContainers == nil || *in.IncludeContainers)
	summary := shipmentSentence(v.Shipment)
	if n := len(v.ContainerNumbers); n > 0 {
		summary += fmt.Sprintf(" %d container(s): %s.", n, strings.Join(v.ContainerNumbers, ", "))
	}
	return v, summary, nil
}

// shipmentSentence says which shipment it is, its route and when it arrives.
func shipmentSentence(s Shipment) string {
	number := "without a number yet"
	for _, n := range []*string{s.BillOfLadingNumber, s.BookingNumber} {
		if n != nil && *n != "" {
			number = *n
			break
		}
	}
	b := fmt.Sprintf("Shipment %s with %s", number, s.ShippingLine.SCAC)
	if from, to := placeName(s.PortOfLading), placeName(s.PortOfDischarge); from != "" && to != "" {
		b += fmt.Sprintf(", from %s to %s", from, to)
	}
	switch {
	case s.PODATA != nil:
		b += fmt.Sprintf(", arrived %s (%s)", s.PODATA.Local, s.PODATA.TimeZone)
	case s.PODETA != nil:
		b += fmt.Sprintf(", carrier's ETA %s (%s)", s.PODETA.Local, s.PODETA.TimeZone)
		if s.PODPredictedETA != nil {
			b += fmt.Sprintf(", boxwatch predicts %s", s.PODPredictedETA.Local)
		}
	}
	b += "."
	if s.TrackingStopped {
		reason := "stopped"
		if s.StoppedReason != nil {
			reason = *s.StoppedReason
		}
		b += fmt.Sprintf(" Tracking has stopped (%s).", reason)
	}
	return b
}

func placeName(p Place) string {
	switch {
	case p.Name != nil:
		return *p.Name
	case p.LOCODE != nil:
		return *p.LOCODE
	}
	return ""
}

type listShipmentsIn struct {
	Number            string `json:"number,omitempty" jsonschema:"only the shipment of this bill of lading, booking or original request number (not a container number: search_container finds those)"`
	TrackingStopped   *bool  `json:"tracking_stopped,omitempty" jsonschema:"only shipments whose tracking has (true) or has not (false) stopped"`
	IncludeContainers bool   `json:"include_containers,omitempty" jsonschema:"add each shipment's containers in full (default false: their numbers only)"`
	pageIn
}

// Shipments is a page of shipments.
type Shipments struct {
	Items []ShipmentDetails `json:"items"`
	Paging
}

func listShipments(ctx context.Context, c *client.Client, in listShipmentsIn) (Shipments, string, error) {
	list, err := c.Shipments(ctx, client.ShipmentQuery{Number: in.Number, TrackingStopped: in.TrackingStopped,
		Page: client.Page{Number: in.Page, Size: in.size()}})
	if err != nil {
		return Shipments{}, "", failed(err, "")
	}
	out := Shipments{Items: []ShipmentDetails{}, Paging: pageOf(list)}
	for _, s := range list.Items {
		out.Items = append(out.Items, shipmentDetails(s, in.IncludeContainers))
	}
	return out, listSummary("shipments", out.Paging, len(out.Items), nil), nil
}
