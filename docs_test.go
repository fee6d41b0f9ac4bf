package forumgm_test

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README is what a newcomer reads first, so it stays short; the rest is
// in docs/, every file of which the README lists.
const readmeMaxLines = 250

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	fence   = regexp.MustCompile("(?ms)^```.*?^```")
)

// TestReadmeListsEveryDoc: every docs/*.md is linked from the README, the
// README stays within readmeMaxLines, and every relative link in the README
// and in docs/ (anchors included) leads somewhere.
func TestReadmeListsEveryDoc(t *testing.T) {
	t.Parallel()
	readme := readText(t, "README.md")
	if n := strings.Count(readme, "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move the detail into a docs/ file and link it", n, readmeMaxLines)
	}
	docs, err := filepath.Glob("docs/*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs: %v", err)
	}
	linked := map[string]bool{}
	for _, m := range mdLink.FindAllStringSubmatch(readme, -1) {
		linked[path.Clean(strings.SplitN(m[1], "#", 2)[0])] = true
	}
	for _, d := range docs {
		if !linked[filepath.ToSlash(d)] {
			t.Errorf("%s is not linked from README.md: add it to the README's table of docs", d)
		}
	}
	for _, f := range append([]string{"README.md"}, docs...) {
		checkLinks(t, filepath.ToSlash(f))
	}
}

func checkLinks(t *testing.T, file string) {
	t.Helper()
	text := fence.ReplaceAllString(readText(t, file), "")
	for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		p, anchor, _ := strings.Cut(target, "#")
		dest := file
		if p != "" {
			dest = path.Join(path.Dir(file), p)
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s links to %s, which does not exist", file, target)
				continue
			}
		}
		if anchor != "" && !hasAnchor(t, dest, anchor) {
			t.Errorf("%s links to %s, but %s has no heading with that anchor", file, target, dest)
		}
	}
}

// hasAnchor: a heading of file whose GitHub anchor is anchor (lower case,
// punctuation dropped, spaces as hyphens).
func hasAnchor(t *testing.T, file, anchor string) bool {
	t.Helper()
	text := fence.ReplaceAllString(readText(t, file), "")
	for _, h := range heading.FindAllStringSubmatch(text, -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(h[1]) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		if b.String() == anchor {
			return true
		}
	}
	return false
}

func readText(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
