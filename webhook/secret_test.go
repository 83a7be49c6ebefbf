package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/webhook"
)

// The vectors below were computed outside boxwatch, with Python's hmac module and with the
// Standard Webhooks Go library v0.0.1, which agreed.
const (
	vectorSecret    = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=" // the bytes 0 to 31
	vectorID        = "0b27a595-3d1c-4a4f-9a43-5c8f1f0b2e6a"
	vectorBody      = `{"data":{"id":"0b27a595-3d1c-4a4f-9a43-5c8f1f0b2e6a","type":"webhook_notification"}}`
	vectorT49       = "a0ead1fd77c334f6bf25831c352a9540910b10c84f8a3fc9d12bb0cf3a7ba825"
	vectorStandard  = "v1,5BxOzV3lVYE5s9KK0kbGoI5UJQHToyRJmdi9h6lK1WA="
	vectorTimestamp = 1767225600
)

func TestSignMatchesVector(t *testing.T) {
	t.Parallel()
	if got := webhook.Sign(vectorSecret, []byte(vectorBody)); got != vectorT49 {
		t.Errorf("Sign = %s, want %s", got, vectorT49)
	}
	got := webhook.SignStandard(vectorSecret, vectorID, time.Unix(vectorTimestamp, 0), []byte(vectorBody))
	if got != vectorStandard {
		t.Errorf("SignStandard = %s, want %s", got, vectorStandard)
	}
}

func TestSignStandardKeys(t *testing.T) {
	t.Parallel()
	at := time.Unix(vectorTimestamp, 0)
	body := []byte(`{}`)
	for _, tt := range []struct {
		name, secret string
		key          []byte
	}{
		{"PrefixedBase64IsDecoded", vectorSecret, mustDecode(t, strings.TrimPrefix(vectorSecret, "whsec_"))},
		{"BareBase64IsDecoded", "c3JpcmFjaGE=", []byte("sriracha")},
		{"OtherSecretIsRawBytes", "my test secret!", []byte("my test secret!")},
		{"BarePrefixIsRawBytes", "whsec_", []byte("whsec_")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := "v1," + base64.StdEncoding.EncodeToString(hmacSHA256(tt.key, fmt.Sprintf("id1.%d.{}", vectorTimestamp)))
			if got := webhook.SignStandard(tt.secret, "id1", at, body); got != want {
				t.Errorf("SignStandard(%q) = %s, want %s", tt.secret, got, want)
			}
			wantT49 := hex.EncodeToString(hmacSHA256([]byte(tt.secret), "{}"))
			if got := webhook.Sign(tt.secret, body); got != wantT49 {
				t.Errorf("Sign(%q) = %s, want %s (keyed with the secret string)", tt.secret, got, wantT49)
			}
		})
	}
}

func TestNewSecret(t *testing.T) {
	t.Parallel()
	a, err := webhook.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	b, err := webhook.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatal("two secrets are equal")
	}
	if !strings.HasPrefix(a, webhook.SecretPrefix) {
		t.Fatalf("secret %q lacks the prefix %q", a, webhook.SecretPrefix)
	}
	if key := mustDecode(t, strings.TrimPrefix(a, webhook.SecretPrefix)); len(key) != 32 {
		t.Fatalf("secret %q holds %d bytes, want 32", a, len(key))
	}
}

func TestSignPanicsOnEmptySecret(t *testing.T) {
	t.Parallel()
	for name, sign := range map[string]func(){
		"Sign":         func() { webhook.Sign("", []byte("{}")) },
		"SignStandard": func() { webhook.SignStandard("", "id", time.Now(), []byte("{}")) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("%s with an empty secret did not panic", name)
				}
			}()
			sign()
		})
	}
}

func ExampleSign() {
	secret := "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	body := []byte(`{"data":{"id":"0b27a595-3d1c-4a4f-9a43-5c8f1f0b2e6a","type":"webhook_notification"}}`)
	fmt.Println("X-T49-Webhook-Signature:", webhook.Sign(secret, body))
	fmt.Println("webhook-signature:", webhook.SignStandard(secret, "0b27a595-3d1c-4a4f-9a43-5c8f1f0b2e6a", time.Unix(1767225600, 0), body))
	// Output:
	// X-T49-Webhook-Signature: a0ead1fd77c334f6bf25831c352a9540910b10c84f8a3fc9d12bb0cf3a7ba825
	// webhook-signature: v1,5BxOzV3lVYE5s9KK0kbGoI5UJQHToyRJmdi9h6lK1WA=
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

func mustDecode(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
