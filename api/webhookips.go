package api

import (
	"net/http"
	"net/netip"
	"time"

	"github.com/boxwatch/boxwatch"
)

// webhookIPs is the reference's answer for the delivery addresses: plain JSON, not a resource.
type webhookIPs struct {
	IPs         []string `json:"webhook_notification_ips" doc:"The addresses webhook deliveries leave from, as the operator configured them (serve --webhook-egress-ips)."`
	LastUpdated string   `json:"last_updated" format:"date-time" doc:"When this process read the list: it changes only with the configuration."`
}

// handleWebhookIPs answers the configured egress addresses; the list is fixed for the process's life.
func handleWebhookIPs(addrs []netip.Addr, now boxwatch.Clock) handlerFunc {
	res := webhookIPs{IPs: []string{}, LastUpdated: now().UTC().Truncate(time.Second).Format(boxwatch.TimeFormat)}
	for _, a := range addrs {
		res.IPs = append(res.IPs, a.String())
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		writeJSONAs(w, http.StatusOK, "application/json", res)
		return nil
	}
}
