package realboardtest_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/probe"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
	"github.com/forumgm/forumgm/scraper"
)

// TestLegacyCharsetMyBB (issue 44): a real MyBB 1.8 set to ISO-8859-1 the
// way its admin does it (the language file's $langinfo['charset']). With
// "Auto URL" on (its default) a post holding latin1 bytes shows empty, so
// the admin's other change is allowautourl off. The probe's charset check
// passes; a player's post (made as a browser sends
// it: latin1 bytes, &#NNNN; for what latin1 lacks) reads back as written;
// the bot's reply and PM, with text latin1 lacks ("—", "…", "Łódź", an
// emoji), are stored once each with the marker's "·" as latin1's own byte
// (not the "Â·" of UTF-8), found once by the marker checks, and read by
// the player as written. A bot post whose dot the board took in UTF-8 (the
// issue's "Â·") is found too.
func TestLegacyCharsetMyBB(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := realboardtest.Start(t, realboardtest.MyBB, realboardtest.Options{Players: []string{"Alice", "Bob"}, Charset: "ISO-8859-1"})
	b.ExemptBot(t)
	alice := b.Player("Alice")
	c := boardtest.Connect(t, b, b.Bot)
	// MyBB 1.8.37's automatic links are a /u (UTF-8) regexp over the whole
	// message (inc/class_parser.php, mycode_auto_url, "~iusx"): PHP's
	// preg_replace_callback gives NULL for a subject that is not UTF-8, so
	// on an ISO-8859-1 board every post and PM holding a byte above 127
	// shows empty unless the admin turns "Auto URL" (allowautourl) off.
	bob := b.Player("Bob")
	blank := b.Post(t, bob, latin1(t, "Zoë says [b]VOTE: Alice[/b]"))
	if body := postBody(t, ctx, c, b, blank); strings.TrimSpace(body) != "" {
		t.Errorf("with allowautourl on, MyBB shows the latin1 post as %q: no longer empty?", body)
	}
	b.Setting(t, "allowautourl", "0")
	// PHP's built-in server keeps scripts in its opcache, checked for
	// changes every 2 s (opcache.revalidate_freq): the setting shows once
	// inc/settings.php is read again.
	for tries := 0; ; tries++ {
		body := postBody(t, ctx, c, b, blank)
		if strings.Contains(body, "Zoë says") {
			break
		}
		if tries == 40 {
			t.Fatalf("with allowautourl off, MyBB still shows the latin1 post as %q", body)
		}
		time.Sleep(250 * time.Millisecond)
	}

	res, err := http.Get(b.URL + "showthread.php?tid=" + b.ThreadIDString())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=ISO-8859-1" {
		t.Errorf("MyBB's Content-Type: %q", ct)
	}
	if label, src := parser.MetaCharset(page); label != "ISO-8859-1" || src != parser.FromHTTPEquiv {
		t.Errorf("MyBB's page declares %q in %s", label, src)
	}

	prof, _ := forum.Builtin(b.Engine)
	r, err := probe.Run(ctx, probe.Config{URL: b.URL, Profile: prof, Thread: b.ThreadIDString(),
		Creds:   forum.Credentials{Username: b.Bot.Name, Password: b.Bot.Password},
		Scraper: scraper.Options{MinInterval: 20 * time.Millisecond, Retries: 2, Backoff: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Checks {
		if c.ID == "charset" {
			t.Logf("probe: %s %s", c.Status, c.Detail)
			if c.Status != probe.OK || !strings.Contains(c.Detail, "pages in windows-1252 (ISO-8859-1, HTTP Content-Type)") {
				t.Errorf("the probe's charset check: %+v", c)
			}
		}
	}

	// A player's post as a browser sends it.
	b.Post(t, alice, latin1(t, "Salut Zoë — Łukasz… [b]VOTE: Bob[/b] 🎲"))
	var posts []forum.Post
	if _, err := c.Scraper.ReadThread(ctx, b.ThreadIDString(), scraper.Cursor{}, func(p forum.Post) error {
		posts = append(posts, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	last := posts[len(posts)-1]
	if segs := boardtest.Reader(t, b).Segments(last.BodyHTML); last.Author.Name != "Alice" || strings.Join(segs, "|") != "VOTE: Bob" ||
		!strings.Contains(last.BodyHTML, "Salut Zoë — Łukasz…") || !strings.Contains(last.BodyHTML, "🎲") {
		t.Errorf("Alice's post reads %q by %s: %q", segs, last.Author.Name, last.BodyHTML)
	}

	key := "charset.k3x9/d1/1"
	id, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
		return c.Reply(ctx, b.ThreadIDString(), "Round 1 — Zoë, Łukasz… the dot · stays. 🎲 [b]Vote now[/b]", key)
	})
	if err != nil {
		t.Fatalf("reply: %v", err)
	}
	rows := stored(t, b, fmt.Sprintf("SELECT hex(message) AS body FROM {prefix}posts WHERE tid = %d", b.ThreadID), key)
	if rows != 1 {
		t.Errorf("the reply is stored %d times with its marker in latin1, want once", rows)
	}
	if found, ok, err := c.FindPost(ctx, b.ThreadIDString(), key); err != nil || !ok || found != id {
		t.Errorf("FindPost = %s %v %v, want %s", found, ok, err, id)
	}

	pmKey := "charset.k3x9/d1/2"
	pmID, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
		return c.SendPM(ctx, forum.Author{Name: alice.Name, ID: alice.IDString()}, "Rôle — Alice…", "Tu es [b]Łódź[/b] — Zoë ·· 🎲", pmKey)
	})
	if err != nil {
		t.Fatalf("PM: %v", err)
	}
	if n := stored(t, b, fmt.Sprintf("SELECT hex(message) AS body FROM {prefix}privatemessages WHERE uid = %d", alice.ID), pmKey); n != 1 {
		t.Errorf("Alice has the PM %d times with its marker in latin1, want once", n)
	}
	if found, ok, err := c.FindSentPM(ctx, pmKey, time.Time{}); err != nil || !ok || found != pmID {
		t.Errorf("FindSentPM = %s %v %v, want %s", found, ok, err, pmID)
	}
	ac := boardtest.Connect(t, b, alice)
	hs, err := ac.Scraper.Inbox(ctx)
	if err != nil || len(hs) == 0 {
		t.Fatalf("Alice's inbox: %+v %v", hs, err)
	}
	if !strings.HasPrefix(hs[0].Subject, "Rôle — Alice") {
		t.Errorf("Alice's newest PM is %q", hs[0].Subject)
	}
	m, err := ac.Scraper.ReadPM(ctx, hs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if lines := boardtest.Reader(t, b).Lines(m.BodyHTML); len(lines) == 0 || lines[0] != "Tu es Łódź — Zoë ·· 🎲" {
		t.Errorf("Alice reads %q", lines)
	}

	// The board: a bot post whose "·" went in as UTF-8 shows "Â·".
	old := "charset.k3x9/d0/9"
	oldID := b.Post(t, b.Bot, "An old post.\n\nforumgm\xc2\xb7"+old)
	if found, ok, err := c.FindPost(ctx, b.ThreadIDString(), old); err != nil || !ok || found != fmt.Sprint(oldID) {
		t.Errorf("the mangled marker: FindPost = %s %v %v, want %d", found, ok, err, oldID)
	}
}

// postBody is the body of the thread's post id as the bot reads it.
func postBody(t *testing.T, ctx context.Context, c *forumconn.Conn, b *realboardtest.Board, id int) string {
	t.Helper()
	body, found := "", false
	if _, err := c.Scraper.ReadThread(ctx, b.ThreadIDString(), scraper.Cursor{}, func(p forum.Post) error {
		if p.ID == fmt.Sprint(id) {
			body, found = p.BodyHTML, true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Fatalf("post %d is not in the thread", id)
	}
	return body
}

// latin1 is text as a browser sends it to an ISO-8859-1 page: its bytes in
// windows-1252 (what browsers use for that label), each character it lacks
// as a numeric reference.
func latin1(t *testing.T, s string) string {
	t.Helper()
	out, err := encoding.HTMLEscapeUnsupported(charmap.Windows1252.NewEncoder()).String(s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// stored counts the rows (their body as hex) holding the marker of key
// with its dot as latin1's byte B7, and fails on one holding it as UTF-8's
// C2 B7 (what a UTF-8 form would have stored).
func stored(t *testing.T, b *realboardtest.Board, sql, key string) int {
	t.Helper()
	n := 0
	for _, r := range b.Query(t, sql) {
		raw, err := hex.DecodeString(fmt.Sprint(r["body"]))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.Contains(string(raw), "forumgm\xc2\xb7"+key):
			t.Errorf("the marker %s is stored as UTF-8: %q", key, raw)
		case strings.Contains(string(raw), "forumgm\xb7"+key):
			n++
		}
	}
	return n
}
