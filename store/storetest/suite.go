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
// Interface.Method (Store, Tx, WorkStore) or DB.Method for the extra methods of *store.DB. The
// Checklist test fails when a method of those interfaces, or an exported method of *store.DB, is
// covered by no test, so a method added without a test does not go unnoticed.
var conformance = []struct {
	name   string
	fn     func(t *testing.T, b Backend)
	covers []string
}{
	// accounts.go
	{"Accounts", withDB(testAccounts), []string{"Store.CreateAccount", "Store.AccountByName"}},
	{"APIKeys", withDB(testAPIKeys), []string{"Store.CreateAPIKey", "Store.APIKey"}},
	{"AccountList", withDB(testAccountList), []string{"Store.Accounts"}},
	{"RevokeAPIKey", withDB(testRevokeAPIKey), []string{"Store.APIKeys", "Store.RevokeAPIKey"}},
	{"APIKeyRevokedEverywhere", testAPIKeyRevokedEverywhere, []string{"Store.APIKey", "Store.RevokeAPIKey"}},
	{"PingAndClose", testPingAndClose, []string{"Store.Ping", "Store.Close", "DB.Dialect"}},
	{"MigrateTwice", testMigrateTwice, []string{"DB.SchemaVersion"}},
	{"ReadCacheAcrossStores", testReadCacheAcrossStores, []string{"DB.ReadCacheStats", "Store.TrackingRequest", "Store.Shipment",
		"Store.ShipmentsByID", "Store.Container", "Store.ShipmentContainers", "Store.ContainersOfShipments", "Store.TransportEventsOfContainers", "Store.TransportEvents"}},
	{"ReadCacheScoping", withDB(testReadCacheScoping), []string{"Store.TrackingRequest", "Store.Shipment", "Store.ShipmentsByID", "Store.Container",
		"Store.ShipmentContainers", "Store.ContainersOfShipments", "Store.TransportEventsOfContainers", "Store.TransportEvents"}},
	{"Backup", withDB(testBackup), []string{"DB.Backup"}},

	// trackingrequests.go
	{"TrackingRequestRoundTrip", withDB(testTrackingRequestRoundTrip), []string{"Store.CreateTrackingRequest", "Store.TrackingRequest"}},
	{"TrackingRequestScoping", withDB(testTrackingRequestScoping), []string{"Store.TrackingRequest", "Store.TrackingRequests", "Store.SetTrackingRequestRefNumbers"}},
	{"TrackingRequestDuplicate", withDB(testTrackingRequestDuplicate), []string{"Store.CreateTrackingRequest"}},
	{"TrackingRequestList", withDB(testTrackingRequestList), []string{"Store.TrackingRequests"}},
	{"TrackingRequestFilters", withDB(testTrackingRequestFilters), []string{"Store.TrackingRequests"}},
	{"TrackingRequestRefNumbers", withDB(testTrackingRequestRefNumbers), []string{"Store.SetTrackingRequestRefNumbers"}},
	{"TxTrackingRequests", withDB(testTxTrackingRequests), []string{"Tx.CreateTrackingRequest", "Tx.LockTrackingRequest", "Tx.SaveTrackingRequestState"}},

	// parties.go
	{"Parties", withDB(testParties), []string{"Store.CreateParty", "Store.Party", "Store.Parties"}},
	{"PartyCustomers", withDB(testPartyCustomers), []string{"Store.RenameParty", "Tx.InsertShipment", "Store.TrackingRequest"}},

	// customfields.go
	{"CustomFieldDefinitions", withDB(testCustomFieldDefinitions), []string{"Store.CreateCustomFieldDefinition", "Store.CustomFieldDefinition",
		"Store.CustomFieldDefinitionBySlug", "Store.CustomFieldDefinitions", "Store.UpdateCustomFieldDefinition", "Store.DeleteCustomFieldDefinition"}},
	{"CustomFieldOptions", withDB(testCustomFieldOptions), []string{"Store.CreateCustomFieldOption", "Store.CustomFieldOptions",
		"Store.CustomFieldOption", "Store.UpdateCustomFieldOption", "Store.DeleteCustomFieldOption"}},
	{"CustomFields", withDB(testCustomFields), []string{"Store.SetCustomField", "Store.CustomField", "Store.CustomFields", "Store.DeleteCustomField"}},
	{"TxCustomFields", withDB(testTxCustomFields), []string{"Tx.SetCustomField", "Store.CreateTrackingRequest", "Store.TrackingRequest"}},

	// terminals.go
	{"TransportEventValue", withDB(testTransportEventValue), []string{"Tx.SetTransportEventValue", "Tx.InsertTransportEvent", "Store.TransportEvent"}},
	{"Terminals", withDB(testTerminals), []string{"Tx.SaveTerminal", "Store.Terminal", "Store.TerminalsAtPorts"}},

	// shipments.go
	{"ShipmentRoundTrip", withDB(testShipmentRoundTrip), []string{"Tx.InsertShipment", "Tx.UpdateShipment", "Tx.LockShipment", "Tx.LockAccountShipment", "Store.Shipment"}},
	{"ShipmentScoping", withDB(testShipmentScoping), []string{"Store.Shipment", "Store.Shipments", "Store.ShipmentContainers", "Store.Container", "Store.Containers", "Store.TransportEvents", "Store.TransportEvent", "Tx.LockAccountShipment"}},
	{"ShipmentList", withDB(testShipmentList), []string{"Store.Shipments"}},
	{"ShipmentLabels", withDB(testShipmentLabels), []string{"Store.SetShipmentLabels"}},
	{"DueShipments", withDB(testDueShipments), []string{"WorkStore.DueShipments"}},
	{"ContainerRefNumbers", withDB(testContainerRefNumbers), []string{"Store.SetContainerRefNumbers", "Tx.SaveContainer", "Store.Container"}},
	{"Containers", withDB(testContainers), []string{"Tx.SaveContainer", "Tx.ShipmentContainers", "Store.ShipmentContainers", "Store.Container", "Store.Containers"}},
	{"TransportEvents", withDB(testTransportEvents), []string{"Tx.InsertTransportEvent", "Tx.TransportEventByKey", "Store.TransportEvents", "Store.TransportEvent"}},
	{"Vessels", withDB(testVessels), []string{"Tx.SaveVessel", "Store.Vessel"}},
	{"Events", withDB(testEvents), []string{"Tx.AppendEvent", "Store.Event", "DB.Events"}},

	// webhooks.go
	{"Webhooks", withDB(testWebhooks), []string{"Store.CreateWebhook", "Store.Webhook", "Store.Webhooks", "Store.UpdateWebhook"}},
	{"WebhookScoping", withDB(testWebhookScoping), []string{"Store.Webhook", "Store.Webhooks", "Store.UpdateWebhook", "Store.DeleteWebhook"}},
	{"DeleteWebhook", withDB(testDeleteWebhook), []string{"Store.DeleteWebhook"}},
	{"SaveWebhookState", withDB(testSaveWebhookState), []string{"Tx.SaveWebhookState"}},

	// notifications.go
	{"Notify", withDB(testNotify), []string{"Tx.Notify"}},
	{"NotificationReads", withDB(testNotificationReads), []string{"Store.Notification", "Store.Notifications", "WorkStore.NotificationAndWebhook", "Tx.LockNotification", "Tx.LockNotificationAndWebhook"}},
	{"NotificationList", withDB(testNotificationList), []string{"Store.Notifications"}},
	{"DeliveryOutcome", withDB(testDeliveryOutcome), []string{"Tx.SaveNotification", "Tx.AddDeliveryAttempt", "Store.DeliveryAttempts"}},
	{"RequeueNotifications", withDB(testRequeueNotifications), []string{"Tx.RequeueNotifications"}},
	{"DeliveryClaims", withDB(testDeliveryClaims), []string{"WorkStore.ClaimDueNotifications", "WorkStore.UnclaimNotification"}},
	{"ClaimBounds", withDB(testClaimBounds), []string{"WorkStore.ClaimDueNotifications"}},
	{"NotificationBacklog", withDB(testNotificationBacklog), []string{"WorkStore.NotificationBacklog"}},
	{"ClaimInSubjectOrder", withDB(testClaimInSubjectOrder), []string{"WorkStore.ClaimDueNotifications"}},
	{"UnclaimNotification", withDB(testUnclaimNotification), []string{"WorkStore.UnclaimNotification"}},

	// batch.go
	{"BatchReads", withDB(testBatchReads), []string{"Store.ShipmentsByID", "Store.ContainersOfShipments", "Store.TransportEventsOfContainers",
		"Store.VesselsByIMO", "Store.EventsByID", "Store.DeliveryAttemptsOf"}},
	{"CountStatements", withDB(testCountStatements), []string{"DB.CountStatements"}},

	// tx.go
	{"InTx", withDB(testInTx), []string{"WorkStore.InTx", "Tx.AfterCommit"}},
	{"InTxPanic", withDB(testInTxPanic), []string{"WorkStore.InTx", "Tx.AfterCommit"}},

	// concurrency.go
	{"TrackingRequestDuplicateConcurrent", withDB(testTrackingRequestDuplicateConcurrent), []string{"Store.CreateTrackingRequest", "Tx.CreateTrackingRequest"}},
	{"InsertTransportEventConcurrent", withDB(testInsertTransportEventConcurrent), []string{"Tx.InsertTransportEvent"}},
	{"AppendEventConcurrent", withDB(testAppendEventConcurrent), []string{"Tx.AppendEvent"}},
	{"ClaimDueNotificationsConcurrent", withDB(testClaimDueNotificationsConcurrent), []string{"WorkStore.ClaimDueNotifications"}},
	{"FirstSeenConcurrent", withDB(testFirstSeenConcurrent), []string{"DB.FirstSeen"}},
	{"IncrementConcurrent", withDB(testIncrementConcurrent), []string{"DB.Increment"}},

	// positions.go
	{"VesselIdentities", withDB(testVesselIdentities), []string{"PositionStore.SaveVesselIdentities", "Store.Vessel"}},
	{"SavePositions", withDB(testSavePositions), []string{"PositionStore.SavePositions", "PositionStore.VesselPositions"}},
	{"SavePositionsLarge", withDB(testSavePositionsLarge), []string{"PositionStore.SavePositions", "PositionStore.DeletePositionsBefore"}},
	{"LastPositions", withDB(testLastPositions), []string{"PositionStore.SaveLastPositions", "Store.Vessel"}},
	{"DeletePositionsBefore", withDB(testDeletePositionsBefore), []string{"PositionStore.DeletePositionsBefore"}},
	{"ActiveLegVessels", withDB(testActiveLegVessels), []string{"PositionStore.ActiveLegVessels"}},
	{"SavePositionsConcurrent", withDB(testSavePositionsConcurrent), []string{"PositionStore.SavePositions"}},
	{"PositionWritersConcurrent", withDB(testPositionWritersConcurrent), []string{"PositionStore.SavePositions",
		"PositionStore.SaveLastPositions", "PositionStore.SaveVesselIdentities"}},

	// memory.go
	{"FirstSeen", withDB(testFirstSeen), []string{"DB.FirstSeen"}},
	{"Increment", withDB(testIncrement), []string{"DB.Increment"}},
	{"RateLimiter", withDB(testRateLimiter), []string{"DB.Limiter"}},
	{"SweepRateLimits", withDB(testSweepRateLimits), []string{"DB.SweepRateLimits"}},

	// pool.go
	{"PoolStats", withDB(testPoolStats), []string{"DB.PoolStats"}},
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
	"ReadCacheLive":        "test hook of store's read cache tests",
	"ReadCacheListenerPID": "test hook of store's read cache tests",
	"ReadCacheNotified":    "test hook of store's read cache tests",
	"SetReadCacheHooks":    "test hook of store's read cache tests",
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
	for name, typ := range map[string]reflect.Type{
		"Store":         reflect.TypeFor[boxwatch.Store](),
		"Tx":            reflect.TypeFor[boxwatch.Tx](),
		"WorkStore":     reflect.TypeFor[boxwatch.WorkStore](),
		"PositionStore": reflect.TypeFor[boxwatch.PositionStore](),
		"DB":            reflect.TypeFor[*store.DB](),
	} {
		for m := range typ.Methods() {
			if name == "DB" && (notInSuite[m.Name] != "" || inInterfaces(m.Name)) {
				continue
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

// inInterfaces reports whether *store.DB has the method because it implements Store, WorkStore or
// PositionStore;
// the checklist names those by interface.
func inInterfaces(method string) bool {
	_, inStore := reflect.TypeFor[boxwatch.Store]().MethodByName(method)
	_, inWork := reflect.TypeFor[boxwatch.WorkStore]().MethodByName(method)
	_, inPositions := reflect.TypeFor[boxwatch.PositionStore]().MethodByName(method)
	return inStore || inWork || inPositions
}

func withDB(fn func(*testing.T, *store.DB)) func(*testing.T, Backend) {
	return func(t *testing.T, b Backend) { fn(t, b.Open(t)) }
}

var ctx = context.Background()

// base is a fixed time with microseconds, to show they survive a round trip.
var base = time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.UTC)

// at is base plus d.
func at(d time.Duration) time.Time { return base.Add(d) }
