package api

import (
	"slices"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// route is one endpoint: its method and path, its rules, its handler, and what the OpenAPI document
// says of it. Each resource's file opens with its table of routes; routes assembles them, so the
// whole API surface reads from one place and each route sits beside its handler.
type route struct {
	method, path string
	tag          string
	summary, doc string
	auth         bool
	// feature is the account feature the route needs, if any: an account without it gets 403
	// with the feature's own message. Only routes behind auth can need one.
	feature boxwatch.Feature
	// forbidden, when set, is the 403 an account without feature gets instead of the feature's.
	forbidden *httpError
	bucket    bucket
	params    []param
	// body and resp are values of the request and success response types, for the document.
	body    any
	status  int
	resp    any
	errors  []int
	handler handlerFunc
}

// routes lists every endpoint, resource by resource; the handler and the OpenAPI document are
// both built from it.
func (s *server) routes() []route {
	rd := jsonapi.Renderer{Carriers: s.cfg.Carriers, Ports: s.cfg.Ports}
	nr := jsonapi.NewNotificationRenderer(s.cfg.Store, s.cfg.Carriers, s.cfg.Ports)
	return slices.Concat(
		s.trackingRequestRoutes(rd),
		s.inferRoutes(),
		s.shipmentRoutes(rd),
		s.containerRoutes(rd),
		s.transportEventRoutes(rd),
		s.rawEventRoutes(rd),
		s.searchRoutes(rd),
		s.portRoutes(rd),
		s.vesselRoutes(),
		s.webhookRoutes(rd),
		s.notificationRoutes(rd, nr),
		s.partyRoutes(),
		s.definitionRoutes(),
		s.optionRoutes(),
		s.customFieldRoutes(),
		s.shippingLineRoutes(),
		s.metaRoutes(),
		s.cfg.testRoutes,
	)
}
