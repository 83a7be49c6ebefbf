package assistant

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boxwatch/boxwatch/client"
)

// Resource addresses. Terminal49 names its resources terminal49://…; boxwatch keeps the names and
// its own scheme.
const (
	containerPrefix  = "boxwatch://container/"
	glossaryURI      = "boxwatch://docs/milestone-glossary"
	guidanceURI      = "boxwatch://docs/mcp-query-guidance"
	displayColumnURI = "boxwatch://docs/list-display-columns"
)

//go:embed guidance.md
var guidance string

// addResources adds Terminal49's four resources, under their names.
func addResources(s *mcp.Server, connect Connect) {
	// GET /v2/containers/{id}?include=shipment,pod_terminal
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "container", Title: "A container", URITemplate: containerPrefix + "{id}",
		MIMEType: "text/markdown", Description: "A container by boxwatch id, as a readable summary: status, route, arrival, terminal facts."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			uri := req.Params.URI
			id := strings.TrimPrefix(uri, containerPrefix)
			if !uuidShape.MatchString(id) {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			c, err := connect(ctx, req.Extra)
			if err != nil {
				return nil, err
			}
			box, err := c.Container(ctx, id, "shipment", "pod_terminal")
			if client.IsNotFound(err) {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			if err != nil {
				return nil, failed(err, "")
			}
			return text(uri, "text/markdown", containerMarkdown(containerView(box, nil))), nil
		})

	// GET /v2/webhooks/events
	s.AddResource(&mcp.Resource{Name: "milestone-glossary", Title: "Milestone glossary", URI: glossaryURI, MIMEType: "text/markdown",
		Description: "What every container milestone and webhook event means, and which ones boxwatch reports."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			c, err := connect(ctx, req.Extra)
			if err != nil {
				return nil, err
			}
			cats, err := c.WebhookEvents(ctx)
			if err != nil {
				return nil, failed(err, "")
			}
			return text(glossaryURI, "text/markdown", glossary(cats)), nil
		})

	s.AddResource(&mcp.Resource{Name: "query-guidance", Title: "Query guidance", URI: guidanceURI, MIMEType: "text/markdown",
		Description: "Which tools answer which questions about containers and shipments, in what order."},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return text(guidanceURI, "text/markdown", guidance), nil
		})

	columns, err := json.MarshalIndent(displayColumns, "", "  ")
	if err != nil {
		panic(err)
	}
	s.AddResource(&mcp.Resource{Name: "list-display-columns", Title: "List display columns", URI: displayColumnURI, MIMEType: "application/json",
		Description: "The columns worth showing for the items of list_containers, list_shipments and list_tracking_requests, as paths into them."},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return text(displayColumnURI, "application/json", string(columns)), nil
		})
}

func text(uri, mime, body string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: body}}}
}

// containerMarkdown is a container as a reader would want it.
func containerMarkdown(v Container) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Container %s\n\n%s\n\n", v.Number, containerSummary(v))
	row := func(name string, t *Time) {
		if t != nil {
			fmt.Fprintf(&b, "- %s: %s (%s)\n", name, t.Local, t.TimeZone)
		}
	}
	b.WriteString("## Milestones\n\n")
	m := v.Milestones
	row("Empty out", m.EmptyOut)
	row("Full in at the port of lading", m.FullIn)
	row("Loaded on the vessel", m.VesselLoaded)
	row("Vessel departed", m.VesselDeparted)
	row("Arrived at the port of discharge", m.Arrived)
	row("Discharged", m.Discharged)
	row("Picked up (full out)", m.FullOut)
	row("Empty returned", m.EmptyReturned)
	if s := v.Shipment; s != nil {
		b.WriteString("\n## Shipment\n\n")
		fmt.Fprintf(&b, "- Shipping line: %s (%s)\n", s.ShippingLine.Name, s.ShippingLine.SCAC)
		fmt.Fprintf(&b, "- From %s to %s\n", orDash(placeName(s.PortOfLading)), orDash(placeName(s.PortOfDischarge)))
		row("Carrier's ETA", s.PODETA)
		row("boxwatch's predicted arrival", s.PODPredictedETA)
		row("Arrived", s.PODATA)
	}
	if t := v.PODTerminal; t != nil {
		fmt.Fprintf(&b, "\n## Terminal\n\n- %s\n", t.Name)
	}
	fmt.Fprintf(&b, "\nboxwatch id: %s\n", v.ID)
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// glossary explains the milestones by phase, then lists the event catalogue the service serves.
func glossary(cats []client.EventCategory) string {
	var b strings.Builder
	b.WriteString(`# Milestone glossary

A container's journey runs in three phases. At origin the empty box is picked up (empty_out), packed and gated
in at the port of lading (full_in), loaded (vessel_loaded) and sails (vessel_departed). In transit it may change
vessel at transshipment ports (transshipment_arrived, _discharged, _loaded, _departed). At destination the vessel
arrives (vessel_arrived), the box is discharged (vessel_discharged), released by the terminal (available), picked
up (full_out) and finally returned empty (empty_in). The estimated arrival lives on the shipment (pod_eta), not
on the container; shipment.estimated.arrival announces a change of it.

Times of milestones are local to the place they happen at, with its time zone named.

`)
	for _, c := range cats {
		fmt.Fprintf(&b, "## %s\n\n", c.Name)
		for _, e := range c.Events {
			note := ""
			if !e.Emitted {
				note = " (not reported by boxwatch today)"
			}
			fmt.Fprintf(&b, "- `%s`: %s%s\n", e.Name, e.Description, note)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// column is a column worth showing for an item of a list tool: a path of member names into it.
type column struct {
	Key   string `json:"key"`
	Label string `json:"label"`
}

var displayColumns = map[string][]column{
	"list_containers": {
		{"number", "Container"}, {"current_status", "Status"}, {"milestones.pod_discharged.local", "Discharged"},
		{"at_pod_terminal.available_for_pickup", "Ready"}, {"at_pod_terminal.pickup_lfd.local", "Last free day"},
		{"at_pod_terminal.holds", "Holds"}, {"milestones.pod_full_out.local", "Picked up"}, {"shipment.bill_of_lading_number", "Bill of lading"},
		{"shipment.pod_eta.local", "ETA"}, {"pod_terminal.name", "Terminal"},
	},
	"list_shipments": {
		{"bill_of_lading_number", "Bill of lading"}, {"shipping_line.scac", "SCAC"}, {"pod_vessel.name", "Vessel"},
		{"port_of_discharge.name", "Port of discharge"}, {"pod_eta.local", "ETA"}, {"pod_predicted_arrival.local", "Predicted arrival"},
		{"pod_ata.local", "Arrived"}, {"container_numbers", "Containers"},
	},
	"list_tracking_requests": {
		{"request_number", "Number"}, {"request_type", "Type"}, {"scac", "SCAC"}, {"status", "Status"},
		{"failed_reason", "Failure"}, {"created_at", "Created"}, {"updated_at", "Updated"},
	},
}
