package main

import (
	"context"
	"io"
	"log/slog"
	"strings"

	"github.com/boxwatch/boxwatch/assistant"
)

const mcpUsage = "mcp [--url URL] [--key KEY]"

// runMCP serves boxwatch's MCP tools on stdin and stdout, for a desktop assistant that starts
// its servers as commands: each tool calls the service at --url with --key, as the client
// commands do. It ends when stdin does.
func runMCP(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	r := newRemote("mcp", getenv, stdin, stdout, stderr)
	if _, err := r.parse(args, mcpUsage, exactly(0)); err != nil {
		return helpOK(err)
	}
	c, err := r.client()
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return assistant.ServeStdio(ctx, c, stdin, stdout, assistant.Options{Version: mcpVersion(), Logger: log})
}

// mcpVersion is the version an MCP server reports: the module version and commit, without the name.
func mcpVersion() string { return strings.TrimPrefix(versionString(), "boxwatch ") }
