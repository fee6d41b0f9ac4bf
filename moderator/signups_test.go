package moderator

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/signup"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// suTable is a game filled by sign-ups on the fake board.
type suTable struct {
	t   *testing.T
	db  *store.DB
	clk *clock.Fake
	ff  *forumtest.Board
	m   *Moderator
	g   *store.Game
}

// newSignups creates a game of kind taking sign-ups su on the fake board
// (phpBB's profile: PMs go by user id, which the fake's posts show).
func newSignups(t *testing.T, db *store.DB, kind string, opts map[string]any, su gameconfig.Signups) *suTable {
	t.Helper()
	clk := clock.NewFake(start)
	ff := forumtest.New(clk)
	tb := &suTable{t: t, db: db, clk: clk, ff: ff}
	tb.m = tb.moderator()
	gc := gameconfig.GameConfig{Options: opts, Seed: 11, Start: start, Instance: "t1", Signups: &su}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: forumtest.Bot, PasswordEnv: "X"}
	g, err := tb.m.Create(context.Background(), "su-"+kind, kind, gc, fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb.g = g
	return tb
}

func (tb *suTable) moderator() *Moderator {
	return &Moderator{DB: tb.db, Clock: tb.clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return tb.ff, nil }}
}

func (tb *suTable) tick() {
	tb.t.Helper()
	if err := tb.m.Tick(context.Background(), tb.g.ID); err != nil {
		tb.t.Fatal(err)
	}
}

func (tb *suTable) post(who, text string) { tb.ff.Post(context.Background(), who, text) }

func (tb *suTable) row() *store.Game {
	tb.t.Helper()
	var row *store.Game
	if err := tb.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		row, err = tx.GameByID(tb.g.ID)
		return err
	}); err != nil {
		tb.t.Fatal(err)
	}
	return row
}

func (tb *suTable) list() signup.State {
	tb.t.Helper()
	st, err := signup.Decode(tb.row().State)
	if err != nil {
		tb.t.Fatal(err)
	}
	return st
}

func (tb *suTable) commands() []store.CommandRow {
	tb.t.Helper()
	var out []store.CommandRow
	if err := tb.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		out, err = tx.Commands(tb.g.ID, store.CommandFilter{})
		return err
	}); err != nil {
		tb.t.Fatal(err)
	}
	return out
}

func (tb *suTable) outbox() []store.OutboxItem {
	tb.t.Helper()
	var out []store.OutboxItem
	if err := tb.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		out, err = tx.Outbox(tb.g.ID)
		return err
	}); err != nil {
		tb.t.Fatal(err)
	}
	return out
}

func (tb *suTable) players() []store.Player {
	tb.t.Helper()
	var out []store.Player
	if err := tb.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		out, err = tx.Players(tb.g.ID)
		return err
	}); err != nil {
		tb.t.Fatal(err)
	}
	return out
}

// botPosts are the bot's posts so far (rendered as the board shows them):
// those it sent, with their marker, not a person's post on its account.
func (tb *suTable) botPosts() []string {
	var out []string
	for _, p := range tb.ff.BotPosts() {
		if strings.Contains(p, forum.MarkerPrefix) {
			out = append(out, p)
		}
	}
	return out
}

// commandFor finds the first audit row of text by player.
func commandFor(cs []store.CommandRow, player, text string) (store.CommandRow, bool) {
	for _, c := range cs {
		if c.Player == player && strings.EqualFold(c.Text, text) {
			return c, true
		}
	}
	return store.CommandRow{}, false
}

// hostile is a forum name made to break the bot's posts: BBCode that would
// open a link, and a right-to-left override.
const hostile = "[url=evil.example]Eve[/url]\u202e"

// playTo plays the started game to its end with simulated players, a tick a
// minute, and returns its final state.
func (tb *suTable) playTo(kind string) rules.State {
	tb.t.Helper()
	eng, _ := rules.Lookup(kind)
	sim := &simplayers.Table{Game: eng, Seed: 5}
	for iter := 0; iter < 3000; iter++ {
		row := tb.row()
		st, err := eng.Decode(row.State)
		if err != nil {
			tb.t.Fatal(err)
		}
		if row.Status == Finished {
			var pending *store.OutboxItem
			tb.db.View(context.Background(), func(tx *store.Tx) error {
				pending, err = tx.NextOutbox(tb.g.ID, start.AddDate(1, 0, 0))
				return err
			})
			if pending == nil {
				return st
			}
		}
		if _, err := sim.Act(context.Background(), st, tb.ff); err != nil {
			tb.t.Fatal(err)
		}
		tb.tick()
		tb.clk.Advance(time.Minute)
	}
	tb.t.Fatalf("%s did not finish: %s", kind, tb.ff)
	return nil
}

// TestSignupsFillAndPlay: a Resistance game fills through sign-ups in its
// thread and plays to its end. The bot posts the call (min, max, the closing
// time in the board's zone and UTC); every /in and /out of one read is
// answered in one post with the numbered list; each kind of refusal is a
// recorded rejection with its reason (a second /in, an /out by someone not
// in, the GM, the bot's account, a name the bot cannot tell from one in, a
// PM); an /in in a quote or struck through is not read; a hostile name is
// escaped in every post and PM. The seventh /in fills the game: the same
// step closes sign-ups and starts it with those seven, in sign-up order,
// with the forum user ids their posts showed (the role PMs go to them); an
// /in after it is refused as late. The journal replays to the end strictly.
func TestSignupsFillAndPlay(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		tb := newSignups(t, db, "resistance", map[string]any{"phase_hours": 0.1},
			gameconfig.Signups{Min: 5, Max: 7, Close: "2h", Extension: "1h", GM: gameconfig.Names{"TheGM"}})
		if row := tb.row(); row.Status != Signups || row.Phase != signup.Phase || !row.Deadline.Equal(start.Add(2*time.Hour)) {
			t.Fatalf("created as %s, phase %q, deadline %v", row.Status, row.Phase, row.Deadline)
		}
		tb.tick()
		posts := tb.botPosts()
		if len(posts) != 1 {
			t.Fatalf("want the call for players, got %d posts", len(posts))
		}
		for _, want := range []string{"/in", "/out", "5 to 7 players", "The Resistance", rules.WhenUTC(start.Add(2*time.Hour), time.UTC), "in 2 hours", "1 hour longer"} {
			if !strings.Contains(posts[0], want) {
				t.Errorf("the call does not say %q:\n%s", want, posts[0])
			}
		}

		tb.post("Ann", "[b]/in[/b]")
		tb.post("Ben", "Count me in: [b]/IN![/b]")
		tb.post("Ann", "[b]/in[/b] again")
		tb.post("Zed", "[b]/out[/b]")
		tb.post("TheGM", "[b]/in[/b]")
		tb.post(forumtest.Bot, "[b]/in[/b]") // the bot's account, with no marker: a person
		tb.post("ann_", "[b]/in[/b]")
		tb.post("Cat", "[quote=Ann][b]/in[/b][/quote] nice")
		tb.post("Dan", "[s][b]/in[/b][/s] wait")
		tb.post(hostile, "[b]/in[/b]")
		tb.ff.PM(context.Background(), "Fay", "/in")
		tb.clk.Advance(time.Minute)
		tb.tick()
		posts = tb.botPosts()
		if len(posts) != 2 {
			t.Fatalf("want one answer for the read, got %d posts", len(posts)-1)
		}
		cs := tb.commands()
		for _, c := range []struct{ player, text, status, reason string }{
			{"Ann", "/in", "accepted", ""},
			{"Ben", "/IN!", "accepted", ""},
			{"Zed", "/out", "rejected", "you are not signed up"},
			{"TheGM", "/in", "rejected", "the GM runs the game"},
			{forumtest.Bot, "/in", "rejected", "its own account cannot sign up"},
			{"ann_", "/in", "rejected", "cannot tell you from Ann"},
			{hostile, "/in", "accepted", ""},
			{"Fay", "/in", "rejected", "taken in the game thread"},
		} {
			got, ok := commandFor(cs, c.player, c.text)
			if !ok {
				t.Errorf("no audit row for %s's %q", c.player, c.text)
				continue
			}
			if string(got.Status) != c.status || !strings.Contains(got.Reason, c.reason) {
				t.Errorf("%s's %q: %s (%s), want %s (%s)", c.player, c.text, got.Status, got.Reason, c.status, c.reason)
			}
		}
		if dup := cs[2]; dup.Player != "Ann" || dup.Status != store.CommandRejected || !strings.Contains(dup.Reason, "already signed up (number 1)") {
			t.Errorf("Ann's second /in: %+v", dup)
		}
		for _, c := range cs {
			if c.Player == "Cat" || c.Player == "Dan" {
				t.Errorf("an /in in a quote or struck through was read: %+v", c)
			}
		}
		if got := tb.list().Names(); strings.Join(got, "|") != "Ann|Ben|"+hostile {
			t.Errorf("list %q", got)
		}
		answer := posts[1]
		for _, want := range []string{"1. Ann", "2. Ben", "3. [\u200burl=evil.example]Eve[\u200b/url]", "✘", "already signed up", "(3 of 5 to 7 players)"} {
			if !strings.Contains(answer, want) {
				t.Errorf("the answer does not say %q:\n%s", want, answer)
			}
		}
		if sent := tb.ff.SentTo()["Fay"]; len(sent) != 1 || !strings.Contains(sent[0], "not taken by PM") {
			t.Errorf("Fay's PM /in answered with %q", sent)
		}

		for _, p := range []string{"Cat", "Dan", "Fay"} {
			tb.post(p, "[b]/in[/b]")
		}
		tb.post("Dan", "no, [b]/out[/b]")
		tb.post("Dan", "[b]/in[/b] after all")
		tb.clk.Advance(time.Minute)
		tb.tick()
		if got := tb.list().Names(); len(got) != 6 || got[5] != "Dan" {
			t.Fatalf("list %q: Dan left and came back last", got)
		}
		tb.post("Gus", "[b]/in[/b]") // the seventh: full
		tb.post("Hal", "[b]/in[/b]") // after the game filled
		tb.clk.Advance(time.Minute)
		tb.tick()
		row := tb.row()
		if row.Status != Running {
			t.Fatalf("the game is %s after the seventh /in", row.Status)
		}
		ps := tb.players()
		want := []string{"Ann", "Ben", hostile, "Cat", "Fay", "Dan", "Gus"}
		if len(ps) != len(want) {
			t.Fatalf("players %+v", ps)
		}
		for i, p := range ps {
			if p.Slot != want[i] || p.ForumName != want[i] || p.ForumUserID != "u-"+want[i] {
				t.Errorf("player %d: %+v, want %s with id u-%s", i, p, want[i], want[i])
			}
		}
		posts = tb.botPosts()
		closed, opening := posts[len(posts)-2], posts[len(posts)-1]
		if !strings.Contains(closed, "Sign-ups are closed") || !strings.Contains(closed, "7. Gus") || !strings.Contains(closed, "Gus is in (number 7)") {
			t.Errorf("the close post:\n%s", closed)
		}
		if !strings.Contains(opening, "Deadline:") {
			t.Errorf("the opening post states no deadline:\n%s", opening)
		}
		roles := tb.ff.SentTo()
		for _, p := range want {
			if len(roles[p]) == 0 {
				t.Errorf("no role PM to %q", p)
			}
		}
		// The game's first post is its opening post, not the call.
		tb.tick()
		var cfg gameconfig.GameConfig
		if l, err := decodeGame(tb.row()); err != nil {
			t.Fatal(err)
		} else {
			cfg = l.cfg
		}
		var openID string
		for _, it := range tb.outbox() {
			if it.Kind == forum.KindPost && !signupItem(&it) {
				openID = it.ForumID
				break
			}
		}
		if cfg.OpeningPost == "" || cfg.OpeningPost != openID {
			t.Errorf("the opening post is %q, want the game's first post %q", cfg.OpeningPost, openID)
		}
		if hal, ok := commandFor(tb.commands(), "Hal", "/in"); !ok || hal.Status != store.CommandRejected || !strings.Contains(hal.Reason, "sign-ups closed") {
			t.Errorf("Hal's /in after the game filled: %+v", hal)
		}

		final := tb.playTo("resistance")
		eng, _ := rules.Lookup("resistance")
		if !eng.Status(final).Finished {
			t.Fatal("not finished")
		}
		var j []journal.Entry
		db.View(context.Background(), func(tx *store.Tx) error { j, _ = tx.Journal(tb.g.ID); return nil })
		replayed, err := journal.Replay(eng, cfg.Rules(), j, journal.Strict)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := strip(eng.Status(final)), strip(eng.Status(replayed)); a != b {
			t.Errorf("the journal replays to\n%s\nnot\n%s", b, a)
		}
		// The hostile name, escaped everywhere the bot wrote it.
		for _, it := range tb.outbox() {
			if strings.Contains(it.Body, "[url=") || strings.ContainsRune(it.Body, '\u202e') {
				t.Errorf("%s carries the raw hostile name:\n%s", it.Marker, it.Body)
			}
		}
		for _, p := range tb.botPosts() {
			if strings.Contains(p, "href=\"evil") || strings.Contains(p, "href=\"http://evil") || strings.ContainsRune(p, '\u202e') {
				t.Errorf("a post links the hostile name:\n%s", p)
			}
		}
		checkNoDuplicates(t, outcome{posts: tb.botPosts(), pms: tb.ff.SentTo()})
	})
}

// TestSignupsTooFew: at the closing time with fewer than the minimum in,
// sign-ups are extended once by the game file's extension, saying until
// when; at the new closing time, still short, the game is cancelled, saying
// so; an /in after that is not taken. With enough by the extended time, the
// game starts then instead. A game with no extension is cancelled at once.
func TestSignupsTooFew(t *testing.T) {
	su := gameconfig.Signups{Min: 5, Max: 7, Close: "30m", Extension: "20m"}
	t.Run("extended then cancelled", func(t *testing.T) {
		tb := newSignups(t, storetest.SQLite(t), "resistance", nil, su)
		tb.tick()
		for _, p := range []string{"Ann", "Ben", "Cat"} {
			tb.post(p, "[b]/in[/b]")
		}
		tb.clk.Advance(31 * time.Minute)
		tb.tick()
		st := tb.list()
		if tb.row().Status != Signups || !st.Extended || !st.Close.Equal(start.Add(50*time.Minute)) {
			t.Fatalf("at the closing time with 3 of 5: %s, %+v", tb.row().Status, st)
		}
		posts := tb.botPosts()
		ext := posts[len(posts)-1]
		for _, want := range []string{"extended", "only 3 are in", rules.WhenUTC(start.Add(50*time.Minute), time.UTC), "1. Ann"} {
			if !strings.Contains(ext, want) {
				t.Errorf("the extension does not say %q:\n%s", want, ext)
			}
		}
		tb.post("Dan", "[b]/in[/b]")
		tb.clk.Advance(20 * time.Minute)
		tb.tick()
		if s := tb.row().Status; s != Cancelled {
			t.Fatalf("after the extension with 4 of 5: %s", s)
		}
		posts = tb.botPosts()
		if last := posts[len(posts)-1]; !strings.Contains(last, "cancelled") || !strings.Contains(last, "even after the extension") || !strings.Contains(last, "Dan is in (number 4)") {
			t.Errorf("the cancel post:\n%s", last)
		}
		tb.post("Eve", "[b]/in[/b]")
		tb.clk.Advance(time.Minute)
		tb.tick()
		if n := len(tb.botPosts()); n != len(posts) {
			t.Errorf("the cancelled game posted again (%d posts, was %d)", n, len(posts))
		}
		if g := tb.row(); tb.m.wantsWork(context.Background(), g.ID, g.Status) {
			t.Error("a cancelled game with nothing to send still wants work")
		}
	})
	t.Run("extended then started", func(t *testing.T) {
		tb := newSignups(t, storetest.SQLite(t), "resistance", map[string]any{"phase_hours": 0.1}, su)
		tb.tick()
		for _, p := range []string{"Ann", "Ben", "Cat"} {
			tb.post(p, "[b]/in[/b]")
		}
		tb.clk.Advance(31 * time.Minute)
		tb.tick()
		for _, p := range []string{"Dan", "Eli"} {
			tb.post(p, "[b]/in[/b]")
		}
		tb.clk.Advance(5 * time.Minute)
		tb.tick()
		if s := tb.row().Status; s != Signups {
			t.Fatalf("with 5 in before the extended closing time: %s (the game waits for it, or for 7)", s)
		}
		tb.clk.Advance(15 * time.Minute)
		tb.tick()
		if s := tb.row().Status; s != Running {
			t.Fatalf("at the extended closing time with 5 of 5: %s", s)
		}
		if n := len(tb.players()); n != 5 {
			t.Errorf("%d players", n)
		}
		posts := tb.botPosts()
		if closed := posts[len(posts)-2]; !strings.Contains(closed, "the closing time has come with 5 in") {
			t.Errorf("the close post:\n%s", closed)
		}
	})
	t.Run("no extension", func(t *testing.T) {
		su := su
		su.Extension = "0"
		tb := newSignups(t, storetest.SQLite(t), "resistance", nil, su)
		tb.tick()
		tb.post("Ann", "[b]/in[/b]")
		tb.clk.Advance(31 * time.Minute)
		tb.tick()
		if s := tb.row().Status; s != Cancelled {
			t.Fatalf("with no extension, at the closing time with 1 of 5: %s", s)
		}
	})
	t.Run("a post made after the closing time", func(t *testing.T) {
		// Read only after the close: it cannot count for it (it counts
		// for the extension).
		tb := newSignups(t, storetest.SQLite(t), "resistance", nil, su)
		tb.tick()
		for _, p := range []string{"Ann", "Ben", "Cat", "Dan"} {
			tb.post(p, "[b]/in[/b]")
		}
		tb.ff.PostAt("Eli", "[b]/in[/b]", start.Add(31*time.Minute))
		tb.clk.Advance(32 * time.Minute)
		tb.tick()
		st := tb.list()
		if tb.row().Status != Signups || !st.Extended || len(st.In) != 5 {
			t.Fatalf("%s, %+v", tb.row().Status, st)
		}
		posts := tb.botPosts()
		if ext := posts[len(posts)-2]; !strings.Contains(ext, "only 4 are in") {
			t.Errorf("the extension post (before Eli's answer):\n%s", ext)
		}
	})
}

// TestSignupsGMControls: the GM lists sign-ups, takes someone off (the
// thread is told, the list renumbered), cannot close them below the
// minimum, closes them early (the game starts with those in), and the
// other controls are refused while they run; 'end' cancels the game.
func TestSignupsGMControls(t *testing.T) {
	ctx := context.Background()
	su := gameconfig.Signups{Min: 5, Max: 10, Close: "2d"}
	tb := newSignups(t, storetest.SQLite(t), "resistance", map[string]any{"phase_hours": 0.1}, su)
	tb.tick()
	for _, p := range []string{"Ann", "Ben", "Cat", "Dan", "Eli", "Fay"} {
		tb.post(p, "[b]/in[/b]")
	}
	tb.tick()
	l, err := tb.m.Signups(ctx, tb.g.Name)
	if err != nil || !l.Open || len(l.In) != 6 || l.In[2].Name != "Cat" || l.In[2].ID != "u-Cat" || l.Min != 5 || l.Max != 10 {
		t.Fatalf("signups: %+v %v", l, err)
	}
	if rep := reportOf(t, tb.m, tb.g.Name); rep.Signups == nil || len(rep.Signups.In) != 6 || rep.Signups.CloseText == "" {
		t.Errorf("status shows no sign-ups: %+v", rep.Signups)
	}
	if _, err := tb.m.Extend(ctx, tb.g.Name, time.Hour); err == nil || !strings.Contains(err.Error(), "taking sign-ups") {
		t.Errorf("extend during sign-ups: %v", err)
	}
	if _, err := tb.m.RemoveSignup(ctx, tb.g.Name, "Zed"); err == nil {
		t.Error("removed someone not signed up")
	}
	gone, err := tb.m.RemoveSignup(ctx, tb.g.Name, "ca")
	if err == nil {
		t.Errorf("a two-letter prefix took %s off", gone)
	}
	if gone, err = tb.m.RemoveSignup(ctx, tb.g.Name, "cat"); err != nil || gone != "Cat" {
		t.Fatalf("remove cat: %q %v", gone, err)
	}
	tb.tick()
	posts := tb.botPosts()
	if last := posts[len(posts)-1]; !strings.Contains(last, "The GM has taken Cat off the list") || !strings.Contains(last, "3. Dan") {
		t.Errorf("the removal post:\n%s", last)
	}
	if _, err := tb.m.RemoveSignup(ctx, tb.g.Name, "Ann"); err != nil {
		t.Fatal(err)
	}
	if err := tb.m.CloseSignups(ctx, tb.g.Name); err == nil || !strings.Contains(err.Error(), "only 4 signed up") {
		t.Errorf("closing with 4 of at least 5: %v", err)
	}
	tb.post("Gus", "[b]/in[/b]")
	tb.tick()
	if err := tb.m.CloseSignups(ctx, tb.g.Name); err != nil {
		t.Fatal(err)
	}
	if s := tb.row().Status; s != Running {
		t.Fatalf("after the GM closed sign-ups: %s", s)
	}
	tb.tick()
	posts = tb.botPosts()
	if closed := posts[len(posts)-2]; !strings.Contains(closed, "The GM has closed sign-ups</strong> with 5 in (5 to 10 players)") {
		t.Errorf("the close post:\n%s", closed)
	}
	if err := tb.m.CloseSignups(ctx, tb.g.Name); err == nil || !strings.Contains(err.Error(), "not taking sign-ups") {
		t.Errorf("closing a running game's sign-ups: %v", err)
	}
	if l, err := tb.m.Signups(ctx, tb.g.Name); err != nil || l.Open || len(l.In) != 5 || l.In[0].Name != "Ben" {
		t.Errorf("signups after the start: %+v %v", l, err)
	}
	var gm int
	for _, c := range tb.commands() {
		if c.MessageID == 0 && c.Phase == signup.Phase {
			gm++
		}
	}
	if gm != 3 {
		t.Errorf("%d of the GM's sign-up controls in the audit log, want 3 (two removals, the close)", gm)
	}

	t.Run("end cancels", func(t *testing.T) {
		tb := newSignups(t, storetest.SQLite(t), "resistance", nil, su)
		tb.tick()
		if err := tb.m.End(ctx, tb.g.Name); err != nil {
			t.Fatal(err)
		}
		tb.tick()
		if s := tb.row().Status; s != Cancelled {
			t.Fatalf("after end: %s", s)
		}
		posts := tb.botPosts()
		if last := posts[len(posts)-1]; !strings.Contains(last, "The GM has cancelled the game") {
			t.Errorf("the cancel post:\n%s", last)
		}
	})
}

// TestSignupsSurviveCrashes: a game filled by sign-ups and played to its
// end, then again with the moderator killed at every point of its ticks —
// among them inside the step that closes sign-ups and starts the game
// (undone with it) and right after it (the close post, the opening post and
// the role PMs saved, none sent): the thread and every PM come out exactly
// as in the clean run, nothing lost, nothing twice. A restarted moderator
// ticks again at once, as `forumgm run` does, so the runs keep one clock.
func TestSignupsSurviveCrashes(t *testing.T) {
	run := func(t *testing.T, db *store.DB, crash func(point string) bool) (posts []string, pms map[string][]string) {
		tb := newSignups(t, db, "resistance", map[string]any{"phase_hours": 0.1},
			gameconfig.Signups{Min: 5, Max: 6, Close: "1h", Extension: "30m"})
		mk := func() *Moderator {
			m := tb.moderator()
			m.Crash = func(point string) error {
				if crash(point) {
					return ErrCrash
				}
				return nil
			}
			return m
		}
		tb.m = mk()
		eng, _ := rules.Lookup("resistance")
		sim := &simplayers.Table{Game: eng, Seed: 5}
		signups := map[int][]string{1: {"Ann", "Ben"}, 2: {"Cat"}, 4: {"Dan", "Eli"}, 5: {"Fay", "Gus"}}
		for iter := 0; iter < 3000; iter++ {
			for _, p := range signups[iter] {
				tb.post(p, "[b]/in[/b]")
			}
			row := tb.row()
			if row.Status == Running || row.Status == Finished {
				st, err := eng.Decode(row.State)
				if err != nil {
					t.Fatal(err)
				}
				if row.Status == Finished && tb.drained() {
					return tb.botPosts(), tb.ff.SentTo()
				}
				if _, err := sim.Act(context.Background(), st, tb.ff); err != nil {
					t.Fatal(err)
				}
			}
			for tries := 0; ; tries++ {
				err := tb.m.Tick(context.Background(), tb.g.ID)
				if err == nil {
					break
				}
				if !errors.Is(err, ErrCrash) || tries > 50 {
					t.Fatalf("tick %d: %v", iter, err)
				}
				tb.m = mk() // the process died; a new one starts from the database
			}
			tb.clk.Advance(time.Minute)
		}
		t.Fatalf("did not finish: %s", tb.ff)
		return nil, nil
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		cleanPosts, cleanPMs := run(t, db, func(string) bool { return false })
		if len(cleanPosts) < 6 {
			t.Fatalf("the clean run made %d posts", len(cleanPosts))
		}
		checkNoDuplicates(t, outcome{posts: cleanPosts, pms: cleanPMs})
		fresh := func() *store.DB {
			if db.Driver() == "postgres" {
				return storetest.Postgres(t)
			}
			return storetest.SQLite(t)
		}
		hit := map[string]int{}
		// The sign-ups' own points, and the sends of what the close queued.
		points := []string{"in-signups", "after-signups", "before-send", "after-send", "after-read"}
		seeds := []uint64{1, 2}
		if db.Driver() == "postgres" {
			seeds = seeds[:1]
		}
		for _, seed := range seeds {
			rng := rand.New(rand.NewPCG(seed, 7))
			posts, pms := run(t, fresh(), func(point string) bool {
				// Every sign-up point twice, the rest at random.
				always := (point == "in-signups" || point == "after-signups") && hit[point] < 2*int(seed)
				if always || rng.Float64() < 0.1 {
					hit[point]++
					return true
				}
				return false
			})
			checkNoDuplicates(t, outcome{posts: posts, pms: pms})
			if !reflect.DeepEqual(cleanPosts, posts) {
				t.Errorf("seed %d: the thread differs: %d clean posts, %d with crashes", seed, len(cleanPosts), len(posts))
				for i := range min(len(posts), len(cleanPosts)) {
					if posts[i] != cleanPosts[i] {
						t.Errorf("first difference, post %d:\nclean   %s\ncrashed %s", i, cleanPosts[i], posts[i])
						break
					}
				}
			}
			if !reflect.DeepEqual(cleanPMs, pms) {
				t.Errorf("seed %d: the PMs differ", seed)
			}
		}
		for _, p := range points {
			if hit[p] == 0 {
				t.Errorf("no crash at %q", p)
			}
		}
		t.Logf("crashes: %v", hit)
	})
}

// drained: nothing left in the outbox to send.
func (tb *suTable) drained() bool {
	var it *store.OutboxItem
	tb.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		it, err = tx.NextOutbox(tb.g.ID, start.AddDate(1, 0, 0))
		return err
	})
	return it == nil
}
