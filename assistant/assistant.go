// Package assistant serves boxwatch to AI assistants over the Model Context Protocol (MCP), as
// Terminal49's MCP server does: the same ten tools with the same names and parameters, its three
// prompts and four resources, and tools of boxwatch's own (the vessel's position and predicted
// arrival, number inference, failed webhook deliveries and their redelivery).
//
// The tools are a client of boxwatch's HTTP API: each one makes the REST calls that answer it
// through the typed Go client (package client), so a tool is authorised, scoped to the caller's
// account, validated and rate-limited exactly as those calls are, and answers what they answer.
// Served at /mcp (Handler), the client calls the API's handler in process with the caller's own
// key; served over stdio (ServeStdio, "boxwatch mcp"), it calls a running service over the
// network. The package holds no rule of its own about tracking, numbers or accounts, and imports
// nothing of the server: it turns the API's answers into structured results with a short text
// summary, times at a place in that place's time zone, and errors that say what to do next.
package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boxwatch/boxwatch/client"
)

// Connect returns the API client the tools of one request call, or an error the caller is shown.
// extra is what the transport knows of the request (its HTTP headers over HTTP); it may be nil.
type Connect func(ctx context.Context, extra *mcp.RequestExtra) (*client.Client, error)

// Options describe the server to its clients.
type Options struct {
	// Version is boxwatch's version, which the server reports.
	Version string
	// Logger receives the SDK's own messages; nil discards them.
	Logger *slog.Logger
}

// instructions tell an assistant how to begin.
const instructions = `boxwatch tracks ocean containers and shipments. Find a container or shipment by its number with ` +
	`search_container, then read it by id with get_container or get_shipment_details. Start tracking a new number with ` +
	`track_container. Ask get_container_journey where the vessel is now and when boxwatch predicts it arrives. ` +
	`Times at a place are given in that place's local time with its IANA time zone, and in UTC.`

// New returns an MCP server with every tool, prompt and resource; connect gives each request its
// API client.
func New(connect Connect, opts Options) *mcp.Server {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "boxwatch", Title: "boxwatch container tracking", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: logger, SchemaCache: mcp.NewSchemaCache()})
	s.AddReceivingMiddleware(boundArguments)
	addTools(s, connect)
	addPrompts(s)
	addResources(s, connect)
	return s
}

// boundArguments refuses a tool call with a string argument longer than maxText or a list or
// object of more than maxItems members, with a short error naming it, before the arguments are
// validated against the tool's schema (whose errors quote the value in full).
func boundArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" {
			var args any
			if json.Unmarshal(p.Arguments, &args) == nil {
				if err := bounded("arguments", args); err != nil {
					res := &mcp.CallToolResult{}
					res.SetError(err)
					return res, nil
				}
			}
		}
		return next(ctx, method, req)
	}
}

// maxItems bounds the members of any list or object argument.
const maxItems = 20

func bounded(name string, v any) error {
	switch v := v.(type) {
	case string:
		if utf8.RuneCountInString(v) > maxText {
			return fmt.Errorf("%s is longer than %d characters: no argument of boxwatch's tools needs more", name, maxText)
		}
	case []any:
		if len(v) > maxItems {
			return fmt.Errorf("%s has more than %d items", name, maxItems)
		}
		for i, item := range v {
			if err := bounded(fmt.Sprintf("%s[%d]", name, i), item); err != nil {
				return err
			}
		}
	case map[string]any:
		if len(v) > maxItems {
			return fmt.Errorf("%s has more than %d members", name, maxItems)
		}
		for k, item := range v {
			if err := bounded("a member name of "+name, k); err != nil {
				return err
			}
			if err := bounded(k, item); err != nil {
				return err
			}
		}
	}
	return nil
}

// tool adds a tool whose handler run answers with a value and its summary; the result carries
// the value as structured content, the summary and the value as JSON text (for clients that read
// text only). An error of run becomes a tool error, whose text the assistant reads.
func tool[In, Out any](s *mcp.Server, connect Connect, t *mcp.Tool, run func(ctx context.Context, c *client.Client, in In) (Out, string, error)) {
	mcp.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var zero Out
		c, err := connect(ctx, req.Extra)
		if err != nil {
			return nil, zero, err
		}
		out, summary, err := run(ctx, c, in)
		if err != nil {
			return nil, zero, err
		}
		body, err := json.Marshal(out)
		if err != nil {
			return nil, zero, errors.New("the answer could not be encoded: " + err.Error())
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summary}, &mcp.TextContent{Text: string(body)}}}, out, nil
	})
}

// readOnly annotates a tool that changes nothing, inside boxwatch or outside it.
func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
}
