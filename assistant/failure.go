package assistant

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"regexp"
	"strings"

	"github.com/boxwatch/boxwatch/client"
)

// failed turns a failed API call into the error a tool answers: what went wrong, in the API's
// words, and what to do next. notFound is the advice for a 404 (which tool finds the right id);
// "" keeps the API's own words.
func failed(err error, notFound string) error {
	var e *client.Error
	if !errors.As(err, &e) {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return errors.New("the call was cancelled or took too long: try again")
		}
		return fmt.Errorf("boxwatch could not be reached (%v): check that it is running and that BOXWATCH_URL names it", err)
	}
	switch {
	case e.StatusCode == http.StatusUnauthorized:
		return errors.New("boxwatch refused the API key: check the key this MCP client sends (Authorization: Bearer KEY, or BOXWATCH_KEY for boxwatch mcp)")
	case e.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%s This account lacks the feature: its operator can enable it (boxwatch account create NAME --feature map)", e.Detail())
	case e.StatusCode == http.StatusNotFound && notFound != "":
		return errors.New(notFound)
	case e.StatusCode == http.StatusTooManyRequests:
		return fmt.Errorf("rate limited: %s", e.Detail())
	case e.StatusCode == http.StatusServiceUnavailable:
		return fmt.Errorf("boxwatch cannot answer right now (%s): try again in a few seconds", e.Detail())
	case e.StatusCode >= 500:
		return fmt.Errorf("boxwatch failed to answer (status %d, request id %s): try again; if it persists, give the request id to its operator", e.StatusCode, e.RequestID)
	}
	if e.StatusCode != http.StatusBadRequest && e.StatusCode != http.StatusUnprocessableEntity {
		return fmt.Errorf("boxwatch refused the call: %s", e.Detail())
	}
	var problems []string
	for _, o := range e.Errors {
		p := strings.TrimSuffix(o.Detail, ".")
		if p == "" {
			p = o.Title
		}
		if o.Source != nil && o.Source.Pointer != "" {
			p += " (" + path.Base(o.Source.Pointer) + ")"
		} else if o.Source != nil && o.Source.Parameter != "" {
			p += " (" + o.Source.Parameter + ")"
		}
		problems = append(problems, p)
	}
	return fmt.Errorf("boxwatch refused the call: %s. Correct the arguments and call again", strings.Join(problems, "; "))
}

// uuidShape is what boxwatch's ids look like.
var uuidShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// idOf is a resource the tools take by id, and how an assistant finds the id.
type idOf struct{ what, find string }

var (
	containerID    = idOf{"container", "find the id with search_container, from the container, bill of lading or booking number"}
	shipmentID     = idOf{"shipment", "find the id with search_container or list_shipments"}
	webhookID      = idOf{"webhook", "list_failed_deliveries names the webhook of each delivery"}
	notificationID = idOf{"webhook notification", "list_failed_deliveries lists the failed ones"}
)

// notFound is the advice for an id that names nothing of the account.
func (k idOf) notFound() string {
	return fmt.Sprintf("no %s of this account has that id: %s", k.what, k.find)
}

// check refuses an argument that cannot be one of boxwatch's ids, before any call: a number
// where an id belongs is the common mistake, and search finds the id.
func (k idOf) check(name, id string) error {
	if uuidShape.MatchString(id) {
		return nil
	}
	if strings.TrimSpace(id) == "" {
		return fmt.Errorf("%s is required: %s", name, k.find)
	}
	shown := id
	if len(shown) > 40 {
		shown = shown[:40] + "…"
	}
	return fmt.Errorf("%s %q is not a boxwatch id (a UUID such as 0b27a595-2d3c-4c52-9c8e-5a1f0c1e9d21): %s", name, shown, k.find)
}
