package api

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"

	segmentjson "github.com/segmentio/encoding/json"

	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/store"
)

// Rendered documents. With the store's read cache (either database), the documents of GET
// /v2/tracking_requests/{id}, /v2/shipments/{id} and /v2/containers/{id} are kept as bytes in the
// store's read cache (store/readcacherender.go), stamped with the cache's state of every row they
// were rendered from: the next read answers the bytes while the stamp holds, which is exactly while
// the cache would still answer each of those rows. Only requests without a query string are kept
// (include and the like change the document); a shipment's predicted arrival, which moves with
// the vessel's positions and not with the shipment's rows, is computed on every read and spliced
// in.

// renderStore is a store that keeps rendered documents: store.DB while its read cache
// answers. Every other store renders every time.
type renderStore interface {
	StampReads(keys ...store.ReadKey) store.ReadStamp
	ExtendStamp(prev store.ReadStamp, keys ...store.ReadKey) store.ReadStamp
	CachedRender(key, account string) (store.Render, bool)
	StoreRender(stamp store.ReadStamp, key, account string, parts store.Render)
}

// renderer is st's renderStore, or nil.
func renderer(st any) renderStore {
	rs, _ := st.(renderStore)
	return rs
}

// renderedKey is the key of the document a route answers to r, and whether the document may be
// kept: requests with a query string are not. The base URL is in the key since the self link
// holds it; the id is in lower case, as the store keys rows.
func renderedKey(r *http.Request, base func(*http.Request) string, route string) (string, bool) {
	if r.URL.RawQuery != "" || r.URL.ForceQuery {
		return "", false
	}
	return route + "\x00" + base(r) + "\x00" + strings.ToLower(r.PathValue("id")), true
}

// encodeResource is the body writeResource sends, in bytes of its own.
func encodeResource[R any](self string, res R, included []any) []byte {
	buf := bodyBuffers.Get().(*bytes.Buffer)
	defer putBodyBuffer(buf)
	encodeJSON(buf, jsonapi.Document[R]{Data: res, Included: included, Links: &jsonapi.Links{Self: self}})
	return bytes.Clone(buf.Bytes())
}

// writeParts answers 200 with the JSON:API document made of parts, as writeJSON answers it.
func writeParts(w http.ResponseWriter, parts ...[]byte) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	h := w.Header()
	h.Set("Content-Type", MediaType)
	h.Set("Content-Length", strconv.Itoa(n))
	w.WriteHeader(http.StatusOK)
	for _, p := range parts {
		w.Write(p)
	}
}

// predictedHole stands in a shipment's document for its predicted arrival, which is spliced in on
// every read: no shipment attribute holds a NUL.
const predictedHole = "\x00boxwatch:pod_predicted_arrival_at\x00"

// predictedMember is the member of the attributes that a predicted arrival adds, before its value.
var predictedMember = []byte(`,"pod_predicted_arrival_at":`)

// splitPredicted cuts a shipment's document rendered with predictedHole into what comes before
// its predicted arrival member and what comes after it, or says it cannot.
func splitPredicted(doc []byte) (head, tail []byte, ok bool) {
	hole, err := segmentjson.Append(append([]byte(nil), predictedMember...), predictedHole, 0)
	if err != nil {
		return nil, nil, false
	}
	i := bytes.Index(doc, hole)
	if i < 0 || bytes.Contains(doc[i+len(hole):], hole) {
		return nil, nil, false
	}
	return doc[:i:i], doc[i+len(hole):], true
}

// writeShipmentParts answers a shipment's document cut by splitPredicted, with predicted.
func writeShipmentParts(w http.ResponseWriter, head, tail []byte, predicted *string) {
	if predicted == nil {
		writeParts(w, head, tail)
		return
	}
	v, _ := segmentjson.Append(nil, *predicted, 0) // a string always encodes
	writeParts(w, head, predictedMember, v, tail)
}
