// Package docs checks that the documentation still points at what exists: every relative link and
// image of README.md, BENCHMARKS.md and docs/ names a file or folder of the tree (and a link to a
// heading, a heading of that file), and BENCHMARKS.md shows the commands make bench runs. It keeps
// moves of files and sections from breaking the pages a newcomer reads.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// root is the module root, relative to this package.
const root = "../.."

// pages are the Markdown files the check covers, relative to root.
func pages(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "BENCHMARKS.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("found only %d pages: %v", len(files), files)
	}
	return files
}

var (
	// link matches an inline Markdown link or image, [text](target) or ![alt](target), with an
	// optional title after the target.
	link = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// src matches an HTML image's source.
	src = regexp.MustCompile(`<img\b[^>]*\bsrc="([^"]+)"`)
	// codeSpan matches inline code, whose brackets are not links. It may wrap onto the next line
	// but never spans a blank one, so a stray backtick cannot hide a paragraph's links.
	codeSpan = regexp.MustCompile("`+(?:[^`\\n]|\\n[^`\\n])*`+")
	scheme   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// line is a line of a Markdown file outside fenced code blocks, with its number.
type line struct {
	n    int
	text string
}

// outsideCode returns the lines of a Markdown file that are not in fenced code blocks.
func outsideCode(text string) []line {
	var lines []line
	fenced := false
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			lines = append(lines, line{i + 1, l})
		}
	}
	return lines
}

// prose returns a Markdown file with its fenced code blocks and inline code (which may wrap onto
// the next line) blanked out, keeping every line break, so that line numbers stay right and a link
// whose text wraps is still one match.
func prose(text string) string {
	lines := strings.Split(text, "\n")
	kept := make([]string, len(lines))
	for _, l := range outsideCode(text) {
		kept[l.n-1] = l.text
	}
	return codeSpan.ReplaceAllStringFunc(strings.Join(kept, "\n"), func(code string) string {
		return strings.Repeat("\n", strings.Count(code, "\n"))
	})
}

// anchors returns the fragment of every heading of a Markdown file, as GitHub derives them: lower
// case, letters, digits, spaces, hyphens and underscores kept, spaces made hyphens, and -1, -2…
// after repeats.
func anchors(text string) map[string]bool {
	found := map[string]bool{}
	seen := map[string]int{}
	for _, l := range outsideCode(text) {
		if !strings.HasPrefix(l.text, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(strings.TrimLeft(l.text, "#"))) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			found[slug+"-"+strconv.Itoa(n)] = true
		} else {
			found[slug] = true
		}
		seen[slug]++
	}
	return found
}

// TestRelativeLinksResolve fails on a relative link or image whose file is missing, or whose
// heading is not in the file it names.
func TestRelativeLinksResolve(t *testing.T) {
	checked := 0
	for _, page := range pages(t) {
		text, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		body := prose(string(text))
		var found [][]int // per link: the match's bounds, then the target's
		found = append(found, link.FindAllStringSubmatchIndex(body, -1)...)
		found = append(found, src.FindAllStringSubmatchIndex(body, -1)...)
		for _, m := range found {
			target := body[m[2]:m[3]]
			if scheme.MatchString(target) {
				continue
			}
			checked++
			if problem := resolve(page, target); problem != "" {
				t.Errorf("%s:%d: %s: %s", page, 1+strings.Count(body[:m[0]], "\n"), target, problem)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked only %d relative links: the link pattern no longer matches the pages", checked)
	}
}

// resolve returns what is wrong with target, a relative link of page, or "".
func resolve(page, target string) string {
	path, fragment, _ := strings.Cut(target, "#")
	file := page
	if path != "" {
		file = filepath.ToSlash(filepath.Join(filepath.Dir(page), path))
		if strings.HasPrefix(file, "../") {
			return "points outside the repository"
		}
	}
	info, err := os.Stat(filepath.Join(root, file))
	if err != nil {
		return "no such file or folder"
	}
	if fragment == "" {
		return ""
	}
	if info.IsDir() || !strings.HasSuffix(file, ".md") {
		return "a heading is named in something that is not a Markdown file"
	}
	text, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		return err.Error()
	}
	if !anchors(string(text))[fragment] {
		return "no such heading in " + file
	}
	return ""
}

// TestBenchmarksShowTheMakeBenchCommands keeps the reproduce block of BENCHMARKS.md equal to the
// recipe of make bench, with make's variables and escapes written as a shell reads them.
func TestBenchmarksShowTheMakeBenchCommands(t *testing.T) {
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var recipe []string
	in := false
	for _, line := range strings.Split(string(makefile), "\n") {
		switch {
		case strings.HasPrefix(line, "bench:"):
			in = true
		case in && strings.HasPrefix(line, "\t"):
			recipe = append(recipe, strings.TrimPrefix(line, "\t"))
		case in:
			in = false
		}
	}
	if len(recipe) == 0 {
		t.Fatal("the Makefile has no bench recipe")
	}
	commands := strings.NewReplacer("$(GO)", "go", "$$", "$").Replace(strings.Join(recipe, "\n"))
	if strings.Contains(commands, "$(") {
		t.Fatalf("the bench recipe uses a make variable this test does not expand:\n%s", commands)
	}
	benchmarks, err := os.ReadFile(filepath.Join(root, "BENCHMARKS.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(benchmarks), "```\n"+commands+"\n```") {
		t.Errorf("BENCHMARKS.md does not show, in a code block of its own, the commands make bench runs:\n%s", commands)
	}
}
