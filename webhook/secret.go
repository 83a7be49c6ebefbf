package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix starts every secret NewSecret makes, as in the Standard Webhooks format.
const SecretPrefix = "whsec_"

// secretSize is the number of random bytes in a new secret (Standard Webhooks asks for 24 to 64).
const secretSize = 32

// NewSecret returns a new webhook secret: SecretPrefix followed by the standard base64 encoding of 32
// random bytes. The error is that of the system's random source.
func NewSecret() (string, error) {
	key := make([]byte, secretSize)
	if _, err := rand.Read(key); err != nil {
		return "", err
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

// Sign returns the X-T49-Webhook-Signature value for body: the lower-case hex HMAC-SHA256 of the
// exact bytes sent, keyed with the secret string as the webhook shows it (prefix included). That is
// what receivers written for Terminal49 compute, so they keep working unchanged.
//
// Sign panics if secret is empty: a delivery must never carry a signature anyone could forge.
func Sign(secret string, body []byte) string {
	return hex.EncodeToString(mac([]byte(secret), body))
}

// SignStandard returns the Standard Webhooks webhook-signature value, "v1," followed by the standard
// base64 HMAC-SHA256 of id + "." + Unix seconds of at + "." + body.
//
// The key is what the Standard Webhooks libraries derive from the same secret string: the base64
// decoding of the secret after its optional SecretPrefix. A secret that is not base64 (one a user
// chose for a test delivery, say) is used as raw bytes instead.
//
// SignStandard panics if secret is empty, like Sign.
func SignStandard(secret, id string, at time.Time, body []byte) string {
	msg := make([]byte, 0, len(id)+len(body)+22)
	msg = append(msg, id...)
	msg = append(msg, '.')
	msg = strconv.AppendInt(msg, at.Unix(), 10)
	msg = append(msg, '.')
	msg = append(msg, body...)
	return "v1," + base64.StdEncoding.EncodeToString(mac(standardKey(secret), msg))
}

func standardKey(secret string) []byte {
	if key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix)); err == nil && len(key) > 0 {
		return key
	}
	return []byte(secret)
}

func mac(key, msg []byte) []byte {
	if len(key) == 0 {
		panic("webhook: signing with an empty secret")
	}
	h := hmac.New(sha256.New, key)
	h.Write(msg)
	return h.Sum(nil)
}
