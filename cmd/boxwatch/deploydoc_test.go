package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDeployDocsNameRealFlags checks the deployment guide, the environment file and the image
// against serve's flags: every --flag and BOXWATCH_ variable they name is one serve takes, so a
// renamed flag cannot leave the guide wrong.
func TestDeployDocsNameRealFlags(t *testing.T) {
	_, help, _ := runCmd(t, nil, "serve", "-h")
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^\s+-([a-z][a-z-]*)`).FindAllStringSubmatch(help, -1) {
		flags = append(flags, m[1])
	}
	if !slices.Contains(flags, "drain-timeout") || !slices.Contains(flags, "db") {
		t.Fatalf("serve -h lists %v", flags)
	}
	// Flags of other commands the guide shows: pg_dump, pg_restore, systemctl, systemd-run,
	// useradd, docker and the Dockerfile's COPY.
	others := []string{"chown", "dbname", "file", "format", "from", "home", "name", "now", "pipe", "stop-timeout", "system", "wait"}
	for _, file := range []string{"../../docs/deploy.md", "../../deploy/boxwatch.env", "../../deploy/boxwatch.service", "../../Dockerfile"} {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		for _, m := range regexp.MustCompile(`(?:^|[\s\x60(])--([a-z][a-z-]*)`).FindAllStringSubmatch(text, -1) {
			if !slices.Contains(flags, m[1]) && !slices.Contains(others, m[1]) {
				t.Errorf("%s names --%s, which serve does not take", file, m[1])
			}
		}
		for _, m := range regexp.MustCompile(`BOXWATCH_([A-Z][A-Z_]*)`).FindAllStringSubmatch(text, -1) {
			if flag := strings.ToLower(strings.ReplaceAll(m[1], "_", "-")); !slices.Contains(flags, flag) {
				t.Errorf("%s names BOXWATCH_%s, which is no flag of serve", file, m[1])
			}
		}
	}
}
