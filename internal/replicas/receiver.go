package replicas

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Receiver is a webhook receiver on loopback that answers 200 to every delivery, after its
// delay, and records its webhook-id, event and reference object. A delivery whose sender goes
// away before the answer (its process died) is recorded as abandoned instead.
type Receiver struct {
	URL string

	mu         sync.Mutex
	deliveries []Delivery
	abandoned  map[string]bool // webhook-ids
	inFlight   map[int]int     // remote port → deliveries waiting for their answer
}

// Delivery is one request a Receiver got.
type Delivery struct {
	WebhookID, Event, ObjectID string
}

// NewReceiver starts a receiver that answers at once, closed when the test ends.
func NewReceiver(t testing.TB) *Receiver { return NewSlowReceiver(t, 0) }

// NewSlowReceiver starts a receiver that answers each delivery after delay, closed when the test
// ends.
func NewSlowReceiver(t testing.TB, delay time.Duration) *Receiver {
	r := &Receiver{abandoned: map[string]bool{}, inFlight: map[int]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return
		}
		var doc struct {
			Data struct {
				Attributes struct {
					Event string `json:"event"`
				} `json:"attributes"`
				Relationships struct {
					ReferenceObject struct {
						Data struct {
							ID string `json:"id"`
						} `json:"data"`
					} `json:"reference_object"`
				} `json:"relationships"`
			} `json:"data"`
		}
		json.Unmarshal(body, &doc)
		id := req.Header.Get("webhook-id")
		if delay > 0 {
			_, p, _ := net.SplitHostPort(req.RemoteAddr)
			port, _ := strconv.Atoi(p)
			r.mu.Lock()
			r.inFlight[port]++
			r.mu.Unlock()
			wait := time.NewTimer(delay)
			defer wait.Stop()
			select {
			case <-wait.C:
			case <-req.Context().Done():
			}
			r.mu.Lock()
			if r.inFlight[port]--; r.inFlight[port] == 0 {
				delete(r.inFlight, port)
			}
			if req.Context().Err() != nil {
				r.abandoned[strings.ToLower(id)] = true
				r.mu.Unlock()
				return
			}
			r.mu.Unlock()
		}
		r.mu.Lock()
		r.deliveries = append(r.deliveries, Delivery{WebhookID: id,
			Event: doc.Data.Attributes.Event, ObjectID: doc.Data.Relationships.ReferenceObject.Data.ID})
		r.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL + "/hook"
	return r
}

// InFlight returns how many deliveries wait for their answer, and how many of them came from
// the given ports (a client's: Cluster.LocalPorts).
func (r *Receiver) InFlight(from map[int]bool) (all, fromThose int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for port, n := range r.inFlight {
		all += n
		if from[port] {
			fromThose += n
		}
	}
	return all, fromThose
}

// Abandoned returns the webhook-ids (lower case) of the deliveries whose sender went away before
// the answer.
func (r *Receiver) Abandoned() map[string]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.abandoned)
}

// Deliveries returns every delivery so far.
func (r *Receiver) Deliveries() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.deliveries...)
}

// Check counts the deliveries: distinct notifications, repeats of one notification (same
// webhook-id, which receivers deduplicate), events announced twice (the same event and object
// under different webhook-ids: a duplicate notification), and describes the problems: those,
// and deliveries without a webhook-id.
func (r *Receiver) Check() (notifications, repeats, announcedTwice int, problems []string) {
	byID := map[string]Delivery{}
	idsOf := map[string]map[string]bool{} // event + object → webhook-ids
	for _, d := range r.Deliveries() {
		if d.WebhookID == "" || d.Event == "" || d.ObjectID == "" {
			problems = append(problems, fmt.Sprintf("a delivery without a webhook-id, event or object: %+v", d))
			continue
		}
		if _, seen := byID[d.WebhookID]; seen {
			repeats++
			continue
		}
		byID[d.WebhookID] = d
		key := d.Event + " " + d.ObjectID
		if idsOf[key] == nil {
			idsOf[key] = map[string]bool{}
		}
		idsOf[key][d.WebhookID] = true
	}
	var keys []string
	for k, ids := range idsOf {
		if len(ids) > 1 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	announcedTwice = len(keys)
	for _, k := range keys {
		problems = append(problems, fmt.Sprintf("%s was announced %d times under different webhook-ids", k, len(idsOf[k])))
	}
	return len(byID), repeats, announcedTwice, problems
}

// WebhookIDs returns the distinct webhook-ids received.
func (r *Receiver) WebhookIDs() map[string]bool {
	ids := map[string]bool{}
	for _, d := range r.Deliveries() {
		ids[strings.ToLower(d.WebhookID)] = true
	}
	return ids
}
