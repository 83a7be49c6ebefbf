package terminal

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

// FileConfig is a terminals file (boxwatch serve --terminals FILE): the terminals an operator
// reaches over the boxwatch terminal protocol, keyed as Key names them, "USLAX/APMT" (port and
// SMDG code) or "FIRMS:W185":
//
//	{
//	  "terminals": {
//	    "USLAX/APMT": {
//	      "base_url": "https://tos.example.com/boxwatch",
//	      "headers_env": {"X-API-Key": "APMT_API_KEY"},
//	      "rate": 2, "burst": 2, "timeout": "15s"
//	    }
//	  }
//	}
//
// Secrets never sit in the file: headers_env names environment variables, which Build reads.
type FileConfig struct {
	Terminals map[string]Endpoint `json:"terminals"`
	Comment   string              `json:"comment"`
}

// Endpoint is how one terminal is reached; zero numbers take Config's defaults.
type Endpoint struct {
	BaseURL    string            `json:"base_url"`
	HeadersEnv map[string]string `json:"headers_env"`
	Rate       float64           `json:"rate"`
	Burst      int               `json:"burst"`
	Timeout    string            `json:"timeout"`
	Comment    string            `json:"comment"`
}

// maxFileBytes bounds a terminals file.
const maxFileBytes = 1 << 20

// Load reads a terminals file; unknown members and malformed keys are errors.
func Load(r io.Reader) (FileConfig, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return FileConfig{}, err
	}
	if len(b) > maxFileBytes {
		return FileConfig{}, fmt.Errorf("terminals file: longer than %d bytes", maxFileBytes)
	}
	var cfg FileConfig
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return FileConfig{}, fmt.Errorf("terminals file: %w", err)
	}
	for _, key := range sortedKeys(cfg.Terminals) {
		if _, err := ParseKey(key); err != nil {
			return FileConfig{}, fmt.Errorf("terminals file: %w", err)
		}
	}
	return cfg, nil
}

// ParseKey reads a terminal's key: "LOCODE/SMDG" or "FIRMS:CODE".
func ParseKey(key string) (boxwatch.TerminalRef, error) {
	if firms, ok := strings.CutPrefix(key, "FIRMS:"); ok {
		if len(firms) != 4 || strings.ToUpper(firms) != firms {
			return boxwatch.TerminalRef{}, fmt.Errorf("terminal %q: a FIRMS code is four letters and digits", key)
		}
		return boxwatch.TerminalRef{FIRMSCode: firms}, nil
	}
	locode, smdg, ok := strings.Cut(key, "/")
	if !ok || len(locode) != 5 || smdg == "" || len(smdg) > 10 || strings.ToUpper(key) != key {
		return boxwatch.TerminalRef{}, fmt.Errorf("terminal %q is neither LOCODE/SMDG (USLAX/APMT) nor FIRMS:CODE", key)
	}
	return boxwatch.TerminalRef{LOCODE: locode, SMDGCode: smdg}, nil
}

// Build makes a client for every terminal of the file and adds it to dir. It fails on a base URL
// or bound a client refuses, an unreadable timeout, or a header whose variable is unset.
func (cfg FileConfig) Build(dir *Directory, getenv func(string) string, httpClient *http.Client) error {
	for _, key := range sortedKeys(cfg.Terminals) {
		e := cfg.Terminals[key]
		ref, err := ParseKey(key)
		if err != nil {
			return err
		}
		c := Config{BaseURL: e.BaseURL, Rate: e.Rate, Burst: e.Burst, HTTPClient: httpClient, Headers: map[string]string{}}
		if e.Timeout != "" {
			if c.Timeout, err = time.ParseDuration(e.Timeout); err != nil {
				return fmt.Errorf("terminal %s: timeout %q: %w", key, e.Timeout, err)
			}
		}
		for header, env := range e.HeadersEnv {
			v := getenv(env)
			if v == "" {
				return fmt.Errorf("terminal %s: header %s: environment variable %s is not set", key, header, env)
			}
			c.Headers[header] = v
		}
		client, err := New(c)
		if err != nil {
			return fmt.Errorf("terminal %s: %w", key, err)
		}
		dir.Add(ref, client)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
