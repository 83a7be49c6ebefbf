package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestRunReportsPublishedBesideGenerated runs the command on the shipped set: the published
// numbers come first, as their own block with their count, then the generated ones.
func TestRunReportsPublishedBesideGenerated(t *testing.T) {
	var out strings.Builder
	if err := run([]string{"-set", "../../testdata/eval.csv", "-bench=false"}, &out); err != nil {
		t.Fatalf("infereval: %v\n%s", err, out.String())
	}
	want := regexp.MustCompile(`(?s)^published numbers \(printed in public documents\):\n  [1-9]\d* numbers, \d+ carriers\n.*` +
		`\ngenerated numbers \(drawn from the formats and prefix tables the registry encodes\):\n  [1-9]\d* numbers, \d+ carriers\n`)
	if !want.MatchString(out.String()) {
		t.Errorf("output does not hold a published block then a generated block, each with its count:\n%s", out.String())
	}
}
