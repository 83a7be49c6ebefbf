package assistant

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addPrompts adds Terminal49's three prompts, under their names and arguments.
func addPrompts(s *mcp.Server) {
	prompt(s, &mcp.Prompt{Name: "track-shipment", Title: "Track a container",
		Description: "Start tracking a container (or find it if it is tracked already) and report where it is.",
		Arguments: []*mcp.PromptArgument{
			{Name: "container_number", Description: "the container number, such as MSCU1234566", Required: true},
			{Name: "carrier", Description: "the shipping line's SCAC, such as MAEU (default: inferred)"},
		}},
		func(args map[string]string) string {
			with := ""
			if c := args["carrier"]; c != "" {
				with = fmt.Sprintf(" with shipping line %s (scac)", c)
			}
			return fmt.Sprintf("Track container %s%s. First look for it with search_container; if it is not there, start tracking it "+
				"with track_container. Then tell me its current status and location, when it arrives (the carrier's ETA and "+
				"boxwatch's predicted arrival from get_container_journey), and any hold or fee that keeps it at the terminal.",
				args["container_number"], with)
		})
	prompt(s, &mcp.Prompt{Name: "check-demurrage", Title: "Check demurrage risk",
		Description: "Weigh a container's demurrage and detention risk at the port of discharge.",
		Arguments:   []*mcp.PromptArgument{{Name: "container_id", Description: "the container's boxwatch id (search_container finds it)", Required: true}},
	}, func(args map[string]string) string {
		return fmt.Sprintf("Assess the demurrage risk of container %s. Call get_container with include [\"shipment\", \"pod_terminal\"] and report: "+
			"whether it is discharged and available for pickup; its last free day and how many days remain from today in the "+
			"terminal's time zone; every hold that blocks pickup; the fees already owed. End with what to do, and by when, to "+
			"avoid charges. Say plainly when the terminal has reported nothing yet, rather than guessing.", args["container_id"])
	})
	prompt(s, &mcp.Prompt{Name: "analyze-delays", Title: "Analyze journey delays",
		Description: "Find where a container's journey lost time, and why.",
		Arguments:   []*mcp.PromptArgument{{Name: "container_id", Description: "the container's boxwatch id (search_container finds it)", Required: true}},
	}, func(args map[string]string) string {
		return fmt.Sprintf("Analyze the journey of container %s for delays. Use get_container_transport_events for what happened, "+
			"get_container_route for the carrier's planned and actual times at each port, and get_container_journey for where "+
			"the vessel is now and boxwatch's predicted arrival. Compare estimated with actual times at each step, point out "+
			"unusual waits (at transshipment, at the terminal), and say how late the container is against the first estimate.",
			args["container_id"])
	})
}

// prompt adds a prompt whose text is made from its arguments; a required argument left out is an
// error naming it.
func prompt(s *mcp.Server, p *mcp.Prompt, text func(args map[string]string) string) {
	s.AddPrompt(p, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		args := map[string]string{}
		for _, a := range p.Arguments {
			v := strings.TrimSpace(req.Params.Arguments[a.Name])
			if len(v) > maxText {
				return nil, fmt.Errorf("%s is longer than %d characters", a.Name, maxText)
			}
			if v == "" && a.Required {
				return nil, fmt.Errorf("%s is required: %s", a.Name, a.Description)
			}
			args[a.Name] = v
		}
		return &mcp.GetPromptResult{Description: p.Description,
			Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text(args)}}}}, nil
	})
}
