package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch/client"
)

const webhooksUsage = `webhooks list | add URL --event NAME... [--header NAME=VALUE]... | rm ID | deliveries [WEBHOOK_ID] [--status pending|succeeded|failed] | redeliver NOTIFICATION_ID`

// runWebhooks manages the account's webhooks and shows their deliveries.
func runWebhooks(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usagef("usage: boxwatch %s", webhooksUsage)
	}
	sub, args := args[0], args[1:]
	r := newRemote("webhooks "+sub, getenv, stdin, stdout, stderr)
	switch sub {
	case "list":
		if _, err := r.parse(args, "webhooks list [--json]", exactly(0)); err != nil {
			return helpOK(err)
		}
		return r.webhooksList(ctx)
	case "add":
		var events, headers sourceList
		r.flags.Var(&events, "event", "an event to deliver, repeatable or comma-separated (see GET /v2/webhooks/events)")
		r.flags.Var(&headers, "header", "an extra header NAME=VALUE sent with each delivery, repeatable")
		pos, err := r.parse(args, "webhooks add URL --event NAME... [--header NAME=VALUE]...", exactly(1))
		if err != nil {
			return helpOK(err)
		}
		if len(events) == 0 {
			return usagef("webhooks add needs at least one --event (for example --event tracking_request.succeeded)")
		}
		ch := client.WebhookChange{URL: pos[0], Events: events}
		for _, h := range headers {
			name, value, ok := strings.Cut(h, "=")
			if !ok || strings.TrimSpace(name) == "" {
				return usagef("--header must be NAME=VALUE, got %q", h)
			}
			ch.Headers = append(ch.Headers, client.Header{Name: strings.TrimSpace(name), Value: value})
		}
		return r.webhooksAdd(ctx, ch)
	case "rm":
		pos, err := r.parse(args, "webhooks rm ID", exactly(1))
		if err != nil {
			return helpOK(err)
		}
		c, err := r.client()
		if err != nil {
			return err
		}
		if err := c.DeleteWebhook(ctx, pos[0]); err != nil {
			return apiError(err)
		}
		fmt.Fprintf(stdout, "webhook %s deleted\n", printable(pos[0]))
		return nil
	case "deliveries":
		var q client.NotificationQuery
		r.flags.StringVar(&q.DeliveryStatus, "status", "", "only deliveries with this status: pending, succeeded or failed")
		r.flags.StringVar(&q.Event, "event", "", "only deliveries of this event")
		r.flags.IntVar(&q.Page.Size, "size", 30, "deliveries to show, 1 to 100")
		pos, err := r.parse(args, "webhooks deliveries [WEBHOOK_ID] [--status S] [--event E] [--size N] [--json]", func(n int) bool { return n <= 1 })
		if err != nil {
			return helpOK(err)
		}
		if len(pos) == 1 {
			q.WebhookID = pos[0]
		}
		if q.Page.Size < 1 || q.Page.Size > 100 {
			return usagef("--size must be 1 to 100, got %d", q.Page.Size)
		}
		q.WithLog = true
		return r.webhooksDeliveries(ctx, q)
	case "redeliver":
		pos, err := r.parse(args, "webhooks redeliver NOTIFICATION_ID", exactly(1))
		if err != nil {
			return helpOK(err)
		}
		c, err := r.client()
		if err != nil {
			return err
		}
		n, err := c.Redeliver(ctx, pos[0])
		if err != nil {
			return apiError(err)
		}
		if r.json {
			return r.printJSON(n)
		}
		fmt.Fprintf(stdout, "notification %s queued for delivery again\n", n.ID)
		return nil
	}
	return usagef("unknown webhooks command %q; usage: boxwatch %s", sub, webhooksUsage)
}

func (r *remote) webhooksList(ctx context.Context) error {
	c, err := r.client()
	if err != nil {
		return err
	}
	list, err := c.Webhooks(ctx)
	if err != nil {
		return apiError(err)
	}
	if r.json {
		return r.printJSON(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(r.stdout, "no webhooks")
		return nil
	}
	tw := table(r.stdout, "ID", "URL", "ACTIVE", "EVENTS", "CREATED")
	for _, w := range list {
		active := "yes"
		if !w.Active {
			active = "no"
			if w.DeactivatedReason != nil {
				active += " (" + *w.DeactivatedReason + ")"
			}
		}
		row(tw, w.ID, w.URL, active, strings.Join(w.Events, ","), when(&w.CreatedAt))
	}
	return tw.Flush()
}

func (r *remote) webhooksAdd(ctx context.Context, ch client.WebhookChange) error {
	c, err := r.client()
	if err != nil {
		return err
	}
	w, err := c.CreateWebhook(ctx, ch)
	if err != nil {
		return apiError(err)
	}
	if r.json {
		return r.printJSON(w)
	}
	fmt.Fprintf(r.stdout, "webhook %s created for %s\n", w.ID, printable(w.URL))
	fmt.Fprintf(r.stdout, "signing secret (verify each delivery's signature with it):\n%s\n", printable(w.Secret))
	return nil
}

func (r *remote) webhooksDeliveries(ctx context.Context, q client.NotificationQuery) error {
	c, err := r.client()
	if err != nil {
		return err
	}
	list, err := c.Notifications(ctx, q)
	if err != nil {
		return apiError(err)
	}
	if r.json {
		return r.printJSON(list)
	}
	if list.Total == 0 {
		fmt.Fprintln(r.stdout, "no deliveries")
		return nil
	}
	tw := table(r.stdout, "ID", "EVENT", "STATUS", "ATTEMPTS", "CREATED", "LAST ATTEMPT")
	for _, n := range list.Items {
		row(tw, n.ID, n.Event, n.DeliveryStatus, fmt.Sprint(n.Attempts), when(&n.CreatedAt), lastAttempt(n.Log))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if list.Total > len(list.Items) {
		fmt.Fprintf(r.stdout, "%d of %d deliveries, newest first\n", len(list.Items), list.Total)
	}
	return nil
}

// lastAttempt summarises a delivery's latest attempt: the receiver's status or the error.
func lastAttempt(log []client.DeliveryAttempt) string {
	if len(log) == 0 {
		return "-"
	}
	a := log[len(log)-1]
	for _, b := range log {
		if b.AttemptedAt.After(a.AttemptedAt) {
			a = b
		}
	}
	out := a.AttemptedAt.UTC().Format(time.DateTime) + " "
	if a.StatusCode != nil {
		out += fmt.Sprintf("HTTP %d", *a.StatusCode)
	} else {
		out += str(a.Error)
	}
	return out + fmt.Sprintf(" in %d ms", a.LatencyMS)
}
