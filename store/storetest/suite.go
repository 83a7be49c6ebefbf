package storetest

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

// conformance is the suite and its checklist: each test with the store methods it covers, named
// Interface.Method by the interface that declares the method (the narrow store interfaces such as
// ShipmentStore, Store for Ping and Close, Tx, WorkStore, PositionStore), or DB.Method for the
// extra methods of *store.DB. The Checklist test fails when a method of those interfaces, or an
// exported method of *store.DB, is covered by no test, so a method added without a test does not
// go unnoticed.
var conformance = []struct {
	name   string
	fn     func(t *testing.T, b Backend)
	covers []string
}{
	// accounts.go
	{"Accounts", withDB(testAccounts), []string{"AccountStore.CreateAccount", "AccountStore.AccountByName"}},
	{"APIKeys", withDB(testAPIKeys), []string{"AccountStore.CreateAPIKey", "AccountStore.APIKey"}},
	{"AccountList", withDB(testAccountList), []string{"AccountStore.Accounts"}},
	{"RevokeAPIKey", withDB(testRevokeAPIKey), []string{"AccountStore.APIKeys", "AccountStore.RevokeAPIKey"}},
	{"APIKeyRevokedEverywhere", testAPIKeyRevokedEverywhere, []string{"AccountStore.APIKey", "AccountStore.RevokeAPIKey"}},
	{"PingAndClose", testPingAndClose, []string{"Store.Ping", "Store.Close", "DB.Dialect"}},
	{"MigrateTwice", testMigrateTwice, []string{"DB.SchemaVersion"}},
	{"ReadCacheAcrossStores", testReadCacheAcrossStores, []string{"DB.ReadCacheStats", "TrackingRequestStore.TrackingRequest", "ShipmentStore.Shipment",
		"ShipmentStore.ShipmentWithSnapshot", "TerminalStore.Terminal", "TerminalStore.TerminalsAtPorts", "CustomFieldStore.CustomFieldDefinition",
		"CustomFieldStore.CustomFieldOption", "ShipmentStore.ShipmentsByID", "ContainerStore.Container", "ContainerStore.ShipmentContainers", "ContainerStore.ContainersOfShipments", "ContainerStore.TransportEventsOfContainers", "ContainerStore.TransportEvents",
		"CustomFieldStore.CustomFieldOptions", "CustomFieldStore.CustomField", "WebhookStore.Webhook", "PartyStore.Party"}},
	{"RenderedDocuments", testRenderedDocuments, []string{"DB.StampReads", "DB.ExtendStamp", "DB.StoreRender", "DB.CachedRender", "ShipmentStore.Shipment"}},
	{"ReadCacheScoping", withDB(testReadCacheScoping), []string{"TrackingRequestStore.TrackingRequest", "ShipmentStore.Shipment", "ShipmentStore.ShipmentsByID", "ContainerStore.Container",
		"ContainerStore.ShipmentContainers", "ContainerStore.ContainersOfShipments", "ContainerStore.TransportEventsOfContainers", "ContainerStore.TransportEvents",
		"CustomFieldStore.CustomFieldOptions", "CustomFieldStore.CustomField", "WebhookStore.Webhook", "PartyStore.Party"}},
	{"Backup", withDB(testBackup), []string{"DB.Backup"}},

	// trackingrequests.go
	{"TrackingRequestRoundTrip", withDB(testTrackingRequestRoundTrip), []string{"TrackingRequestStore.CreateTrackingRequest", "TrackingRequestStore.TrackingRequest"}},
	{"TrackingRequestScoping", withDB(testTrackingRequestScoping), []string{"TrackingRequestStore.TrackingRequest", "TrackingRequestStore.TrackingRequests", "TrackingRequestStore.SetTrackingRequestRefNumbers"}},
	{"TrackingRequestDuplicate", withDB(testTrackingRequestDuplicate), []string{"TrackingRequestStore.CreateTrackingRequest"}},
	{"TrackingRequestList", withDB(testTrackingRequestList), []string{"TrackingRequestStore.TrackingRequests"}},
	{"TrackingRequestFilters", withDB(testTrackingRequestFilters), []string{"TrackingRequestStore.TrackingRequests"}},
	{"TrackingRequestRefNumbers", withDB(testTrackingRequestRefNumbers), []string{"TrackingRequestStore.SetTrackingRequestRefNumbers"}},
	{"TxTrackingRequests", withDB(testTxTrackingRequests), []string{"Tx.CreateTrackingRequest", "Tx.LockTrackingRequest", "Tx.SaveTrackingRequestState"}},
	{"TrackingRequestAutoDetect", withDB(testTrackingRequestAutoDetect), []string{"TrackingRequestStore.CreateTrackingRequest", "TrackingRequestStore.TrackingRequest",
		"TrackingRequestStore.TrackingRequests", "Tx.SaveTrackingRequestState"}},

	// parties.go
	{"Parties", withDB(testParties), []string{"PartyStore.CreateParty", "PartyStore.Party", "PartyStore.Parties"}},
	{"PartyCustomers", withDB(testPartyCustomers), []string{"PartyStore.RenameParty", "Tx.InsertShipment", "TrackingRequestStore.TrackingRequest"}},

	// customfields.go
	{"CustomFieldDefinitions", withDB(testCustomFieldDefinitions), []string{"CustomFieldStore.CreateCustomFieldDefinition", "CustomFieldStore.CustomFieldDefinition",
		"CustomFieldStore.CustomFieldDefinitionBySlug", "CustomFieldStore.CustomFieldDefinitions", "CustomFieldStore.UpdateCustomFieldDefinition", "CustomFieldStore.DeleteCustomFieldDefinition"}},
	{"CustomFieldOptions", withDB(testCustomFieldOptions), []string{"CustomFieldStore.CreateCustomFieldOption", "CustomFieldStore.CustomFieldOptions",
		"CustomFieldStore.CustomFieldOption", "CustomFieldStore.UpdateCustomFieldOption", "CustomFieldStore.DeleteCustomFieldOption"}},
	{"CustomFields", withDB(testCustomFields), []string{"CustomFieldStore.SetCustomField", "CustomFieldStore.CustomField", "CustomFieldStore.CustomFields", "CustomFieldStore.DeleteCustomField"}},
	{"TxCustomFields", withDB(testTxCustomFields), []string{"Tx.SetCustomField", "TrackingRequestStore.CreateTrackingRequest", "TrackingRequestStore.TrackingRequest"}},

	// terminals.go
	{"TransportEventValue", withDB(testTransportEventValue), []string{"Tx.SetTransportEventValue", "Tx.InsertTransportEvent", "ContainerStore.TransportEvent"}},
	{"Terminals", withDB(testTerminals), []string{"Tx.SaveTerminal", "TerminalStore.Terminal", "TerminalStore.TerminalsAtPorts"}},
	{"ListedTerminals", withDB(testListedTerminals), []string{"Tx.SaveTerminal", "TerminalStore.Terminal", "TerminalStore.TerminalByRef"}},
	{"DueTerminalChecks", withDB(testDueTerminalChecks), []string{"WorkStore.DueTerminalChecks", "WorkStore.ContainerAndShipment", "Tx.LockContainer", "Tx.SaveContainer"}},

	// shipments.go
	{"ShipmentRoundTrip", withDB(testShipmentRoundTrip), []string{"Tx.InsertShipment", "Tx.UpdateShipment", "Tx.LockShipment", "Tx.LockAccountShipment", "ShipmentStore.Shipment",
		"ShipmentStore.ShipmentWithSnapshot"}},
	{"ShipmentScoping", withDB(testShipmentScoping), []string{"ShipmentStore.Shipment", "ShipmentStore.Shipments", "ContainerStore.ShipmentContainers", "ContainerStore.Container", "ContainerStore.Containers", "ContainerStore.TransportEvents", "ContainerStore.TransportEvent", "Tx.LockAccountShipment"}},
	{"ShipmentList", withDB(testShipmentList), []string{"ShipmentStore.Shipments"}},
	{"ShipmentLabels", withDB(testShipmentLabels), []string{"ShipmentStore.SetShipmentLabels"}},
	{"DueShipments", withDB(testDueShipments), []string{"WorkStore.DueShipments"}},
	{"ContainerRefNumbers", withDB(testContainerRefNumbers), []string{"ContainerStore.SetContainerRefNumbers", "Tx.SaveContainer", "ContainerStore.Container"}},
	{"Containers", withDB(testContainers), []string{"Tx.SaveContainer", "Tx.ShipmentContainers", "ContainerStore.ShipmentContainers", "ContainerStore.Container", "ContainerStore.Containers"}},
	{"Inland", withDB(testInland), []string{"Tx.UpdateShipment", "Tx.SaveContainer", "ShipmentStore.Shipment", "ContainerStore.Container", "ContainerStore.ShipmentContainers"}},
	{"RecordLookup", withDB(testRecordLookup), []string{"Tx.RecordLookup", "Tx.SaveContainer", "ContainerStore.Container", "ContainerStore.ShipmentContainers"}},
	{"TransportEvents", withDB(testTransportEvents), []string{"Tx.InsertTransportEvent", "Tx.TransportEventByKey", "ContainerStore.TransportEvents", "ContainerStore.TransportEvent"}},
	{"Vessels", withDB(testVessels), []string{"Tx.SaveVessel", "VesselStore.Vessel"}},
	{"Events", withDB(testEvents), []string{"Tx.AppendEvent", "EventStore.Event", "DB.Events"}},

	// webhooks.go
	{"Webhooks", withDB(testWebhooks), []string{"WebhookStore.CreateWebhook", "WebhookStore.Webhook", "WebhookStore.Webhooks", "WebhookStore.UpdateWebhook"}},
	{"WebhookScoping", withDB(testWebhookScoping), []string{"WebhookStore.Webhook", "WebhookStore.Webhooks", "WebhookStore.UpdateWebhook", "WebhookStore.DeleteWebhook"}},
	{"DeleteWebhook", withDB(testDeleteWebhook), []string{"WebhookStore.DeleteWebhook"}},
	{"SaveWebhookState", withDB(testSaveWebhookState), []string{"Tx.SaveWebhookState"}},

	// notifications.go
	{"Notify", withDB(testNotify), []string{"Tx.Notify"}},
	{"NotificationReads", withDB(testNotificationReads), []string{"NotificationStore.Notification", "NotificationStore.Notifications", "WorkStore.NotificationAndWebhook", "Tx.LockNotification", "Tx.LockNotificationAndWebhook"}},
	{"NotificationList", withDB(testNotificationList), []string{"NotificationStore.Notifications"}},
	{"DeliveryOutcome", withDB(testDeliveryOutcome), []string{"Tx.SaveNotification", "Tx.AddDeliveryAttempt", "NotificationStore.DeliveryAttempts"}},
	{"RequeueNotifications", withDB(testRequeueNotifications), []string{"Tx.RequeueNotifications"}},
	{"DeliveryClaims", withDB(testDeliveryClaims), []string{"WorkStore.ClaimDueNotifications", "WorkStore.UnclaimNotification"}},
	{"ClaimBounds", withDB(testClaimBounds), []string{"WorkStore.ClaimDueNotifications"}},
	{"NotificationBacklog", withDB(testNotificationBacklog), []string{"WorkStore.NotificationBacklog"}},
	{"ClaimInSubjectOrder", withDB(testClaimInSubjectOrder), []string{"WorkStore.ClaimDueNotifications"}},
	{"UnclaimNotification", withDB(testUnclaimNotification), []string{"WorkStore.UnclaimNotification"}},
	{"RenewClaims", withDB(testRenewClaims), []string{"WorkStore.RenewClaims", "WorkStore.ClaimDueNotifications"}},
	{"ClaimedDeliveries", withDB(testClaimedDeliveries), []string{"WorkStore.ClaimDueDeliveries", "WorkStore.RecordDelivered"}},
	{"RecordDeliveredAtOnce", withDB(testRecordDeliveredAtOnce), []string{"WorkStore.RecordDelivered"}},
	{"SubjectQueue", withDB(testSubjectQueue), []string{"Tx.Notify", "Tx.SaveNotification", "WorkStore.ClaimDueNotifications"}},
	{"ClaimFailingBudget", withDB(testClaimFailingBudget), []string{"WorkStore.ClaimDueNotifications"}},

	// batch.go
	{"BatchReads", withDB(testBatchReads), []string{"ShipmentStore.ShipmentsByID", "ContainerStore.ContainersOfShipments", "ContainerStore.TransportEventsOfContainers",
		"VesselStore.VesselsByIMO", "EventStore.EventsByID", "NotificationStore.DeliveryAttemptsOf"}},
	{"CountStatements", withDB(testCountStatements), []string{"DB.CountStatements"}},
	{"RowsByID", withDB(testRowsByID), []string{"DB.TrackingRequestsByID", "DB.ContainersByID"}},

	// pageids.go
	{"PageIDs", withDB(testPageIDs), []string{"DB.TrackingRequestIDs", "DB.ShipmentIDs", "DB.ContainerIDs", "TrackingRequestStore.TrackingRequests",
		"ShipmentStore.Shipments", "ContainerStore.Containers"}},
	{"CachedRenders", testCachedRenders, []string{"DB.CachedRenders", "DB.StampReads", "DB.StoreRender"}},

	// tx.go
	{"InTx", withDB(testInTx), []string{"WorkStore.InTx", "Tx.AfterCommit"}},
	{"InTxPanic", withDB(testInTxPanic), []string{"WorkStore.InTx", "Tx.AfterCommit"}},

	// concurrency.go
	{"ListTotals", withDB(testListTotals), []string{"TrackingRequestStore.TrackingRequests", "ShipmentStore.Shipments", "ContainerStore.Containers"}},
	{"ListTotalsConcurrent", withDB(testListTotalsConcurrent), []string{"TrackingRequestStore.TrackingRequests", "ShipmentStore.Shipments",
		"ContainerStore.Containers", "RetentionStore.FoldListCounts"}},
	{"ListTotalsFiltered", withDB(testListTotalsFiltered), []string{"TrackingRequestStore.TrackingRequests"}},
	{"TrackingRequestDuplicateConcurrent", withDB(testTrackingRequestDuplicateConcurrent), []string{"TrackingRequestStore.CreateTrackingRequest", "Tx.CreateTrackingRequest"}},
	{"InsertTransportEventConcurrent", withDB(testInsertTransportEventConcurrent), []string{"Tx.InsertTransportEvent"}},
	{"AppendEventConcurrent", withDB(testAppendEventConcurrent), []string{"Tx.AppendEvent"}},
	{"ClaimDueNotificationsConcurrent", withDB(testClaimDueNotificationsConcurrent), []string{"WorkStore.ClaimDueNotifications"}},
	{"FirstSeenConcurrent", withDB(testFirstSeenConcurrent), []string{"DB.FirstSeen"}},
	{"IncrementConcurrent", withDB(testIncrementConcurrent), []string{"DB.Increment"}},

	// positions.go
	{"VesselIdentities", withDB(testVesselIdentities), []string{"PositionStore.SaveVesselIdentities", "VesselStore.Vessel"}},
	{"SavePositions", withDB(testSavePositions), []string{"PositionStore.SavePositions", "PositionStore.VesselPositions"}},
	{"SavePositionsLarge", withDB(testSavePositionsLarge), []string{"PositionStore.SavePositions", "RetentionStore.DeletePositionsBefore"}},
	{"LastPositions", withDB(testLastPositions), []string{"PositionStore.SaveLastPositions", "VesselStore.Vessel"}},
	{"DeletePositionsBefore", withDB(testDeletePositionsBefore), []string{"RetentionStore.DeletePositionsBefore"}},

	// retention.go
	{"DeleteFinishedNotifications", withDB(testDeleteFinishedNotifications), []string{"RetentionStore.DeleteFinishedNotifications"}},
	{"DeleteEventsBefore", withDB(testDeleteEventsBefore), []string{"RetentionStore.DeleteEventsBefore"}},
	{"ActiveLegVessels", withDB(testActiveLegVessels), []string{"PositionStore.ActiveLegVessels"}},
	{"ActiveLegVesselsArrivals", withDB(testActiveLegVesselsArrivals), []string{"PositionStore.ActiveLegVessels", "Tx.UpdateShipment"}},
	{"ActiveLegVesselsStoppedOrDeleted", withDB(testActiveLegVesselsStoppedOrDeleted), []string{"PositionStore.ActiveLegVessels",
		"Tx.UpdateShipment", "Tx.InsertShipment"}},
	{"ActiveLegVesselsSharedVessel", withDB(testActiveLegVesselsSharedVessel), []string{"PositionStore.ActiveLegVessels", "Tx.UpdateShipment"}},
	{"VesselArrivals", withDB(testVesselArrivals), []string{"PositionStore.VesselArrivals"}},
	{"SavePositionsConcurrent", withDB(testSavePositionsConcurrent), []string{"PositionStore.SavePositions"}},
	{"IdentitiesBesideLookups", withDB(testIdentitiesBesideLookups), []string{"PositionStore.SaveVesselIdentities", "Tx.SaveVessel"}},
	{"PositionWritersConcurrent", withDB(testPositionWritersConcurrent), []string{"PositionStore.SavePositions",
		"PositionStore.SaveLastPositions", "PositionStore.SaveVesselIdentities"}},

	// memory.go
	{"FirstSeen", withDB(testFirstSeen), []string{"DB.FirstSeen"}},
	{"Increment", withDB(testIncrement), []string{"DB.Increment"}},
	{"RateLimiter", withDB(testRateLimiter), []string{"DB.Limiter"}},
	{"SweepRateLimits", withDB(testSweepRateLimits), []string{"DB.SweepRateLimits"}},

	// pool.go
	{"PoolStats", withDB(testPoolStats), []string{"DB.PoolStats"}},
	// caches.go
	{"CacheStats", withDB(testCacheStats), []string{"DB.CacheStats"}},
	{"KeyCacheBound", testKeyCacheBound, []string{"DB.CacheStats", "AccountStore.APIKey"}},
	// limiter.go
	{"LimiterReplicas", testLimiterReplicas, []string{"DB.Limiter"}},
	{"LimiterIdleReplica", testLimiterIdleReplica, []string{"DB.Limiter", "DB.NewLimiter"}},
	{"LimiterRollover", testLimiterRollover, []string{"DB.Limiter"}},
}

// notInSuite are the exported methods of *store.DB the suite leaves to others, with the reason.
var notInSuite = map[string]string{
	"SQLWriter": "plumbing for the job queue, exercised by the queue's tests",
	"Pool":      "plumbing for the job queue, exercised by the queue's tests",
	// The read cache's test hooks (store/export_test.go), there only when store's own tests run them.
	"ReadCacheLive":              "test hook of store's read cache tests",
	"ReadCacheListenerPID":       "test hook of store's read cache tests",
	"ReadCacheNotified":          "test hook of store's read cache tests",
	"SetReadCacheHooks":          "test hook of store's read cache tests",
	"DeafenReadCache":            "test hook of store's read cache tests",
	"RunStatement":               "test hook of store's statement cache tests",
	"RunMigration":               "test hook of store's migration tests",
	"ClaimPlan":                  "test hook of store's claim cost test (claim_test.go)",
	"HoldBackgroundConnections":  "test hook of store's connection lanes test (lanes_test.go)",
	"ActiveLegVesselsFromRoutes": "the route scan active_legs replaced: the benchmark's baseline and the migration test's oracle",
}

// Run is the conformance suite: every behaviour boxwatch relies on from a store, run on one
// backend. Each test opens its own database, so they run in parallel.
func Run(t *testing.T, b Backend) {
	t.Run("Checklist", testChecklist)
	for _, tt := range conformance {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, b)
		})
	}
}

func testChecklist(t *testing.T) {
	covered := map[string]bool{}
	for _, tt := range conformance {
		for _, m := range tt.covers {
			covered[m] = true
		}
	}
	var want []string
	for name, typ := range checkedTypes {
		for m := range typ.Methods() {
			if name == "DB" && (notInSuite[m.Name] != "" || inInterfaces(m.Name)) {
				continue
			}
			if name == "Store" && inNarrowInterface(m.Name) {
				continue // named by the narrow interface that declares it
			}
			want = append(want, name+"."+m.Name)
		}
	}
	slices.Sort(want)
	for _, m := range want {
		if !covered[m] {
			t.Errorf("%s is covered by no conformance test", m)
		}
		delete(covered, m)
	}
	for m := range covered {
		t.Errorf("the checklist names %s, which is no method of the store", m)
	}
}

// checkedTypes are the interfaces the checklist names methods by, and *store.DB for its extras.
// Store itself contributes only the methods no narrow interface declares (Ping, Close).
var checkedTypes = map[string]reflect.Type{
	"Store":                reflect.TypeFor[boxwatch.Store](),
	"AccountStore":         reflect.TypeFor[boxwatch.AccountStore](),
	"TrackingRequestStore": reflect.TypeFor[boxwatch.TrackingRequestStore](),
	"ShipmentStore":        reflect.TypeFor[boxwatch.ShipmentStore](),
	"ContainerStore":       reflect.TypeFor[boxwatch.ContainerStore](),
	"VesselStore":          reflect.TypeFor[boxwatch.VesselStore](),
	"TerminalStore":        reflect.TypeFor[boxwatch.TerminalStore](),
	"EventStore":           reflect.TypeFor[boxwatch.EventStore](),
	"WebhookStore":         reflect.TypeFor[boxwatch.WebhookStore](),
	"NotificationStore":    reflect.TypeFor[boxwatch.NotificationStore](),
	"PartyStore":           reflect.TypeFor[boxwatch.PartyStore](),
	"CustomFieldStore":     reflect.TypeFor[boxwatch.CustomFieldStore](),
	"Tx":                   reflect.TypeFor[boxwatch.Tx](),
	"WorkStore":            reflect.TypeFor[boxwatch.WorkStore](),
	"PositionStore":        reflect.TypeFor[boxwatch.PositionStore](),
	"RetentionStore":       reflect.TypeFor[boxwatch.RetentionStore](),
	"DB":                   reflect.TypeFor[*store.DB](),
}

// inNarrowInterface reports whether one of Store's narrow interfaces declares the method.
func inNarrowInterface(method string) bool {
	for name, typ := range checkedTypes {
		if _, ok := typ.MethodByName(method); ok && typ.Kind() == reflect.Interface && name != "Store" && name != "Tx" && name != "WorkStore" && name != "PositionStore" {
			return true
		}
	}
	return false
}

// inInterfaces reports whether *store.DB has the method because it implements Store, WorkStore,
// PositionStore or RetentionStore; the checklist names those by interface.
func inInterfaces(method string) bool {
	for _, typ := range []reflect.Type{checkedTypes["Store"], checkedTypes["WorkStore"], checkedTypes["PositionStore"], checkedTypes["RetentionStore"]} {
		if _, ok := typ.MethodByName(method); ok {
			return true
		}
	}
	return false
}

func withDB(fn func(*testing.T, *store.DB)) func(*testing.T, Backend) {
	return func(t *testing.T, b Backend) { fn(t, b.Open(t)) }
}

var ctx = context.Background()

// base is a fixed time with microseconds, to show they survive a round trip.
var base = time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.UTC)

// at is base plus d.
func at(d time.Duration) time.Time { return base.Add(d) }
