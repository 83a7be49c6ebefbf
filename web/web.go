// Package web serves the dashboard: the single-page app at /, its scripts, styles and vendored
// third-party files under /assets/, and the API reference at /docs. The app runs in the browser
// and uses the public /v2 API like any other client, so this package holds no data, reads no
// store and adds no endpoint: every request that is not one of its own passes to the API.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
)

// files holds the app (app/) and the vendored third-party files (vendor/, written by
// scripts/assets.sh and checked against vendor/SHA256SUMS).
//
//go:embed app vendor
var files embed.FS

// Security headers. The pages load scripts, styles, images, workers and data from this origin
// only: no inline script or style, no eval. MapLibre draws on a canvas and runs its worker from
// the same-origin module maplibre-gl-worker.mjs; Swagger UI shows its icons from data: URLs.
const (
	appCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; worker-src 'self'; font-src 'self'; manifest-src 'self'; " +
		"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
	docsCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

// Cache lifetimes: a versioned asset URL names its content, so it never changes; the pages and
// unversioned URLs are checked again at every use (an ETag makes that a 304).
const (
	cacheImmutable  = "public, max-age=31536000, immutable"
	cacheRevalidate = "no-cache"
)

// contentTypes are the types of the files served, by extension; any other file is not served.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".json": "application/json",
	".svg":  "image/svg+xml",
	".txt":  "text/plain; charset=utf-8",
}

// asset is one file ready to serve.
type asset struct {
	body        []byte
	contentType string
	etag        string
	// gzipped is the body compressed, made at its first use (nil for files too small to gain).
	gzipped *compressed
}

// compressed is a gzip encoding of a body, made once.
type compressed struct {
	once sync.Once
	body []byte
}

func (c *compressed) get(plain []byte) []byte {
	c.once.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression) // a valid level: no error
		zw.Write(plain)
		zw.Close()
		c.body = buf.Bytes()
	})
	return c.body
}

// newAsset prepares a file; bodies over a kilobyte of text are also served gzipped.
func newAsset(body []byte, contentType string) asset {
	sum := sha256.Sum256(body)
	a := asset{body: body, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
	if len(body) > 1024 {
		a.gzipped = &compressed{}
	}
	return a
}

// Handler serves the dashboard in front of the API.
type Handler struct {
	api http.Handler
	// version names the embedded files' content: asset URLs carry it (/assets/<version>/...),
	// so a new build never meets a stale cached file.
	version string
	assets  map[string]asset // by path below /assets/, as app/main.js
	index   asset
	docs    asset
}

// New returns a handler that serves GET / (the app), /assets/... and /docs, and passes every other
// request, /v2 and the health checks among them, to api.
func New(api http.Handler) (*Handler, error) {
	h := &Handler{api: api, assets: map[string]asset{}}
	sum := sha256.New()
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ctype, ok := typeOf(p)
		if !ok {
			return nil
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		a := newAsset(b, ctype)
		fmt.Fprintf(sum, "%s %s\n", p, a.etag)
		h.assets[p] = a
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web: reading the embedded files: %w", err)
	}
	h.version = hex.EncodeToString(sum.Sum(nil))[:12]
	if h.index, err = h.page("app/index.html"); err != nil {
		return nil, err
	}
	if h.docs, err = h.page("app/docs.html"); err != nil {
		return nil, err
	}
	return h, nil
}

// typeOf returns the content type a file is served with; LICENSE and NOTICE files are plain text.
func typeOf(p string) (string, bool) {
	base := path.Base(p)
	if base == "LICENSE" || base == "NOTICE" || strings.HasPrefix(base, "LICENSE.") {
		return contentTypes[".txt"], true
	}
	t, ok := contentTypes[path.Ext(base)]
	return t, ok
}

// page returns an HTML page whose asset URLs carry the version.
func (h *Handler) page(p string) (asset, error) {
	a, ok := h.assets[p]
	if !ok {
		return asset{}, fmt.Errorf("web: %s is not embedded", p)
	}
	return newAsset(bytes.ReplaceAll(a.body, []byte(`"/assets/`), []byte(`"/assets/`+h.version+`/`)), a.contentType), nil
}

// Version names the embedded files' content, as it appears in asset URLs.
func (h *Handler) Version() string { return h.version }

// Paths lists the paths below /assets/ that are served, sorted.
func (h *Handler) Paths() []string {
	out := make([]string, 0, len(h.assets))
	for p := range h.assets {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/":
		h.serve(w, r, h.index, cacheRevalidate, appCSP)
	case p == "/docs":
		h.serve(w, r, h.docs, cacheRevalidate, docsCSP)
	case strings.HasPrefix(p, "/assets/"):
		a, cache, ok := h.lookup(strings.TrimPrefix(p, "/assets/"))
		if !ok {
			securityHeaders(w.Header(), "")
			http.Error(w, "404 page not found", http.StatusNotFound)
			return
		}
		h.serve(w, r, a, cache, "")
	default:
		h.api.ServeHTTP(w, r)
	}
}

// lookup finds an asset by its path below /assets/: app/... or vendor/... (revalidated at every
// use), or the same behind a version, /assets/<version>/app/... (cached for good when the version
// is this build's; a page loaded before an upgrade still gets the files, revalidated).
func (h *Handler) lookup(p string) (asset, string, bool) {
	cache := cacheRevalidate
	if first, rest, ok := strings.Cut(p, "/"); ok && first != "app" && first != "vendor" {
		if first == h.version {
			cache = cacheImmutable
		}
		p = rest
	}
	if !fs.ValidPath(p) {
		return asset{}, "", false
	}
	a, ok := h.assets[p]
	return a, cache, ok
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, a asset, cache, csp string) {
	hdr := w.Header()
	securityHeaders(hdr, csp)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hdr.Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hdr.Set("Content-Type", a.contentType)
	hdr.Set("Cache-Control", cache)
	body, etag := a.body, a.etag
	if a.gzipped != nil {
		hdr.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r) {
			body, etag = a.gzipped.get(a.body), strings.TrimSuffix(a.etag, `"`)+`-gzip"`
			hdr.Set("Content-Encoding", "gzip")
		}
	}
	hdr.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// acceptsGzip reports whether the request's Accept-Encoding lists gzip without q=0.
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(v, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
				q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
				return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
			}
		}
	}
	return false
}

func securityHeaders(hdr http.Header, csp string) {
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	if csp != "" {
		hdr.Set("Content-Security-Policy", csp)
		hdr.Set("X-Frame-Options", "DENY")
		hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	}
}
