package replicas_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/webhook/dispatch"
)

// claim is a delivery claim as the database holds it: when it was taken and until when it holds.
type claim struct{ at, until time.Time }

// liveClaims returns the delivery claims that hold now, by notification id.
func liveClaims(t *testing.T, db database) map[string]claim {
	t.Helper()
	claims := map[string]claim{}
	for _, line := range queryStrings(t, db, `SELECT CAST(id AS text) || ' ' || `+millis("claimed_at")+` || ' ' || `+millis("claimed_until")+`
		FROM webhook_notifications WHERE delivery_status = 'pending' AND claimed_until > now()`) {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("a claim read as %q", line)
		}
		claims[f[0]] = claim{at: parseMillis(t, f[1]), until: parseMillis(t, f[2])}
	}
	return claims
}

// millis is a timestamp column as text, in milliseconds since the epoch, or '-' when NULL.
func millis(col string) string {
	return `COALESCE(CAST(CAST(EXTRACT(EPOCH FROM ` + col + `) * 1000 AS bigint) AS text), '-')`
}

func parseMillis(t *testing.T, s string) time.Time {
	t.Helper()
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("a time read as %q", s)
	}
	return time.UnixMilli(ms)
}

// claimRecovery follows the delivery claims a killed replica held: those live at the kill whose
// delivery the receiver saw abandoned (its sender died before the answer). Each must be taken up
// by a survivor once it lapses, and not before: at most one poll of the dispatcher, plus the
// claim's renewal period as a margin for a loaded machine, after its lapse. So a dead replica's
// claims come back within the lease, a poll and that margin of its death (about 20 s).
type claimRecovery struct {
	killed  time.Time
	live    map[string]claim // every claim live at the kill
	dead    map[string]claim // the victim's among them
	retaken map[string]time.Time
	how     map[string]string // how the take-up was seen: claimed, or first attempted
	// abandoned counts the deliveries whose sender died before the answer.
	abandoned int
}

func newClaimRecovery(live map[string]claim, killed time.Time) *claimRecovery {
	return &claimRecovery{killed: killed, live: live, dead: map[string]claim{}, retaken: map[string]time.Time{}, how: map[string]string{}}
}

// poll notes the victim's claims among those abandoned so far, and when each was taken up.
func (r *claimRecovery) poll(t *testing.T, db database, abandoned map[string]bool) {
	t.Helper()
	r.abandoned = len(abandoned)
	for id := range abandoned {
		if c, ok := r.live[id]; ok {
			r.dead[id] = c
		}
	}
	for id, c := range r.dead {
		if _, ok := r.retaken[id]; ok {
			continue
		}
		f := strings.Fields(queryStrings(t, db, `SELECT delivery_status || ' ' || `+millis("claimed_at")+` FROM webhook_notifications WHERE id = $1`, id)[0])
		switch {
		case f[0] == "pending" && f[1] != "-" && !parseMillis(t, f[1]).Equal(c.at):
			r.retaken[id], r.how[id] = parseMillis(t, f[1]), "claimed"
		case f[0] != "pending":
			// Taken up and delivered between two polls: the attempt it logged came after the
			// claim, so its time is an upper bound on the take-up.
			first := queryStrings(t, db, `SELECT `+millis("min(attempted_at)")+` FROM webhook_notification_logs
				WHERE notification_id = $1 AND attempted_at >= $2`, id, db.at(r.killed))[0]
			if first != "-" {
				r.retaken[id], r.how[id] = parseMillis(t, first), "first attempted"
			}
		}
	}
}

// done says whether every claim of the victim's seen so far was taken up, a second after the
// kill (time enough for the receiver to see the victim's connections close).
func (r *claimRecovery) done() bool {
	return time.Since(r.killed) > time.Second && len(r.retaken) == len(r.dead)
}

// check fails the test for a claim taken up before it lapsed, or later than the bound, and logs
// each claim's recovery.
func (r *claimRecovery) check(t *testing.T, victim string) {
	t.Helper()
	lease := dispatch.DefaultClaimFor
	margin := lease / 3 // the renewal period: how late a live claim's renewal may come
	if len(r.dead) == 0 {
		t.Logf("%s had no claimed delivery in flight at its death (%d claims live in all replicas, %d deliveries abandoned): "+
			"claim recovery not measured this run", victim, len(r.live), r.abandoned)
		return
	}
	var lines []string
	var recovered []time.Duration
	for id, c := range r.dead {
		got, ok := r.retaken[id]
		if !ok {
			t.Errorf("the claim %s held on notification %s, lapsing %v after the kill, was never taken up", victim, id,
				c.until.Sub(r.killed).Round(time.Millisecond))
			continue
		}
		if got.Before(c.until) {
			t.Errorf("notification %s: the claim %s held was taken up %v before it lapsed", id, victim, c.until.Sub(got))
		}
		if limit := c.until.Add(dispatch.PollEvery + margin); got.After(limit) {
			t.Errorf("notification %s: the claim %s held was taken up %v after it lapsed, want within a poll (%v) and the renewal period (%v)",
				id, victim, got.Sub(c.until), dispatch.PollEvery, margin)
		}
		recovered = append(recovered, got.Sub(r.killed))
		lines = append(lines, fmt.Sprintf("%s lapsed %v after the kill, %s %v after it lapsed", id,
			c.until.Sub(r.killed).Round(time.Millisecond), r.how[id], got.Sub(c.until).Round(time.Millisecond)))
	}
	slices.Sort(recovered)
	slices.Sort(lines)
	if len(recovered) > 0 {
		t.Logf("%s held %d delivery claims at its death (of %d live in all replicas, lease %v): taken up by survivors %v–%v after the kill "+
			"(bound: each within a poll and %v of its lapse):\n  %s", victim, len(r.dead), len(r.live), lease,
			recovered[0].Round(time.Millisecond), recovered[len(recovered)-1].Round(time.Millisecond), margin, strings.Join(lines, "\n  "))
	}
}
