package api

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// param documents one query parameter a route accepts.
type param struct {
	name string
	typ  string // OpenAPI type: string, integer
	doc  string
	enum []string
	// format is an OpenAPI string format such as date-time.
	format string
}

// Query parameters shared by several routes.
var (
	paramPageNumber = param{name: "page[number]", typ: "integer", doc: "Page to return, from 1."}
	paramPageSize   = param{name: "page[size]", typ: "integer", doc: fmt.Sprintf("Records per page, 1 to %d (default %d).", maxPageSize, defaultPageSize)}
)

func paramInclude(names ...string) param {
	return param{name: "include", typ: "string", doc: "Comma-separated related resources to include: " + strings.Join(names, ", ") + "."}
}

const (
	defaultPageSize = 30
	maxPageSize     = 100
)

// checkParams rejects query parameters the route does not take, and parameters given twice: a
// parameter boxwatch would ignore is an error, never silently dropped.
func checkParams(r *http.Request, allowed []param) error {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return boxwatch.BadParameter("", "The query string is malformed: %v.", err)
	}
	names := make([]string, 0, len(q))
	for name := range q {
		names = append(names, name)
	}
	sort.Strings(names) // report the same parameter first every time
	for _, name := range names {
		known := false
		for _, p := range allowed {
			if p.name == name {
				known = true
				break
			}
		}
		if !known {
			return boxwatch.BadParameter(name, "Unknown query parameter '%s'.", name)
		}
		if len(q[name]) > 1 {
			return boxwatch.BadParameter(name, "Query parameter '%s' is given more than once.", name)
		}
		if !plainText(q.Get(name)) {
			return boxwatch.BadParameter(name, "Query parameter '%s' holds a control character or invalid UTF-8.", name)
		}
	}
	return nil
}

// checkPath refuses a path whose wildcard values (the {id}s of pattern) are not printable ASCII:
// every id boxwatch hands out is, so no resource can have such an id. Checking here keeps such
// values from reaching a query, and from being case-folded into a valid id (ımo → IMO).
func checkPath(r *http.Request, pattern string) error {
	for rest := pattern; ; {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			return nil
		}
		end := strings.IndexByte(rest[open:], '}')
		name := strings.TrimSuffix(rest[open+1:open+end], "...")
		rest = rest[open+end+1:]
		for _, c := range []byte(r.PathValue(name)) {
			if c <= ' ' || c >= 0x7f {
				return boxwatch.ErrNotFound
			}
		}
	}
}

// pageParams reads page[number] and page[size].
func pageParams(q url.Values) (boxwatch.Page, error) {
	p := boxwatch.Page{Number: 1, Size: defaultPageSize}
	if v := q.Get("page[number]"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return p, boxwatch.BadParameter("page[number]", "page[number] must be a whole number of 1 or more.")
		}
		p.Number = n
	}
	if v := q.Get("page[size]"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPageSize {
			return p, boxwatch.BadParameter("page[size]", "page[size] must be a whole number from 1 to %d.", maxPageSize)
		}
		p.Size = n
	}
	if p.Number > 1_000_000 {
		return p, boxwatch.BadParameter("page[number]", "page[number] is too large.")
	}
	return p, nil
}

// timeParam reads an ISO 8601 timestamp parameter; absent gives the zero time.
func timeParam(q url.Values, name string) (time.Time, error) {
	v := q.Get(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, boxwatch.BadParameter(name, "%s must be an ISO 8601 timestamp such as 2026-04-28T22:59:15Z.", name)
	}
	return t.UTC(), nil
}

// includes reads the include parameter against the relations a route can include.
func includes(q url.Values, allowed ...string) (map[string]bool, error) {
	out := map[string]bool{}
	v := q.Get("include")
	if v == "" {
		return out, nil
	}
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		ok := false
		for _, a := range allowed {
			if a == name {
				ok = true
			}
		}
		if !ok {
			return nil, boxwatch.BadParameter("include", "'%s' cannot be included here (allowed: %s).", name, strings.Join(allowed, ", "))
		}
		out[name] = true
	}
	return out, nil
}

// baseURL is the scheme and host absolute links start with: the public URL when one is configured,
// otherwise the address of the listener that took the request. The Host header is never used as
// sent: behind a shared cache a forged one would poison the links others receive.
func (s *server) baseURL(r *http.Request) string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		return scheme + "://" + local.String()
	}
	// Only a handler called without a connection (a test calling ServeHTTP directly) gets here.
	return scheme + "://localhost"
}

// bracketUnescaper keeps the brackets of parameter names such as page[number] readable.
var bracketUnescaper = strings.NewReplacer("%5B", "[", "%5D", "]")

// encodeQuery writes a query string with keys in order and their brackets left readable, as
// page[number]=2 rather than page%5Bnumber%5D=2.
func encodeQuery(q url.Values) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range q[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(bracketUnescaper.Replace(url.QueryEscape(k)))
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(v))
		}
	}
	return b.String()
}

// listLinks describes one page of a listing, as links and meta: links keep every other parameter of
// the request and change only the page number.
func (s *server) listLinks(r *http.Request, p boxwatch.Page, total boxwatch.Total) (*jsonapi.Links, *jsonapi.Meta) {
	last := (total.N + p.Size - 1) / p.Size
	if last < 1 {
		last = 1
	}
	base := s.baseURL(r) + r.URL.Path
	query := r.URL.Query()
	self := base
	if r.URL.RawQuery != "" {
		self += "?" + encodeQuery(query)
	}
	query.Set("page[size]", strconv.Itoa(p.Size))
	at := func(n int) string {
		query.Set("page[number]", strconv.Itoa(n))
		return base + "?" + encodeQuery(query)
	}
	l := &jsonapi.Links{Self: self, Current: at(p.Number), First: at(1), Last: at(last)}
	m := &jsonapi.Meta{Total: total.N, TotalIsLowerBound: total.AtLeast, Pagination: jsonapi.Pagination{Current: p.Number, Last: last, Records: total.N}}
	if p.Number > 1 {
		l.Prev = at(min(p.Number-1, last))
	}
	if p.Number < last {
		l.Next = at(p.Number + 1)
		next := p.Number + 1
		m.Pagination.Next = &next
	}
	return l, m
}
