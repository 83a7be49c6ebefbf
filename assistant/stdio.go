package assistant

import (
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boxwatch/boxwatch/client"
)

// ServeStdio serves MCP on in and out (newline-delimited JSON-RPC, as a desktop assistant runs a
// local server) until in ends or ctx is done. Every tool calls the service through c.
func ServeStdio(ctx context.Context, c *client.Client, in io.Reader, out io.Writer, opts Options) error {
	connect := func(context.Context, *mcp.RequestExtra) (*client.Client, error) { return c, nil }
	return New(connect, opts).Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{out}})
}

// nopCloser leaves the writer open when the session ends: it belongs to the caller.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
