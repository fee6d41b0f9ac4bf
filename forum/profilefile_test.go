package forum

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestProfileKeysDocumented: every key a profile file may hold is in
// docs/profiles.md, and the docs name no key that does not exist.
func TestProfileKeysDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "profiles.md"))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, k := range ProfileKeys() {
		keys[k] = true
		if !strings.Contains(string(doc), "| `"+k+"` |") {
			t.Errorf("docs/profiles.md has no table row for `%s`", k)
		}
	}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_.*]+)` \\|").FindAllStringSubmatch(string(doc), -1) {
		if !keys[m[1]] {
			t.Errorf("docs/profiles.md documents `%s`, which is no profile key", m[1])
		}
	}
	// Each key's row gives an example from a real engine (issue 44).
	engines := regexp.MustCompile(`(?i)phpbb|mybb|smf|nodebb|fluxbb|subsilver`)
	for _, row := range regexp.MustCompile("(?m)^\\| `[a-z_.*]+` \\|.*$").FindAllString(string(doc), -1) {
		if !engines.MatchString(row) {
			t.Errorf("docs/profiles.md: no engine's example in %.80s…", row)
		}
	}
	for _, k := range RequiredKeys {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("docs/profiles.md does not list the required key %s", k)
		}
	}
	// The worked example is the example file, verbatim.
	ex, err := os.ReadFile(filepath.Join("..", "examples", "renamed-theme.profile.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), string(ex)) {
		t.Error("docs/profiles.md does not show examples/renamed-theme.profile.yaml as it is")
	}
}

func TestExampleProfile(t *testing.T) {
	t.Parallel()
	p, err := LoadProfile(filepath.Join("..", "examples", "renamed-theme.profile.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := Builtin("phpbb")
	if p.Selectors.Post != "div.topic-entry" || p.Selectors.Author != "p.author span.poster-name" || p.Selectors.Body != base.Selectors.Body || p.Base != "phpbb" {
		t.Errorf("example profile: %+v", p.Selectors)
	}
}

func TestBuiltinsComplete(t *testing.T) {
	t.Parallel()
	for _, n := range BuiltinNames() {
		p, _ := Builtin(n)
		if err := p.Complete(); err != nil {
			t.Error(err)
		}
	}
}

// TestProfileFromScratch: a profile with no base must give every key a
// game needs; the shared markup selectors are filled in.
func TestProfileFromScratch(t *testing.T) {
	t.Parallel()
	php, _ := Builtin("phpbb")
	full := `name: myengine
posts_per_page: 20
urls:
  thread: "t.php?id={topic}"
  last_page: "t.php?id={topic}&last"
  post_id_regexp: "[?&]pid=(\\d+)"
  login: login.php
  inbox: pm.php
  sent: pm.php?box=sent
  read_pm: "pm.php?id={pm}"
selectors:
  post: article.msg
  post_id_attr: data-id
  post_id_regexp: "(\\d+)"
  author: .who
  time: time
  time_attr: datetime
  body: .text
  logged_in: a.logout
  inbox_row: tr.pm
  inbox_link: a
  pm: article.pm
  pm_from: .who
  pm_body: .text
forms:
  login: {page: login.php, selector: form, user: u, password: p}
  reply: {page: "reply.php?t={topic}", selector: form, message: text}
  pm: {page: "pm.php?new", selector: form, subject: subj, message: text, recipient: to}
`
	p, err := ParseProfile([]byte(full))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "myengine" || p.Base != "" || p.Selectors.Bold != BoldSelector || p.Selectors.Quote != QuoteSelector ||
		p.Selectors.Post != "article.msg" || p.Forms.PM.Recipient != "to" || p.URLs.Index != "" || p.Selectors.Error == php.Selectors.Error {
		t.Errorf("from scratch: %+v", p)
	}
	// Leaving keys out names every missing one.
	short := strings.Replace(strings.Replace(full, "  pm_body: .text\n", "", 1), "  inbox: pm.php\n", "", 1)
	_, err = ParseProfile([]byte(short))
	if err == nil || !strings.Contains(err.Error(), "selectors.pm_body") || !strings.Contains(err.Error(), "urls.inbox") {
		t.Errorf("missing keys: %v", err)
	}
}

// TestProfileUnknownKeys: a typo is an error naming the key and its line.
func TestProfileUnknownKeys(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ yaml, want string }{
		{"base: phpbb\nselecters:\n  post: div.x\n", `line 2: unknown key "selecters"`},
		{"base: phpbb\nselectors:\n  post: div.x\n  autor: b\n", `line 4: unknown key "selectors.autor"`},
		{"base: phpbb\nforms:\n  reply:\n    mesage: text\n", `line 4: unknown key "forms.reply.mesage"`},
		{"base: phpbb\nforms:\n  replies: {}\n", `line 3: unknown key "forms.replies"`},
		{"base: phpbb\nselectors: div.post\n", "line 2: selectors must be a mapping"},
		{"base: phpbb\ntime_layouts: Jan 2\n", "line 2: time_layouts must be a list"},
		{"base: phpbb\nposts_per_page: lots\n", "line 2"},
		{"selectors: {post: div.x}\n", "give `base: ENGINE`"},
		{"", "empty"},
		{"base: phpbb\nselectors: {post: \"\"}\n", "selectors.post is empty"},
		{"name: half\nposts_per_page: 5\nurls: {thread: x}\nselectors: {post: div, body: div}\n", "urls.last_page"},
	} {
		_, err := ParseProfile([]byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.yaml, err, c.want)
		}
	}
	// The file's path leads the error.
	path := filepath.Join(t.TempDir(), "board.profile.yaml")
	os.WriteFile(path, []byte("base: phpbb\nselecters: {}\n"), 0o644)
	if _, err := LoadProfile(path); err == nil || !strings.Contains(err.Error(), path+": profile: line 2") {
		t.Errorf("LoadProfile: %v", err)
	}
}
