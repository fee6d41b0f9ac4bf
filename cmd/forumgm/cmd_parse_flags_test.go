package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// runParseOut runs `forumgm parse` in the process: its JSON, its notes on
// stderr, its error.
func runParseOut(t *testing.T, args ...string) (map[string]any, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	app := &cli.App{Name: "forumgm", Writer: &out, ErrWriter: &errb, Commands: []*cli.Command{parseCommand()},
		ExitErrHandler: func(*cli.Context, error) {}}
	if err := app.Run(append([]string{"forumgm", "parse"}, args...)); err != nil {
		return nil, errb.String(), err
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	return got, errb.String(), nil
}

func writePage(t *testing.T, page string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(p, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "parser", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParseFlagsCutAndUnreadable is issue 22 item 4: `forumgm parse` said
// nothing of a page cut short (the live reader refuses it) nor of a post
// nested too deep to read (the live reader records it as unreadable). The
// JSON now carries "incomplete" and a post's "unreadable" reason, and the
// command says both on stderr in words; a whole page gets no note.
func TestParseFlagsCutAndUnreadable(t *testing.T) {
	thread := fixture(t, "phpbb33_thread.html")
	posts := regexp.MustCompile(`<div id="p\d+"`).FindAllStringIndex(thread, -1)
	cut := thread[:posts[len(posts)-1][0]] + "</div></div></body></html>\n"
	i := strings.Index(thread, `<div id="p112"`)
	j := i + strings.Index(thread[i:], `<div class="content">`) + len(`<div class="content">`)
	k := j + strings.Index(thread[j:], "</div>\n")
	deep := thread[:j] + strings.Repeat(`<strong class="text-strong">`, 5000) + "VOTE: Bob" + strings.Repeat("</strong>", 5000) + thread[k:]

	got, notes, err := runParseOut(t, "--engine", "phpbb", writePage(t, thread))
	if err != nil || got["incomplete"] != nil || notes != "" {
		t.Errorf("a whole page: incomplete %v, notes %q, %v; want neither", got["incomplete"], notes, err)
	}
	got, notes, err = runParseOut(t, "--engine", "phpbb", writePage(t, cut))
	if err != nil {
		t.Fatal(err)
	}
	if got["incomplete"] != true {
		t.Errorf("a page cut before its last post: incomplete = %v, want true", got["incomplete"])
	}
	if !strings.Contains(notes, "incomplete") || !strings.Contains(notes, "div#page-footer") {
		t.Errorf("notes on a cut page: %q; want it called incomplete, naming the footer the profile expects", notes)
	}
	got, notes, err = runParseOut(t, "--engine", "phpbb", writePage(t, deep))
	if err != nil {
		t.Fatal(err)
	}
	var flagged []string
	for _, p := range asList(got["posts"]) {
		m := p.(map[string]any)
		if r, _ := m["unreadable"].(string); r != "" {
			flagged = append(flagged, m["id"].(string))
			if !strings.Contains(r, "nested more than 512 levels") || len(asList(m["segments"])) != 0 {
				t.Errorf("post %v: unreadable %q, segments %v", m["id"], r, m["segments"])
			}
		}
	}
	if strings.Join(flagged, ",") != "112" {
		t.Errorf("posts flagged unreadable: %v, want 112 only", flagged)
	}
	if !strings.Contains(notes, "post 112 is unreadable") || !strings.Contains(notes, "nested more than 512 levels") || got["incomplete"] != nil {
		t.Errorf("notes on the deep post: %q (incomplete %v)", notes, got["incomplete"])
	}
}

// TestParseFetchedAt (issue 22 item 11): a saved page's relative times
// ("Today, 10:05 AM", "9 hours ago") read with --fetched-at, an RFC 3339
// time or a wall time in the profile's time zone; without it the notes say
// to give it; a time that is neither is refused with exit 2.
func TestParseFetchedAt(t *testing.T) {
	page := fixture(t, "mybb_thread.html")
	page = strings.Replace(page, `<span title="11-30-2026">Today</span>, 10:05 AM`, "Today, 10:05 AM", 1)
	page = strings.Replace(page, `<span title="11-30-2026, 10:12 AM">3 minutes ago</span>`, "9 hours ago", 1)
	path := writePage(t, page)
	berlin := filepath.Join(t.TempDir(), "berlin.yaml")
	if err := os.WriteFile(berlin, []byte("base: mybb\nname: mybb-berlin\ntime_zone: Europe/Berlin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, notes, err := runParseOut(t, "--engine", "mybb", path)
	if err != nil {
		t.Fatal(err)
	}
	first := asList(got["posts"])[0].(map[string]any)
	if !strings.Contains(first["time_error"].(string), "relative time") || !strings.Contains(notes, "--fetched-at") {
		t.Errorf("without --fetched-at: %v, notes %q; want the time unread and a hint to give --fetched-at", first, notes)
	}
	for _, args := range [][]string{
		{"--engine", "mybb", "--fetched-at", "2026-11-30T19:00:00Z"},
		{"--engine", "mybb", "--fetched-at", "2026-11-30T20:00:00+01:00"},
		{"--engine", "mybb", "--fetched-at", "2026-11-30 19:00"},
		{"--profile", berlin, "--fetched-at", "2026-11-30 20:00:00"}, // Berlin's wall time: 19:00 UTC
	} {
		got, notes, err := runParseOut(t, append(args, path)...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		ps := asList(got["posts"])
		p1, p2 := ps[0].(map[string]any), ps[1].(map[string]any)
		want1 := "2026-11-30T10:05:00Z"
		if args[0] == "--profile" {
			want1 = "2026-11-30T09:05:00Z" // "Today, 10:05 AM" is Berlin's wall time too
		}
		if p1["time"] != want1 || p1["time_error"] != nil {
			t.Errorf("%v: post 201 at %v (%v), want %s", args, p1["time"], p1["time_error"], want1)
		}
		if p2["time"] != "2026-11-30T09:00:01Z" || p2["until"] != "2026-11-30T10:00:01Z" {
			t.Errorf("%v: \"9 hours ago\" read as %v to %v, want 09:00:01 to 10:00:01", args, p2["time"], p2["until"])
		}
		if strings.Contains(notes, "--fetched-at") {
			t.Errorf("%v: notes still ask for --fetched-at: %q", args, notes)
		}
	}
	if _, _, err := runParseOut(t, "--engine", "mybb", "--fetched-at", "yesterday", path); err == nil || !strings.Contains(err.Error(), "--fetched-at") {
		t.Errorf("--fetched-at yesterday: %v; want an error naming the flag", err)
	} else if ec, ok := err.(cli.ExitCoder); !ok || ec.ExitCode() != 2 {
		t.Errorf("--fetched-at yesterday: exit %v, want 2", err)
	}
}
