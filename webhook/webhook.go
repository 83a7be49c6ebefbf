// Package webhook is the delivery toolkit behind boxwatch's webhooks: it signs notification bodies,
// decides which URLs and addresses a webhook may reach, makes one delivery attempt and says whether
// and when to try again, and holds the catalogue of event names a webhook can subscribe to.
//
// It keeps no state and never touches storage: which notifications exist, how attempts are logged and
// when a webhook is deactivated belong to the callers (the store, the job workers and the HTTP API).
// It imports only the standard library and the domain package.
package webhook

import "time"

const (
	// UserAgent is sent with every delivery.
	UserAgent = "boxwatch-webhooks"

	// DefaultTimeout bounds one delivery attempt, from dialling to reading the response, when
	// NewClient is given no timeout.
	DefaultTimeout = 10 * time.Second
)
