package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/journey"
)

// MapMediaType is the map's content type: plain GeoJSON, as the reference serves it under
// application/json.
const MapMediaType = "application/json"

// Cache lifetimes of a map for clients: one whose journey has ended never changes; one at sea
// changes with every position, which the spec asks clients to fetch at most hourly.
const (
	mapMaxAgeEnded = 365 * 24 * time.Hour
	mapMaxAgeLive  = 15 * time.Minute
)

var mapParams = []param{{name: "antimeridian", typ: "string", enum: []string{"split"},
	doc: "boxwatch extension: split cuts every line that crosses the antimeridian into a MultiLineString (RFC 7946 §3.1.9), " +
		"for clients that draw on a flat map. Without it such a leg is one LineString whose longitude jumps from ±180 to ∓180."}}

// handleContainerMap answers the container's map as the journey engine draws it, with its entity
// tag and how long clients may keep it.
func handleContainerMap(journeys *journey.Engine) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		split := false
		switch v, given := r.URL.Query()["antimeridian"]; {
		case !given:
		case len(v) == 1 && v[0] == "split":
			split = true
		default:
			return boxwatch.BadParameter("antimeridian", "antimeridian must be split.")
		}
		m, err := journeys.ContainerMap(r.Context(), account(r).ID, r.PathValue("id"), split)
		if err != nil {
			return err
		}
		cacheControl := "private, max-age=" + strconv.Itoa(int(mapMaxAgeLive.Seconds()))
		if m.Ended {
			cacheControl = "private, max-age=" + strconv.Itoa(int(mapMaxAgeEnded.Seconds())) + ", immutable"
		}
		w.Header().Set("ETag", m.ETag)
		w.Header().Set("Cache-Control", cacheControl)
		if etagMatches(r.Header.Get("If-None-Match"), m.ETag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		w.Header().Set("Content-Type", MapMediaType)
		w.Header().Set("Content-Length", strconv.Itoa(len(m.Body)))
		w.WriteHeader(http.StatusOK)
		w.Write(m.Body)
		return nil
	}
}

// etagMatches applies If-None-Match: a list of entity tags, weak or strong, or *.
func etagMatches(header, etag string) bool {
	for header != "" {
		var tag string
		header = trimSpace(header)
		if header == "" {
			break
		}
		if header[0] == '*' {
			return true
		}
		tag, header = cutTag(header)
		if tag == "" {
			return false
		}
		if len(tag) > 2 && tag[:2] == "W/" {
			tag = tag[2:]
		}
		if tag == etag {
			return true
		}
		header = trimSpace(header)
		if header != "" && header[0] == ',' {
			header = header[1:]
		}
	}
	return false
}

func trimSpace(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}

// cutTag takes one entity tag ("…" or W/"…") off the front of s; tag is "" when s does not
// start with one.
func cutTag(s string) (tag, rest string) {
	start := 0
	if len(s) > 2 && s[:2] == "W/" {
		start = 2
	}
	if len(s) <= start || s[start] != '"' {
		return "", ""
	}
	for i := start + 1; i < len(s); i++ {
		if s[i] == '"' {
			return s[:i+1], s[i+1:]
		}
	}
	return "", ""
}
