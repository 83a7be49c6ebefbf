package boxwatch

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Feature is an entitlement an account may hold.
type Feature string

// FeatureMap unlocks the container map endpoint (GET /v2/containers/{id}/map_geojson).
const FeatureMap Feature = "map"

// DisabledMessage is what an account without the feature is told when it calls an endpoint that
// needs it; the reference API's wording where it has one.
func (f Feature) DisabledMessage() string {
	switch f {
	case FeatureMap:
		return "Routing data feature is not enabled for this account"
	}
	return "The " + string(f) + " feature is not enabled for this account"
}

// NotEnabled is the KindForbidden error answered to an account that lacks the feature.
func (f Feature) NotEnabled() *Error {
	return &Error{Kind: KindForbidden, Code: CodeForbidden, Message: f.DisabledMessage()}
}

// Features lists every feature, so "all features" has one definition.
var Features = []Feature{FeatureMap}

// ParseFeature validates a feature name given on the command line.
func ParseFeature(s string) (Feature, error) {
	for _, f := range Features {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Features))
	for i, f := range Features {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown feature %q (known: %s)", s, strings.Join(names, ", "))
}

// Account is a tenant: every resource belongs to exactly one account.
type Account struct {
	ID        string
	Name      string
	Features  []Feature
	CreatedAt time.Time
}

// Has reports whether the account holds feature f.
func (a Account) Has(f Feature) bool { return slices.Contains(a.Features, f) }

// ValidateAccountName accepts 1 to 64 letters, digits, dots, dashes and underscores.
func ValidateAccountName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("account name must be 1 to 64 characters, got %d", len(name))
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return fmt.Errorf("account name %q may hold only letters, digits, '.', '-' and '_'", name)
		}
	}
	return nil
}

// APIKey is the stored form of a key: the public key id and the SHA-256 of the whole key. The key
// itself is shown once, when it is created, and never stored.
type APIKey struct {
	ID        string // the public key id embedded in the key
	AccountID string
	Hash      []byte
	CreatedAt time.Time
}

// API keys read "bw_<key id>_<secret>": the key id (16 hex digits) finds the stored hash without
// searching on a secret, and the secret (32 hex digits, 128 bits) is what the hash protects.
const apiKeyPrefix = "bw_"

// NewAPIKey generates a key for account. It returns the key to show once and the record to store.
func NewAPIKey(accountID string, now time.Time) (key string, rec APIKey, err error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", APIKey{}, err
	}
	id := hex.EncodeToString(b[:8])
	key = apiKeyPrefix + id + "_" + hex.EncodeToString(b[8:])
	sum := sha256.Sum256([]byte(key))
	return key, APIKey{ID: id, AccountID: accountID, Hash: sum[:], CreatedAt: now}, nil
}

// ParseAPIKey returns the key id of a well-formed key.
func ParseAPIKey(key string) (id string, ok bool) {
	if len(key) != len(apiKeyPrefix)+16+1+32 || !strings.HasPrefix(key, apiKeyPrefix) || key[len(apiKeyPrefix)+16] != '_' {
		return "", false
	}
	id = key[len(apiKeyPrefix) : len(apiKeyPrefix)+16]
	if !isLowerHex(id) || !isLowerHex(key[len(apiKeyPrefix)+17:]) {
		return "", false
	}
	return id, true
}

// Matches reports, in constant time, whether key hashes to the stored hash.
func (k APIKey) Matches(key string) bool {
	sum := sha256.Sum256([]byte(key))
	return subtle.ConstantTimeCompare(sum[:], k.Hash) == 1
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// NewID returns a random UUID in the version 7 layout: its leading 48 bits are the time in
// milliseconds, so ids created later sort later and index well.
func NewID(now time.Time) string {
	var b [16]byte
	if _, err := rand.Read(b[6:]); err != nil {
		panic("boxwatch: crypto/rand failed: " + err.Error())
	}
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(now.UnixMilli()))
	copy(b[:6], ts[2:])
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	return FormatUUID(b[:])
}

// IsUUID reports whether s is a UUID in canonical lower- or upper-case hex form.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
