// Command boxwatch runs the container-tracking service and administers it (serve, migrate,
// account, apikey), and is a client of a running service (track, infer, shipments, container,
// map, webhooks). Run "boxwatch help" for usage.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "boxwatch:", err)
		var ue usageError
		var ee exitError
		switch {
		case errors.As(err, &ue):
			os.Exit(2)
		case errors.As(err, &ee):
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}
