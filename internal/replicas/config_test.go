package replicas_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch/internal/replicas"
)

// TestDocsShowTheTestedConfig keeps the HAProxy sample of docs/operations.md equal to what the
// harness generates, and has HAProxy check it when it is installed.
func TestDocsShowTheTestedConfig(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```haproxy\n")
	block, _, closed := strings.Cut(block, "```")
	if !ok || !closed {
		t.Fatal("docs/operations.md has no ```haproxy block")
	}
	want := replicas.HAProxyConfig("0.0.0.0:8080", "127.0.0.1:8404",
		[]string{"r0 10.0.0.11:8080", "r1 10.0.0.12:8080", "r2 10.0.0.13:8080"})
	if block != want {
		t.Errorf("docs/operations.md's HAProxy sample differs from the harness's configuration; the harness generates:\n%s", want)
	}

	haproxy := replicas.HAProxy(t)
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(haproxy, "-c", "-f", cfg).CombinedOutput(); err != nil {
		t.Errorf("haproxy -c refuses the configuration: %v\n%s", err, out)
	}
}
