package moderator

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/gamelog"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/nations"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// nationsRig is a 3-player Nations game on the fake forum.
type nationsRig struct {
	t   *testing.T
	ctx context.Context
	db  *store.DB
	clk *clock.Fake
	ff  *forumtest.Board
	m   *Moderator
	id  int64
}

func newNations(t *testing.T, db *store.DB) *nationsRig { return newNationsOn(t, db, nil) }

// newNationsIn is newNations on a board whose bot account reads times in zone.
func newNationsIn(t *testing.T, db *store.DB, zone string) *nationsRig {
	return newNationsOn(t, db, func(fc *gameconfig.ForumConfig) { fc.TimeZone = zone })
}

// newNationsOn is newNations with the forum settings changed by set.
func newNationsOn(t *testing.T, db *store.DB, set func(*gameconfig.ForumConfig)) *nationsRig {
	r := &nationsRig{t: t, ctx: context.Background(), db: db, clk: clock.NewFake(start)}
	r.ff = forumtest.New(r.clk)
	r.m = &Moderator{DB: db, Clock: r.clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return r.ff, nil }}
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob", "Carol"}, Options: map[string]any{"rounds": 2, "round_minutes": 10, "break_minutes": 1}, Seed: 3, Start: start}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
	if set != nil {
		set(&fc)
	}
	g, err := r.m.Create(r.ctx, "n1", "nations", gc, fc, []store.Player{{Slot: "Alice", ForumName: "Alice"}, {Slot: "Bob", ForumName: "Bob"}, {Slot: "Carol", ForumName: "Carol"}})
	if err != nil {
		t.Fatal(err)
	}
	r.id = g.ID
	r.tick()
	return r
}

func (r *nationsRig) tick() {
	r.t.Helper()
	if err := r.m.Tick(r.ctx, r.id); err != nil {
		r.t.Fatal(err)
	}
}

func (r *nationsRig) state() (*nations.State, *store.Game) {
	r.t.Helper()
	var g *store.Game
	r.db.View(r.ctx, func(tx *store.Tx) error { var err error; g, err = tx.GameByID(r.id); return err })
	eng, _ := rules.Lookup("nations")
	s, err := eng.Decode(g.State)
	if err != nil {
		r.t.Fatal(err)
	}
	return s.(*nations.State), g
}

func (r *nationsRig) commands(player string) []store.CommandRow {
	var cs []store.CommandRow
	r.db.View(r.ctx, func(tx *store.Tx) error {
		var err error
		cs, err = tx.Commands(r.id, store.CommandFilter{Player: player})
		return err
	})
	return cs
}

func TestEditsDeletionsAndGMControls(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newNations(t, db)
		ctx := r.ctx

		// An edit before the deadline replaces the post's commands.
		r.ff.Post(ctx, "Alice", "I pick [b]CIV: Fire[/b]")
		post := r.ff.LastID()
		r.tick()
		if s, _ := r.state(); s.CivOf("Alice") != "Fire" {
			t.Fatalf("civ %s", s.CivOf("Alice"))
		}
		r.ff.Edit(post, "Changed my mind: [b]CIV: Water[/b]")
		r.tick()
		s, _ := r.state()
		if s.CivOf("Alice") != "Water" {
			t.Fatalf("after the edit civ is %s, want Water", s.CivOf("Alice"))
		}
		statuses := map[string]string{}
		for _, c := range r.commands("Alice") {
			statuses[c.Text] = string(c.Status)
		}
		if statuses["CIV: Fire"] != "superseded" || statuses["CIV: Water"] != "accepted" {
			t.Errorf("command statuses after an edit: %v", statuses)
		}

		// Void: Bob's order is cancelled and the state recomputed without it.
		r.ff.PM(ctx, "Bob", "INVADE Carol")
		r.tick()
		var bobCmd int64
		for _, c := range r.commands("Bob") {
			if c.Status == "accepted" {
				bobCmd = c.ID
			}
		}
		if s, _ := r.state(); !contains(nationsActed(s), "Bob") {
			t.Fatal("Bob's order not applied")
		}
		if err := r.m.Void(ctx, "n1", bobCmd, "sent by mistake"); err != nil {
			t.Fatal(err)
		}
		if s, _ := r.state(); contains(nationsActed(s), "Bob") {
			t.Error("a voided order still counts")
		}
		if s, _ := r.state(); s.CivOf("Alice") != "Water" {
			t.Error("voiding one command lost another")
		}
		if err := r.m.Void(ctx, "n1", bobCmd, ""); err == nil {
			t.Error("voiding twice should fail")
		}

		// Pause: the deadline does not pass; resume moves it by the pause.
		_, g := r.state()
		dl := g.Deadline
		if err := r.m.Pause(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		r.clk.Advance(30 * time.Minute)
		r.tick()
		if s, _ := r.state(); s.Round != 1 {
			t.Fatal("a paused game resolved")
		}
		if err := r.m.Resume(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		_, g = r.state()
		if want := dl.Add(30 * time.Minute); !g.Deadline.Equal(want) {
			t.Errorf("deadline after resume %v, want %v", g.Deadline, want)
		}
		// Extend by a minute more.
		if nd, err := r.m.Extend(ctx, "n1", time.Minute); err != nil || !nd.Equal(dl.Add(31*time.Minute)) {
			t.Errorf("extend: %v %v", nd, err)
		}

		// Replace: Dave takes Bob's slot; Dave's PMs count, Bob's do not.
		if slot, left, err := r.m.Replace(ctx, "n1", "bob", "Dave", ""); err != nil || slot != "Bob" || left != "Bob" {
			t.Fatal(err)
		}
		r.ff.PM(ctx, "Bob", "PROSPER")
		r.ff.PM(ctx, "Dave", "INVADE alice")
		r.tick()
		if s, _ := r.state(); !contains(nationsActed(s), "Bob") {
			t.Error("the replacement's order did not count for the slot")
		}

		// Deletion is flagged; the deleted post's commands stand.
		r.ff.Post(ctx, "Carol", "[b]CIV: Earth[/b]")
		carolPost := r.ff.LastID()
		r.ff.Post(ctx, "Alice", "chatter")
		chatter := r.ff.LastID()
		r.tick()
		r.ff.Remove(carolPost)
		r.tick()
		if s, _ := r.state(); s.CivOf("Carol") != "Earth" {
			t.Error("a deleted post's command should stand")
		}
		rows, _, err := r.m.Audit(ctx, "n1", gamelog.Filter{Player: "Carol"})
		if err != nil {
			t.Fatal(err)
		}
		deleted := false
		for _, row := range rows {
			deleted = deleted || (row.Message.ForumID == carolPost && row.Message.Deleted)
		}
		if !deleted {
			t.Error("the deletion is not in the audit log")
		}

		// Resolve now, then an edit of a closed phase's post is only flagged.
		r.clk.Advance(time.Minute)
		if _, err := r.m.ResolveNow(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		r.tick()
		// (The GM's announcements above pushed Alice's first post off the
		// page a poll re-reads; her chatter, also of round 1, is on it.)
		r.ff.Edit(chatter, "[b]CIV: Earth[/b]")
		r.tick()
		if s, _ := r.state(); s.CivOf("Alice") != "Water" {
			t.Error("an edit after the deadline changed a closed phase")
		}
		flagged := false
		for _, c := range r.commands("Alice") {
			flagged = flagged || (c.Kind == "edit" && strings.Contains(c.Reason, "after its phase's deadline"))
		}
		if !flagged {
			t.Error("a late edit is not flagged for the GM")
		}

		// The audit shows rejected commands with their reasons.
		r.ff.PM(ctx, "Carol", "INVADE Carol\nFLY TO THE MOON")
		r.tick()
		rows, _, _ = r.m.Audit(ctx, "n1", gamelog.Filter{Player: "carol"})
		var reasons []string
		for _, row := range rows {
			for _, c := range row.Commands {
				if c.Status == "rejected" {
					reasons = append(reasons, c.Reason)
				}
			}
		}
		if len(reasons) != 2 {
			t.Errorf("rejections in the audit: %q", reasons)
		}

		// End: final standings go out and the game stops.
		if err := r.m.End(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		r.tick()
		if _, g := r.state(); g.Status != Ended {
			t.Errorf("status %s after end", g.Status)
		}
		if _, err := r.m.ResolveNow(ctx, "n1"); err == nil {
			t.Error("resolving an ended game should fail")
		}
	})
}

// TestEditSeenAfterTheDeadline: an edit the bot first sees after the
// deadline (even before it resolved the phase) does not change that phase.
func TestEditSeenAfterTheDeadline(t *testing.T) {
	r := newNations(t, storetest.SQLite(t))
	r.ff.Post(r.ctx, "Alice", "[b]CIV: Fire[/b]")
	post := r.ff.LastID()
	r.tick()
	r.clk.Advance(11 * time.Minute) // round 1's 10 minutes are over
	r.ff.Edit(post, "[b]CIV: Water[/b]")
	r.tick()
	if s, _ := r.state(); s.CivOf("Alice") != "Fire" {
		t.Errorf("civ %s: an edit seen after the deadline changed the phase", s.CivOf("Alice"))
	}
}

func nationsActed(s *nations.State) []string {
	return (nations.Game{}).Status(s).Acted
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestOneForumDownDoesNotStallAnother runs the daemon over two games whose
// forums are one down and one up: the second still gets its posts.
func TestOneForumDownDoesNotStallAnother(t *testing.T) {
	db := storetest.SQLite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	down := forumtest.New(clock.Real{})
	down.Down = true
	up := forumtest.New(clock.Real{})
	var downCalls atomic.Int32
	m := &Moderator{DB: db, Clock: clock.Real{}, Connect: func(_ context.Context, site *gameconfig.Site) (Forum, error) {
		if site.Forum.Thread == "down" {
			downCalls.Add(1)
			return down, nil
		}
		return up, nil
	}}
	for _, th := range []string{"down", "up"} {
		gc := gameconfig.GameConfig{Players: []string{"A1", "B2"}, Seed: 1, Start: time.Now()}
		fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: th, Bot: "GMbot", PasswordEnv: "X", PollSeconds: 0.05}
		if _, err := m.Create(ctx, "g-"+th, "nations", gc, fc, nil); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error)
	go func() { done <- m.Run(ctx) }()
	for ctx.Err() == nil && len(up.BotPosts()) == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	if len(up.BotPosts()) == 0 {
		t.Fatal("the healthy game's opening post was never sent")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if downCalls.Load() == 0 {
		t.Error("the down forum was never tried")
	}
}

// TestReplaceRedirectsQueuedPMs: a role PM not yet sent goes to the player
// who took the slot, not the one who left.
func TestReplaceRedirectsQueuedPMs(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(start)
		ff := forumtest.New(clk)
		ff.Missing, ff.MemberIDs = map[string]bool{"Nobody": true}, map[string]string{"Benedict": "99", "Bo": "7", "Annex": "2"}
		m := &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return ff, nil }}
		players := []string{"Ann", "Ben", "Cat", "Dan", "Eli"}
		var ps []store.Player
		for i, p := range players {
			ps = append(ps, store.Player{Slot: p, ForumName: p, ForumUserID: string(rune('2' + i))})
		}
		gc := gameconfig.GameConfig{Players: players, Seed: 1, Start: start}
		fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
		g, err := m.Create(ctx, "r1", "resistance", gc, fc, ps)
		if err != nil {
			t.Fatal(err)
		}
		// An account whose board id is another player's (Ann's role PM
		// would go to her account).
		if _, _, err := m.Replace(ctx, "r1", "Ben", "Annex", ""); err == nil || !strings.Contains(err.Error(), "already Ann's") {
			t.Fatalf("taking Ann's forum id for Ben's slot: %v", err)
		}
		// Refused: an account the board does not have, another player's
		// name (however written), a user id the board contradicts.
		for _, c := range []struct{ newName, id, want string }{
			{"Nobody", "", "no account named"},
			{"cat", "", "already a player"},
			{"Bo", "8", "user id 7, not 8"},
		} {
			if _, _, err := m.Replace(ctx, "r1", "Ben", c.newName, c.id); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("replace Ben by %s: %v, want %q", c.newName, err, c.want)
			}
		}
		if _, _, err := m.Replace(ctx, "r1", "Ben", "Benedict", ""); err != nil {
			t.Fatal(err)
		}
		// A second replacement may not take a name the slot's neighbours
		// answer to, nor come back to a refused one.
		if _, _, err := m.Replace(ctx, "r1", "Ann", "Ben", ""); err == nil || !strings.Contains(err.Error(), "a name Benedict answers to") {
			t.Errorf("Ann replaced by Ben (now Benedict's alias): %v", err)
		}
		var out []store.OutboxItem
		db.View(ctx, func(tx *store.Tx) error { out, err = tx.Outbox(g.ID); return err })
		found := false
		for _, it := range out {
			if it.Recipient == "Ben" {
				found = true
				if it.RecipientName != "Benedict" || it.RecipientID != "99" {
					t.Errorf("Ben's queued PM goes to %s (%s)", it.RecipientName, it.RecipientID)
				}
			}
		}
		if !found {
			t.Fatal("no role PM queued for Ben")
		}
		// The thread is told, and Benedict gets what Ben was told privately.
		var told, handed int
		for _, it := range out {
			if it.Kind == "post" && strings.Contains(it.Body, "Benedict replaces Ben") {
				told++
			}
			if it.Recipient == "Ben" && strings.HasPrefix(it.Body, "You take over Ben's place") {
				handed++
				if !strings.Contains(it.Body, "You are") || it.RecipientName != "Benedict" || it.RecipientID != "99" {
					t.Errorf("the handover PM:\n%s\n(to %s, %s)", it.Body, it.RecipientName, it.RecipientID)
				}
			}
		}
		if told != 1 || handed != 1 {
			t.Errorf("%d announcements and %d handover PMs, want 1 each", told, handed)
		}
	})
}

// TestPMsRoutedBetweenGames: two games share a board and a bot account, and
// Alice plays in both. Her PMs go to the game their subject names; one that
// names none is answered once, by the older game, and read by neither. The
// board and the account are the same however the two games' settings write
// them: a trailing slash, letter case (the bug of issue 19: such games
// shared one session and inbox, yet each took Alice's PMs as its own).
func TestPMsRoutedBetweenGames(t *testing.T) {
	for _, tc := range []struct {
		name       string
		urls, bots [2]string
	}{
		{"the same settings", [2]string{"http://fake/", "http://fake/"}, [2]string{"GMbot", "GMbot"}},
		{"a trailing slash and letter case", [2]string{"http://fake/", "http://FAKE"}, [2]string{"GMbot", "gmbot"}},
	} {
		t.Run(tc.name, func(t *testing.T) { pmsRoutedBetweenGames(t, tc.urls, tc.bots) })
	}
}

// sharedInbox is Nations games on one fake board: game i named names[i]
// with players[i], its forum settings from urls[i] and bots[i] (or the
// first's when shorter).
type sharedInbox struct {
	db  *store.DB
	ff  *forumtest.Board
	m   *Moderator
	ids []int64
}

func newSharedInbox(t testing.TB, urls, bots, names []string, players [][]string) *sharedInbox {
	t.Helper()
	db := storetest.SQLite(t)
	clk := clock.NewFake(start)
	ff := forumtest.New(clk)
	si := &sharedInbox{db: db, ff: ff, m: &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return ff, nil }}}
	opts := map[string]any{"rounds": 2, "round_minutes": 10}
	for i, name := range names {
		fc := gameconfig.ForumConfig{URL: urls[min(i, len(urls)-1)], Engine: "phpbb", Thread: "1", Bot: bots[min(i, len(bots)-1)], PasswordEnv: "X"}
		row, err := si.m.Create(context.Background(), name, "nations", gameconfig.GameConfig{Players: players[i], Options: opts, Seed: 1, Start: start}, fc, nil)
		if err != nil {
			t.Fatal(err)
		}
		si.ids = append(si.ids, row.ID)
	}
	return si
}

func pmsRoutedBetweenGames(t *testing.T, urls, bots [2]string) {
	ctx := context.Background()
	si := newSharedInbox(t, urls[:], bots[:], []string{"spies", "spies-2"}, [][]string{{"Alice", "Bob"}, {"Alice", "Carol"}})
	db, ff, m, ids := si.db, si.ff, si.m, si.ids
	tick := func() {
		for _, id := range ids {
			if err := m.Tick(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	tick()
	ff.PMSubject("Alice", "orders", "INVADE Bob")
	ff.PMSubject("Alice", "Re: [spies-2] Nations — Round 1 of 2: your orders", "INVADE Carol")
	ff.PMSubject("Bob", "hi", "PROSPER")
	tick()
	ff.PMSubject("Alice", "[spies] orders", "PROSPER")
	tick()
	orders := func(id int64) map[string]string {
		out := map[string]string{}
		db.View(ctx, func(tx *store.Tx) error {
			cs, _ := tx.Commands(id, store.CommandFilter{})
			for _, c := range cs {
				out[c.Player+": "+c.Text] = string(c.Status)
			}
			return nil
		})
		return out
	}
	g1, g2 := orders(ids[0]), orders(ids[1])
	want1 := map[string]string{"Alice: (orders)": "rejected", "Bob: PROSPER": "accepted", "Alice: PROSPER": "accepted"}
	want2 := map[string]string{"Alice: INVADE Carol": "accepted"}
	for k, v := range want1 {
		if g1[k] != v {
			t.Errorf("spies: %s is %q, want %q (all: %v)", k, g1[k], v, g1)
		}
	}
	for k, v := range want2 {
		if g2[k] != v {
			t.Errorf("spies-2: %s is %q, want %q (all: %v)", k, g2[k], v, g2)
		}
	}
	if len(g2) != 1 {
		t.Errorf("spies-2 read more than its own PM: %v", g2)
	}
	asked := 0
	for _, pm := range ff.SentTo()["Alice"] {
		if strings.Contains(pm, "several games") {
			asked++
		}
	}
	if asked != 1 {
		t.Errorf("Alice was asked to name the game %d times, want once", asked)
	}
}
