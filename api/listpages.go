package api

import (
	"bytes"
	"context"
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/store"
)

// Pages made of fragments. With the store's read cache (either database), a page of tracking
// requests, shipments or containers is answered from each resource's JSON kept in the read cache
// (a fragment), stamped as the rendered documents are (rendered.go) with the cache's state of
// every row the resource shows, taken before those rows were read. The page's statement reads
// only its ids and its total; the resources whose fragment is missing or no longer holds are read
// in one batch per kind (or, when they are most of the page, by the list's own statement),
// rendered, kept, and spliced in. A fragment is the resource exactly as
// the list renders it, and is answered only while the cache would answer every row it shows: the
// page is the one the list would render, no staler than the objects the cache serves. Lists asked
// to include more than they include by default are rendered every time, as they are without the
// read cache.

// pageStore lists pages as ids and reads what their resources show in batches: store.DB.
type pageStore interface {
	renderStore
	CachedRenders(keys []string, account string) []store.Render
	ReadCacheStats() store.ReadCacheStats
	TrackingRequestIDs(ctx context.Context, accountID string, f boxwatch.TrackingRequestFilter, p boxwatch.Page) ([]string, boxwatch.Total, error)
	ShipmentIDs(ctx context.Context, accountID string, f boxwatch.ShipmentFilter, p boxwatch.Page) ([]string, boxwatch.Total, error)
	ContainerIDs(ctx context.Context, accountID string, f boxwatch.ContainerFilter, p boxwatch.Page) ([]string, boxwatch.Total, error)
	TrackingRequests(ctx context.Context, accountID string, f boxwatch.TrackingRequestFilter, p boxwatch.Page) ([]boxwatch.TrackingRequest, boxwatch.Total, error)
	Shipments(ctx context.Context, accountID string, f boxwatch.ShipmentFilter, p boxwatch.Page) ([]boxwatch.Shipment, boxwatch.Total, error)
	Containers(ctx context.Context, accountID string, f boxwatch.ContainerFilter, p boxwatch.Page) ([]boxwatch.Container, boxwatch.Total, error)
	TrackingRequestsByID(ctx context.Context, accountID string, ids []string) (map[string]boxwatch.TrackingRequest, error)
	ShipmentsByID(ctx context.Context, accountID string, ids []string) (map[string]boxwatch.Shipment, error)
	ContainersByID(ctx context.Context, accountID string, ids []string) (map[string]boxwatch.Container, error)
	ContainersOfShipments(ctx context.Context, accountID string, shipmentIDs []string) (map[string][]boxwatch.Container, error)
	TransportEventsOfContainers(ctx context.Context, accountID string, containerIDs []string) (map[string][]boxwatch.TransportEvent, error)
}

// pager is st's pageStore, or nil.
func pager(st any) pageStore {
	ps, _ := st.(pageStore)
	return ps
}

// fragmentPage is a page of a listing made of fragments: its resources and the objects they
// include, each as its JSON, in order, and how many records match.
type fragmentPage struct {
	data, included [][]byte
	total          boxwatch.Total
}

// pageFragments assembles the page of r from fragments, or says it cannot (nothing kept, an
// include that is rendered every time, a row gone since the page was listed): the list then
// renders it.
type pageFragments func(r *http.Request, page boxwatch.Page) (fragmentPage, bool, error)

// handleFragmentList is handleList answering the pages fragments assembles; with nil fragments,
// it is handleList.
func handleFragmentList[R any](pageLinks pageLinker, fragments pageFragments, load func(r *http.Request, page boxwatch.Page) (listPage[R], error)) handlerFunc {
	rendered := handleList(pageLinks, load)
	if fragments == nil {
		return rendered
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		page, err := pageParams(r.URL.Query())
		if err != nil {
			return err
		}
		fp, ok, err := fragments(r, page)
		if err != nil {
			return err
		}
		if !ok {
			return rendered(w, r)
		}
		l, m := pageLinks(r, page, fp.total)
		m.Size = len(fp.data)
		writeFragments(w, l, m, fp)
		return nil
	}
}

// emptyData is how a list's document begins when its data is empty: data is its first member,
// included (omitted when empty) its second.
var emptyData = []byte(`{"data":[]`)

// writeFragments answers the page fp with its links and meta, as handleList answers it.
func writeFragments(w http.ResponseWriter, l *jsonapi.Links, m *jsonapi.Meta, fp fragmentPage) {
	buf := bodyBuffers.Get().(*bytes.Buffer)
	defer putBodyBuffer(buf)
	// The document without data or included, around which the fragments are written.
	rest, ok := bytes.CutPrefix(appendJSON(nil, jsonapi.Document[[]struct{}]{Data: []struct{}{}, Links: l, Meta: m}), emptyData)
	if !ok {
		panic("api: a list document does not begin with its data")
	}
	n := len(rest) + 32
	for _, f := range fp.data {
		n += len(f) + 1
	}
	for _, f := range fp.included {
		n += len(f) + 1
	}
	buf.Grow(n)
	buf.Write(emptyData[:len(emptyData)-1])
	joinFragments(buf, fp.data)
	if len(fp.included) > 0 {
		buf.WriteString(`,"included":[`)
		joinFragments(buf, fp.included)
	}
	buf.Write(rest)
	buf.WriteByte('\n')
	writeParts(w, buf.Bytes())
}

// joinFragments writes fragments as the rest of a JSON array, closing it.
func joinFragments(buf *bytes.Buffer, fragments [][]byte) {
	for i, f := range fragments {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(f)
	}
	buf.WriteByte(']')
}

// inOrder returns the fragment of each of ids, in order, or false when one is missing.
func inOrder(ids []string, fragments map[string]store.Render) ([][]byte, bool) {
	out := make([][]byte, len(ids))
	for i, id := range ids {
		f, ok := fragments[id]
		if !ok {
			return nil, false
		}
		out[i] = f.Parts[0]
	}
	return out, true
}

// fragmentKey is the key of the fragment of kind for id. Resources link to themselves by path
// alone, so one fragment serves every base URL.
func fragmentKey(kind, id string) string { return "fragment\x00" + kind + "\x00" + id }

// rendered is what a kind's render made of the ids without a fragment: for each it found, the
// id's index among them, its resource, and the value the page needs of it besides its JSON.
type rendered[R any] struct {
	at     []int
	res    []R
	values []any
}

func (r *rendered[R]) add(at int, res R, value any) {
	r.at, r.res, r.values = append(r.at, at), append(r.res, res), append(r.values, value)
}

// fragmentsOf returns, by id, the fragment of kind kept for acct of each of ids, or else the one
// render makes of it, which it keeps. The stamps render is given are those of readKeys(id) for
// each id it must render (missing), taken before it reads anything; render extends them with the
// keys of the rows it reads after it learns which (a container's shipment), before it reads them.
// An id render does not add has no fragment.
func fragmentsOf[R any](ps pageStore, kind, acct string, ids []string, readKeys func(id string) []store.ReadKey,
	render func(missing []string, stamps []store.ReadStamp, out *rendered[R]) error) (map[string]store.Render, error) {
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = fragmentKey(kind, id)
	}
	found := make(map[string]store.Render, len(ids))
	var missing, missingKeys []string
	for i, f := range ps.CachedRenders(keys, acct) {
		if f.Parts != nil {
			found[ids[i]] = f
		} else {
			missing, missingKeys = append(missing, ids[i]), append(missingKeys, keys[i])
		}
	}
	if len(missing) == 0 {
		return found, nil
	}
	stamps := make([]store.ReadStamp, len(missing))
	for i, id := range missing {
		stamps[i] = ps.StampReads(readKeys(id)...)
	}
	out := rendered[R]{res: make([]R, 0, len(missing))}
	if err := render(missing, stamps, &out); err != nil {
		return nil, err
	}
	// Each resource is encoded into one scratch buffer and copied out at its size: a fragment
	// occupies what it weighs in the cache, and a page makes no garbage of growing buffers.
	var scratch []byte
	for j, i := range out.at {
		scratch = appendJSON(scratch[:0], &out.res[j])
		f := store.Render{Parts: [][]byte{bytes.Clone(scratch)}, Value: out.values[j]}
		ps.StoreRender(stamps[i], missingKeys[i], acct, f)
		found[missing[i]] = f
	}
	return found, nil
}

// rowsOf reads the rows of missing, the ids of a page without a fragment, keyed by id: by id,
// or, when they are most of the page, by page, the page's own statement (nil: none). The page's
// statement is the one the list runs without fragments, so that a page with nothing kept costs
// what it costs without them: a batch read by id would also copy every row into the read cache.
func rowsOf[T any](ids, missing []string, byID func(ids []string) (map[string]T, error), page func() ([]T, boxwatch.Total, error), id func(T) string) (map[string]T, error) {
	if page == nil || 2*len(missing) <= len(ids) {
		return byID(missing)
	}
	list, _, err := page()
	out := make(map[string]T, len(list))
	for _, v := range list {
		out[id(v)] = v
	}
	return out, err
}

// shipmentFragments are the fragments of shipments as the shipments list renders them (and the
// tracking requests list includes them): each shows the shipment's row and its containers'. page
// reads the page of ids, if they are one (rowsOf).
func shipmentFragments(ctx context.Context, ps pageStore, rd jsonapi.Renderer, acct string, ids []string,
	page func() ([]boxwatch.Shipment, boxwatch.Total, error)) (map[string]store.Render, error) {
	keys := func(id string) []store.ReadKey {
		return []store.ReadKey{store.ShipmentRead(id), store.ShipmentContainersRead(id)}
	}
	return fragmentsOf(ps, "shipment", acct, ids, keys, func(missing []string, _ []store.ReadStamp, out *rendered[jsonapi.ShipmentResource]) error {
		shipments, err := rowsOf(ids, missing, func(ids []string) (map[string]boxwatch.Shipment, error) { return ps.ShipmentsByID(ctx, acct, ids) },
			page, func(s boxwatch.Shipment) string { return s.ID })
		if err != nil {
			return err
		}
		containers, err := ps.ContainersOfShipments(ctx, acct, missing)
		if err != nil {
			return err
		}
		for i, id := range missing {
			if s, ok := shipments[id]; ok {
				out.add(i, rd.Shipment(s, containers[id]), nil)
			}
		}
		return nil
	})
}

// containerFragments are the fragments of containers as the containers list renders them: each
// shows the container's row, its transport events and its shipment's (for the port of
// discharge). page reads the page of ids (rowsOf).
func containerFragments(ctx context.Context, ps pageStore, rd jsonapi.Renderer, acct string, ids []string,
	page func() ([]boxwatch.Container, boxwatch.Total, error)) (map[string]store.Render, error) {
	keys := func(id string) []store.ReadKey {
		return []store.ReadKey{store.ContainerRead(id), store.ContainerEventsRead(id)}
	}
	return fragmentsOf(ps, "container", acct, ids, keys, func(missing []string, stamps []store.ReadStamp, out *rendered[jsonapi.ContainerResource]) error {
		containers, err := rowsOf(ids, missing, func(ids []string) (map[string]boxwatch.Container, error) { return ps.ContainersByID(ctx, acct, ids) },
			page, func(c boxwatch.Container) string { return c.ID })
		if err != nil {
			return err
		}
		var shipmentIDs []string
		for i, id := range missing {
			if c, ok := containers[id]; ok {
				stamps[i] = ps.ExtendStamp(stamps[i], store.ShipmentRead(c.ShipmentID))
				shipmentIDs = append(shipmentIDs, c.ShipmentID)
			}
		}
		shipments, err := ps.ShipmentsByID(ctx, acct, shipmentIDs)
		if err != nil {
			return err
		}
		events, err := ps.TransportEventsOfContainers(ctx, acct, missing)
		if err != nil {
			return err
		}
		for i, id := range missing {
			if c, ok := containers[id]; ok {
				pod, _ := shipments[c.ShipmentID].POD()
				out.add(i, rd.Container(c, pod, events[c.ID]), nil)
			}
		}
		return nil
	})
}

// trackingRequestFragments are the fragments of tracking requests as their list renders them,
// each with the id of the shipment it tracks ("" when none) as its value: each shows the request's
// row alone. page reads the page of ids (rowsOf).
func trackingRequestFragments(ctx context.Context, ps pageStore, acct string, ids []string,
	page func() ([]boxwatch.TrackingRequest, boxwatch.Total, error)) (map[string]store.Render, error) {
	keys := func(id string) []store.ReadKey { return []store.ReadKey{store.TrackingRequestRead(id)} }
	return fragmentsOf(ps, "tracking_request", acct, ids, keys, func(missing []string, _ []store.ReadStamp, out *rendered[jsonapi.TrackingRequestResource]) error {
		trs, err := rowsOf(ids, missing, func(ids []string) (map[string]boxwatch.TrackingRequest, error) {
			return ps.TrackingRequestsByID(ctx, acct, ids)
		},
			page, func(tr boxwatch.TrackingRequest) string { return tr.ID })
		if err != nil {
			return err
		}
		for i, id := range missing {
			if tr, ok := trs[id]; ok {
				out.add(i, jsonapi.TrackingRequest(tr), tr.ShipmentID)
			}
		}
		return nil
	})
}

// shipmentPage is the shipments list's pageFragments, or nil when ps is.
func shipmentPage(ps pageStore, rd jsonapi.Renderer) pageFragments {
	if ps == nil {
		return nil
	}
	return func(r *http.Request, page boxwatch.Page) (fragmentPage, bool, error) {
		inc, f, err := shipmentListQuery(r.URL.Query())
		if err != nil || len(inc) > 0 || !ps.ReadCacheStats().Live {
			return fragmentPage{}, false, err
		}
		acct := account(r).ID
		ids, total, err := ps.ShipmentIDs(r.Context(), acct, f, page)
		if err != nil {
			return fragmentPage{}, false, err
		}
		shipments, err := shipmentFragments(r.Context(), ps, rd, acct, ids, func() ([]boxwatch.Shipment, boxwatch.Total, error) {
			return ps.Shipments(r.Context(), acct, f, page)
		})
		if err != nil {
			return fragmentPage{}, false, err
		}
		data, ok := inOrder(ids, shipments)
		return fragmentPage{data: data, total: total}, ok, nil
	}
}

// containerPage is the containers list's pageFragments, or nil when ps is.
func containerPage(ps pageStore, rd jsonapi.Renderer) pageFragments {
	if ps == nil {
		return nil
	}
	return func(r *http.Request, page boxwatch.Page) (fragmentPage, bool, error) {
		inc, f, err := containerListQuery(r.URL.Query())
		if err != nil || len(inc) > 0 || !ps.ReadCacheStats().Live {
			return fragmentPage{}, false, err
		}
		acct := account(r).ID
		ids, total, err := ps.ContainerIDs(r.Context(), acct, f, page)
		if err != nil {
			return fragmentPage{}, false, err
		}
		containers, err := containerFragments(r.Context(), ps, rd, acct, ids, func() ([]boxwatch.Container, boxwatch.Total, error) {
			return ps.Containers(r.Context(), acct, f, page)
		})
		if err != nil {
			return fragmentPage{}, false, err
		}
		data, ok := inOrder(ids, containers)
		return fragmentPage{data: data, total: total}, ok, nil
	}
}

// trackingRequestPage is the tracking requests list's pageFragments, or nil when ps is. The list
// includes each tracked shipment, once, in the order of the requests that first track it, as
// trackedObjects does.
func trackingRequestPage(ps pageStore, rd jsonapi.Renderer) pageFragments {
	if ps == nil {
		return nil
	}
	return func(r *http.Request, page boxwatch.Page) (fragmentPage, bool, error) {
		f, err := trackingRequestListQuery(r.URL.Query(), rd.Carriers)
		if err != nil || !ps.ReadCacheStats().Live {
			return fragmentPage{}, false, err
		}
		acct := account(r).ID
		ids, total, err := ps.TrackingRequestIDs(r.Context(), acct, f, page)
		if err != nil {
			return fragmentPage{}, false, err
		}
		trs, err := trackingRequestFragments(r.Context(), ps, acct, ids, func() ([]boxwatch.TrackingRequest, boxwatch.Total, error) {
			return ps.TrackingRequests(r.Context(), acct, f, page)
		})
		if err != nil {
			return fragmentPage{}, false, err
		}
		data, ok := inOrder(ids, trs)
		if !ok {
			return fragmentPage{}, false, nil
		}
		tracked := idsOf(ids, func(id string) string { s, _ := trs[id].Value.(string); return s })
		shipments, err := shipmentFragments(r.Context(), ps, rd, acct, tracked, nil)
		if err != nil {
			return fragmentPage{}, false, err
		}
		fp := fragmentPage{data: data, total: total}
		for _, id := range tracked {
			if s, ok := shipments[id]; ok {
				fp.included = append(fp.included, s.Parts[0])
			}
		}
		return fp, true, nil
	}
}
