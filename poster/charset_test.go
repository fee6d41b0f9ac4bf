package poster_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/scraper"
)

// TestForumsimLegacyCharset (issue 44): on a board in ISO-8859-1 (declared
// in its Content-Type) and one in windows-1252 (declared in a <meta>
// only), the bot's posts and PMs, and the players', with names and text
// the charset lacks ("Łukasz", "—", "…", an emoji), go out as a browser
// sends them: each is taken once, shows on the board as written, its
// marker intact, and the marker check finds it once, so nothing is sent
// again. A marker the board mangled (a dot submitted in UTF-8 shows as
// "Â·") is found too.
func TestForumsimLegacyCharset(t *testing.T) {
	for _, tc := range []struct {
		charset string
		inMeta  bool
	}{
		{forumsim.CharsetLatin1, false},
		{forumsim.CharsetCP1252, true},
	} {
		t.Run(tc.charset, func(t *testing.T) {
			t.Parallel()
			legacyCharsetGame(t, tc.charset, tc.inMeta)
		})
	}
}

func legacyCharsetGame(t *testing.T, charset string, inMeta bool) {
	ctx := context.Background()
	clk := clock.NewFake(start)
	sim := forumsim.New(forumsim.Options{Clock: clk, FloodInterval: 15 * time.Second, Charset: charset, CharsetInMeta: inMeta})
	must := func(id int, err error) int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	bot := must(sim.AddUser("GMBot", "gm-pass", true))
	zoe := must(sim.AddUser("Zoë", "z", true))
	lukasz := must(sim.AddUser("Łukasz", "l", true))
	f := sim.AddForum("Jeux", "")
	topic, _, err := sim.AddTopic(f, bot, "Nations — Zoë’s game", "Welcome… [b]VOTE: name[/b]")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	base := srv.URL + "/forum/"
	prof, _ := forum.Builtin("phpbb")
	rt := &postCounter{}
	session := func(name, pw string) *scraper.Session {
		s, err := scraper.NewSession(base, prof, forum.Credentials{Username: name, Password: pw}, scraper.Options{Clock: clk, Transport: rt})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := session("GMBot", "gm-pass")
	sc, p := scraper.New(s), poster.New(s)
	topicStr := fmt.Sprint(topic)

	// The players post through the board's form, as their browsers would.
	lp := poster.New(session("Łukasz", "l"))
	lp.Unmarked = true
	if _, err := lp.Reply(ctx, topicStr, "x", "", "Salut Zoë — [b]VOTE: Zoë[/b]… 🎲"); err != nil {
		t.Fatal(err)
	}

	const text = "Day 1 — Zoë, Łukasz… the dot · stays. 🎲"
	posts := rt.posts
	id, err := p.Reply(ctx, topicStr, "nations.k3x9/d1/1", "", text)
	if err != nil {
		t.Fatal(err)
	}
	if n := rt.posts - posts; n != 1 {
		t.Errorf("the reply was submitted %d times", n)
	}
	var n int
	fmt.Sscan(id, &n)
	stored, ok := sim.GetPost(n)
	if !ok {
		t.Fatalf("post %s not on the board", id)
	}
	if shown := sim.Shown(stored.Source); !strings.HasPrefix(shown, text) || !strings.Contains(shown, "forumgm·nations.k3x9/d1/1") {
		t.Errorf("the board shows the bot's post as %q", shown)
	}
	found, ok, err := p.PostWithMarker(ctx, topicStr, "nations.k3x9/d1/1")
	if err != nil || !ok || found != id {
		t.Errorf("PostWithMarker = %q %v %v, want %s", found, ok, err, id)
	}

	// Read back: names, commands and the marker, once each.
	var read []forum.Post
	if _, err := sc.ReadThread(ctx, topicStr, scraper.Cursor{}, func(p forum.Post) error {
		read = append(read, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(read) != 3 {
		t.Fatalf("%d posts read, want 3", len(read))
	}
	if a := read[1].Author; a.Name != "Łukasz" || a.ID != fmt.Sprint(lukasz) {
		t.Errorf("the player's post is by %+v", a)
	}
	if segs := s.Parser.Segments(read[1].BodyHTML); strings.Join(segs, "|") != "VOTE: Zoë" {
		t.Errorf("the player's vote reads %q", segs)
	}
	if keys := poster.FindMarkers(read[2].BodyHTML); len(keys) != 1 || keys[0] != "nations.k3x9/d1/1" {
		t.Errorf("the bot's post carries the markers %q", keys)
	}

	// A PM to each player, names outside the charset too.
	for i, to := range []forum.Author{{Name: "Zoë", ID: fmt.Sprint(zoe)}, {Name: "Łukasz", ID: fmt.Sprint(lukasz)}} {
		key := fmt.Sprintf("nations.k3x9/d1/%d", i+2)
		posts := rt.pms
		pm, err := p.SendPM(ctx, to, key, "Rôle — "+to.Name+"…", "Tu es [b]Łódź[/b] — "+to.Name+" ·· 🎲")
		if err != nil {
			t.Fatalf("PM to %s: %v", to.Name, err)
		}
		if n := rt.pms - posts; n != 1 {
			t.Errorf("the PM to %s was submitted %d times", to.Name, n)
		}
		uid := zoe
		if i == 1 {
			uid = lukasz
		}
		in := sim.Inbox(uid)
		if len(in) != 1 || fmt.Sprint(in[0].ID) != pm {
			t.Fatalf("%s's inbox: %+v (sent %s)", to.Name, in, pm)
		}
		if shown := sim.Shown(in[0].Source); !strings.HasPrefix(shown, "Tu es [b]Łódź[/b] — "+to.Name+" ·· 🎲") || !strings.Contains(shown, "forumgm·"+key) {
			t.Errorf("%s's PM shows as %q", to.Name, shown)
		}
		if got, ok, err := p.SentPMWithMarker(ctx, key, time.Time{}); err != nil || !ok || got != pm {
			t.Errorf("SentPMWithMarker(%s) = %q %v %v", key, got, ok, err)
		}
	}
	// The players read theirs: the sender, subject and lines as written.
	ls := scraper.New(session("Łukasz", "l"))
	hs, err := ls.Inbox(ctx)
	if err != nil || len(hs) != 1 {
		t.Fatalf("Łukasz's inbox: %+v %v", hs, err)
	}
	if !strings.HasPrefix(hs[0].Subject, "Rôle — Łukasz") || hs[0].From.Name != "GMBot" {
		t.Errorf("Łukasz's inbox row %+v", hs[0])
	}
	m, err := ls.ReadPM(ctx, hs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if lines := s.Parser.Lines(m.BodyHTML); len(lines) == 0 || lines[0] != "Tu es Łódź — Łukasz ·· 🎲" {
		t.Errorf("Łukasz's PM reads %q", lines)
	}

	// A bot post whose dot the board mangled, as it did when forumgm
	// submitted in UTF-8: still found, so never sent again.
	mangled := must(sim.Post(topic, bot, "Old post\n\nforumgmÂ·nations.k3x9/d0/9"))
	if found, ok, err := p.PostWithMarker(ctx, topicStr, "nations.k3x9/d0/9"); err != nil || !ok || found != fmt.Sprint(mangled) {
		t.Errorf("the mangled marker: PostWithMarker = %q %v %v", found, ok, err)
	}
	if _, ok, _ := p.PostWithMarker(ctx, topicStr, "nations.k3x9/d0/1"); ok {
		t.Error("another key's marker matched")
	}
}

// postCounter counts the submissions of replies (posting.php) and PMs
// (ucp.php?i=pm&mode=compose).
type postCounter struct {
	mu         sync.Mutex
	posts, pms int
}

func (c *postCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost {
		c.mu.Lock()
		switch {
		case strings.HasSuffix(r.URL.Path, "posting.php"):
			c.posts++
		case strings.Contains(r.URL.RawQuery, "mode=compose"):
			c.pms++
		}
		c.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestForumsimLegacyCharsetMember: a member looked up by name on a legacy
// board (how `replace` checks a new player's account) is asked for in the
// board's charset, as a browser asks from its pages: found, named as
// written, names outside the charset too.
func TestForumsimLegacyCharsetMember(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(start)
	sim := forumsim.New(forumsim.Options{Clock: clk, Charset: forumsim.CharsetLatin1})
	if _, err := sim.AddUser("GMBot", "gm-pass", true); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, n := range []string{"Zoë", "Łukasz"} {
		id, err := sim.AddUser(n, "pw", false)
		if err != nil {
			t.Fatal(err)
		}
		want[n] = id
	}
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	prof, _ := forum.Builtin("phpbb")
	s, err := scraper.NewSession(srv.URL+"/forum/", prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"}, scraper.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	sc := scraper.New(s)
	for name, id := range want {
		a, found, err := sc.Member(context.Background(), name)
		if err != nil || !found || a.Name != name || a.ID != fmt.Sprint(id) {
			t.Errorf("Member(%q) = %+v %v %v, want id %d", name, a, found, err, id)
		}
	}
	if _, found, err := sc.Member(context.Background(), "Zoe"); err != nil || found {
		t.Errorf("Member(Zoe) found %v %v: another account", found, err)
	}
}

// A message limit in bytes of a legacy charset (issue 44, point 3): on a
// board in ISO-8859-1 each "Ł" goes out as the 6 bytes of "&#321;", so a
// message of 1,000 UTF-8 bytes can be far over a 2,000-byte limit: it is
// refused before it is sent, as too long, naming a limit the moderator
// cuts it by (in its own count), and nothing reaches the board. The same
// message in "é" (one byte each in the charset) goes out.
func TestMessageBytesInTheBoardsCharset(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(start)
	sim := forumsim.New(forumsim.Options{Clock: clk, FloodInterval: -1, Charset: forumsim.CharsetLatin1})
	bot, err := sim.AddUser("GMBot", "gm-pass", true)
	if err != nil {
		t.Fatal(err)
	}
	topic, _, err := sim.AddTopic(sim.AddForum("Jeux", ""), bot, "Nations", "Welcome")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	prof, _ := forum.Builtin("phpbb")
	prof.MaxMessageBytes = 2000
	rt := &postCounter{}
	s, err := scraper.NewSession(srv.URL+"/forum/", prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"}, scraper.Options{Clock: clk, Transport: rt})
	if err != nil {
		t.Fatal(err)
	}
	p := poster.New(s)
	body := strings.Repeat("Ł", 500) // 1,000 bytes in UTF-8, 3,000 as references
	_, err = p.Reply(context.Background(), fmt.Sprint(topic), "m1/day-1/1", "", body)
	var tl *forum.TooLongError
	if !errors.As(err, &tl) || !errors.Is(err, poster.ErrRejected) || tl.Max <= 0 || tl.Max >= forum.MessageSize(body) || !strings.Contains(tl.Said, "ISO-8859-1") && !strings.Contains(tl.Said, "windows-1252") {
		t.Fatalf("err = %v, want a TooLongError naming the charset and a limit under the message's size", err)
	}
	if parts := forum.SplitMessage(body, tl.Max); len(parts) < 2 {
		t.Errorf("the limit %d does not cut the message", tl.Max)
	}
	if rt.posts != 0 || len(sim.Posts(topic)) != 1 {
		t.Errorf("%d submissions, %d posts: the message reached the board", rt.posts, len(sim.Posts(topic)))
	}
	if _, err := p.Reply(context.Background(), fmt.Sprint(topic), "m1/day-1/2", "", strings.Repeat("é", 900)); err != nil {
		t.Errorf("a message that fits in the charset: %v", err)
	}
}
