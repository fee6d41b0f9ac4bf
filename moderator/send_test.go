package moderator

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestRefusedMessageDoesNotBlockTheGame: a PM the board refuses for good is
// marked failed at once, later messages still go out, and `retry` sends it
// once the GM has fixed the cause.
func TestRefusedMessageDoesNotBlockTheGame(t *testing.T) {
	db := storetest.SQLite(t)
	ctx := context.Background()
	clk := clock.NewFake(start)
	ff := forumtest.New(clk)
	ff.Refuse = "Ben"
	m := &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return ff, nil }}
	players := []string{"Ann", "Ben", "Cat", "Dan", "Eli"}
	gc := gameconfig.GameConfig{Players: players, Seed: 1, Start: start}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
	g, err := m.Create(ctx, "r", "resistance", gc, fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Tick(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	got := ff.SentTo()
	if len(got["Ben"]) != 0 || len(got["Cat"]) != 1 || len(got["Eli"]) != 1 {
		t.Fatalf("role PMs sent: %v", got)
	}
	var failed []store.OutboxItem
	db.View(ctx, func(tx *store.Tx) error {
		items, _ := tx.Outbox(g.ID)
		for _, it := range items {
			if it.State == "failed" {
				failed = append(failed, it)
			}
		}
		return nil
	})
	if len(failed) != 1 || failed[0].Recipient != "Ben" || !strings.Contains(failed[0].LastError, "no such user") {
		t.Fatalf("failed items: %+v", failed)
	}
	ff.Refuse = ""
	if n, err := m.Retry(ctx, "r", failed[0].Marker); err != nil || n != 1 {
		t.Fatalf("retry: %d %v", n, err)
	}
	if err := m.Tick(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	if len(ff.SentTo()["Ben"]) != 1 {
		t.Error("the retried PM was not sent")
	}
	if _, err := m.Retry(ctx, "r", "nope"); err == nil {
		t.Error("retrying an unknown marker should fail")
	}
}

// TestUncertainPostFoundAmongStoredPosts: after a lost answer, the bot finds
// its post among the thread posts it has already read, without searching the
// forum again.
func TestUncertainPostFoundAmongStoredPosts(t *testing.T) {
	db := storetest.SQLite(t)
	ctx := context.Background()
	clk := clock.NewFake(start)
	ff := forumtest.New(clk)
	ff.Lose = 1
	m := &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return ff, nil }}
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Seed: 1, Start: start}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
	g, err := m.Create(ctx, "n", "nations", gc, fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Tick(ctx, g.ID); err == nil {
		t.Fatal("the lost answer should surface as an error")
	}
	if err := m.Tick(ctx, g.ID); err != nil { // reads its own post, then finds it stored
		t.Fatal(err)
	}
	if n := len(ff.BotPosts()); n != 1 {
		t.Errorf("%d opening posts, want 1", n)
	}
	if ff.Finds != 0 {
		t.Errorf("searched the forum %d times; the stored post should have been enough", ff.Finds)
	}
}

// TestExtendIntoThePastIsRefused: moving a deadline before now would resolve
// phases at times that already passed.
func TestExtendIntoThePastIsRefused(t *testing.T) {
	r := newNations(t, storetest.SQLite(t))
	r.clk.Advance(time.Minute)
	if _, err := r.m.Extend(r.ctx, "n1", -30*time.Minute); err == nil || !strings.Contains(err.Error(), "resolve-now") {
		t.Errorf("extend -30m: %v", err)
	}
	if _, err := r.m.Extend(r.ctx, "n1", -5*time.Minute); err != nil {
		t.Errorf("extend -5m (still ahead): %v", err)
	}
}

// TestLateMessageIsAnswered: a PM made at 12:05:13 but read only after the
// GM resolved the round at 12:09 cannot count for the closed round; it is
// rejected and its sender told plainly why (which phase, closed when).
func TestLateMessageIsAnswered(t *testing.T) {
	r := newNations(t, storetest.SQLite(t))
	r.ff.PMAt("Bob", "PROSPER", start.Add(5*time.Minute+13*time.Second))
	r.clk.Advance(9 * time.Minute)
	if _, err := r.m.ResolveNow(r.ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	r.clk.Advance(2 * time.Second)
	r.tick()
	var reasons []string
	for _, c := range r.commands("Bob") {
		reasons = append(reasons, string(c.Status)+": "+c.Reason)
	}
	if len(reasons) != 1 || !strings.Contains(reasons[0], "rejected: arrived after Round 1 of 2 had closed (Sun 1 Mar 12:09:00 UTC)") {
		t.Errorf("Bob's commands: %q", reasons)
	}
	told := false
	for _, pm := range r.ff.SentTo()["Bob"] {
		told = told || strings.Contains(pm, "“PROSPER” — arrived after Round 1 of 2 had closed (Sun 1 Mar 12:09:00 UTC): it was made before then but reached the bot only after")
	}
	if !told {
		t.Errorf("Bob was not told: %q", r.ff.SentTo()["Bob"])
	}
}

// TestPanicInATickIsAnError: one game's crash does not take the daemon down.
func TestPanicInATickIsAnError(t *testing.T) {
	db := storetest.SQLite(t)
	m := &Moderator{DB: db, Clock: clock.NewFake(start), Connect: func(context.Context, *gameconfig.Site) (Forum, error) { panic("boom") }}
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Seed: 1, Start: start}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
	g, err := m.Create(context.Background(), "p", "nations", gc, fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.safeTick(context.Background(), g.ID); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("safeTick: %v", err)
	}
}

func TestNextDue(t *testing.T) {
	now := start
	later := start.Add(time.Minute)
	item := func(id int64, kind forum.MessageKind, to, state string, nb time.Time) store.OutboxItem {
		return store.OutboxItem{ID: id, Kind: kind, Recipient: to, State: store.OutboxState(state), NotBefore: nb}
	}
	class := func(it store.OutboxItem, c store.SendClass) store.OutboxItem { it.Class = c; return it }
	tests := []struct {
		name  string
		items []store.OutboxItem
		want  int64 // 0: none
	}{
		{"first pending", []store.OutboxItem{item(1, "post", "", "sent", now), item(2, "post", "", "pending", now)}, 2},
		{"an interrupted send comes first", []store.OutboxItem{item(1, "pm", "A", "sending", now), item(2, "post", "", "pending", now)}, 1},
		{"a held post holds later posts", []store.OutboxItem{item(1, "post", "", "pending", later), item(2, "post", "", "pending", now)}, 0},
		{"but not a receipt", []store.OutboxItem{item(1, "post", "", "pending", later), item(2, "pm", "A", "pending", now)}, 2},
		{"one player's held PM, another's goes", []store.OutboxItem{item(1, "pm", "A", "pending", later), item(2, "pm", "A", "pending", now), item(3, "pm", "B", "pending", now)}, 3},
		{"failed items are passed over", []store.OutboxItem{item(1, "post", "", "failed", now), item(2, "post", "", "pending", now)}, 2},
		{"nothing due", []store.OutboxItem{item(1, "post", "", "sent", now)}, 0},
		{"an unconfirmed send is checked first", []store.OutboxItem{item(1, "pm", "A", "unconfirmed", now), item(2, "pm", "A", "pending", now)}, 1},
		{"split items are passed over", []store.OutboxItem{item(1, "pm", "A", "split", now), item(2, "pm", "A", "pending", now)}, 2},
		{"a held lane is passed over", []store.OutboxItem{item(1, "pm", "A", "sending", now), item(2, "pm", "A", "pending", now), item(3, "post", "", "pending", now)}, 3},
		// Classes: of the lanes' first items, results, then answers, then
		// reminders; the oldest among equals; a lane keeps its order.
		{"results before an answer", []store.OutboxItem{class(item(1, "pm", "A", "pending", now), store.SendAnswers), class(item(2, "post", "", "pending", now), store.SendResults)}, 2},
		{"an answer before a reminder", []store.OutboxItem{class(item(1, "pm", "A", "pending", now), store.SendChores), class(item(2, "pm", "B", "pending", now), store.SendAnswers)}, 2},
		{"the oldest among equals", []store.OutboxItem{class(item(1, "pm", "A", "pending", now), store.SendAnswers), class(item(2, "pm", "B", "pending", now), store.SendAnswers)}, 1},
		{"a lane keeps its order", []store.OutboxItem{class(item(1, "post", "", "pending", now), store.SendChores), class(item(2, "post", "", "pending", now), store.SendResults), class(item(3, "pm", "B", "pending", now), store.SendAnswers)}, 3},
	}
	for _, tc := range tests {
		got := nextDue(tc.items, now, map[string]bool{"pm:A": tc.name == "a held lane is passed over"})
		var id int64
		if got != nil {
			id = got.ID
		}
		if id != tc.want {
			t.Errorf("%s: next %d, want %d", tc.name, id, tc.want)
		}
	}
}

// TestMessagesBeforeTheGameAreIgnored: a thread that had sign-up chatter
// before the opening post (and a PM the bot got earlier): none of it is read
// as a command, the audit log says why, and nobody is messaged about it.
func TestMessagesBeforeTheGameAreIgnored(t *testing.T) {
	db := storetest.SQLite(t)
	ctx := context.Background()
	clk := clock.NewFake(start)
	ff := forumtest.New(clk)
	ff.PMAt("Bob", "INVADE Alice", start.Add(-time.Hour))
	ff.PostAt("Alice", "[b]I'm in![/b] [b]CIV: Fire[/b]", start.Add(-2*time.Hour))
	m := &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return ff, nil }}
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Seed: 1, Start: start}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
	g, err := m.Create(ctx, "n", "nations", gc, fc, []store.Player{{Slot: "Alice", ForumName: "Alice"}, {Slot: "Bob", ForumName: "Bob"}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the opening post goes up; the next read sees it
		if err := m.Tick(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
		clk.Advance(10 * time.Second)
	}
	var cs []store.CommandRow
	db.View(ctx, func(tx *store.Tx) error { cs, err = tx.Commands(g.ID, store.CommandFilter{}); return err })
	reasons := map[string]string{}
	for _, c := range cs {
		if c.Status != store.CommandIgnored {
			t.Errorf("a command from before the game is %s: %+v", c.Status, c)
		}
		reasons[c.Text] = c.Reason
	}
	want := map[string]string{
		"INVADE Alice": "made before the game began (Sun 1 Mar 12:00:00 UTC)",
		// Read before the opening post was confirmed: its stamp says it.
		"I'm in!":   "made before the game began (Sun 1 Mar 12:00:00 UTC)",
		"CIV: Fire": "made before the game began (Sun 1 Mar 12:00:00 UTC)",
	}
	if !reflect.DeepEqual(reasons, want) {
		t.Errorf("audit reasons %q, want %q", reasons, want)
	}
	for who, pms := range ff.SentTo() {
		for _, pm := range pms {
			if strings.Contains(pm, "before the game") {
				t.Errorf("%s was messaged: %q", who, pm)
			}
		}
	}
}

// TestATakenMessageIsNeverResent (issue 44, item 1): the board answers the
// opening post with its own success page, but the post's marker cannot be
// found (the board garbled it, as one in another charset does). The post
// is "taken": never sent again by itself, over many ticks past every
// back-off and recheck, while the game's other messages go out; status
// counts it for the GM. Only the GM's `retry` sends it again, after one
// more look for its marker.
func TestATakenMessageIsNeverResent(t *testing.T) {
	db := storetest.SQLite(t)
	ctx := context.Background()
	clk := clock.NewFake(start)
	ff := forumtest.New(clk)
	ff.SaidSent = 1
	m := &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return ff, nil }}
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Seed: 1, Start: start}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
	g, err := m.Create(ctx, "taken", "nations", gc, fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	opening := func() store.OutboxItem {
		var it store.OutboxItem
		db.View(ctx, func(tx *store.Tx) error {
			items, err := tx.Outbox(g.ID)
			for _, o := range items {
				if o.Kind == forum.KindPost && it.ID == 0 {
					it = o
				}
			}
			return err
		})
		return it
	}
	for range 30 { // 15 minutes: past every back-off and recheck
		if err := m.Tick(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
		clk.Advance(30 * time.Second)
	}
	ff.Post(ctx, "Alice", "[b]PROSPER[/b]") // a command: its receipt still goes out
	for range 4 {
		m.Tick(ctx, g.ID)
		clk.Advance(30 * time.Second)
	}
	all := strings.Join(ff.BotPosts(), "\n")
	if n := strings.Count(all, opening().Marker); n != 1 || !strings.Contains(all, "¿"+opening().Marker) {
		t.Fatalf("the opening post is on the board %d times; want once, garbled", n)
	}
	it := opening()
	if it.State != store.OutboxTaken || !strings.Contains(it.LastError, "the board said it was sent") {
		t.Errorf("the opening post is %s (%s); want taken, saying what the board said", it.State, it.LastError)
	}
	rs, err := m.Report(ctx, "taken")
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Taken != 1 {
		t.Errorf("status counts %d taken messages, want 1", rs[0].Taken)
	}
	if len(ff.SentTo()["Alice"]) == 0 && len(ff.BotPosts()) < 2 {
		t.Errorf("nothing after the taken post went out: it holds the others up")
	}
	if n, err := m.Retry(ctx, "taken", it.Marker); err != nil || n != 1 {
		t.Fatalf("retry: %d %v", n, err)
	}
	finds := ff.Finds
	if err := m.Tick(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	if ff.Finds == finds {
		t.Error("the retried post was sent without a look for its marker")
	}
	if it := opening(); it.State != store.OutboxSent {
		t.Errorf("after the GM's retry: %s (%s), want sent", it.State, it.LastError)
	}
}

// TestAQuietTickDecodesTheGameOnce (issue 40): a tick whose read brings
// nothing new decodes the game once, for its view; its last step takes
// the state from the view, the same revision. A tick that records a
// command decodes it again only after a step saved the game.
func TestAQuietTickDecodesTheGameOnce(t *testing.T) {
	db := storetest.SQLite(t)
	ctx := context.Background()
	clk := clock.NewFake(start)
	ff := forumtest.New(clk)
	m := &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return ff, nil }}
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Seed: 1, Start: start}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
	g, err := m.Create(ctx, "quiet", "nations", gc, fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the opening post, then its own read
		if err := m.Tick(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Second)
	}
	before := m.decodes.Load()
	if err := m.Tick(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	if n := m.decodes.Load() - before; n != 1 {
		t.Errorf("a quiet tick decoded the game %d times, want once", n)
	}
	ff.Post(ctx, "Alice", "[b]PROSPER[/b]")
	before = m.decodes.Load()
	if err := m.Tick(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	t.Logf("a tick recording a command decoded the game %d times", m.decodes.Load()-before)
	st, _ := m.Report(ctx, "quiet")
	if a := st[0].Activity; len(a) == 0 {
		t.Fatalf("no activity after Alice's order")
	}
}

// notYetBoard is the fake board whose first reply never leaves.
type notYetBoard struct {
	*forumtest.Board
	tried bool
}

func (b *notYetBoard) Reply(ctx context.Context, thread, body, key string) (string, error) {
	if !b.tried {
		b.tried = true
		return "", fmt.Errorf("%w: the form came too late", forum.ErrNotSubmitted)
	}
	return b.Board.Reply(ctx, thread, body, key)
}

// TestTheClockStartsWhenTheOpeningPostWentUp: the opening post goes up 70
// s after the thread was last read (the crash loop's case: processes
// restarting, a window waited out), its game's sender apart from its
// reads as in `forumgm run`. Answered, the clock starts when its request
// left. Its answer lost and the post found on the board by its marker
// before any read recorded it, the clock's start is only a guess (the
// last read) until the next read records the post with the board's
// stamp, and starts there. Either way round 1 keeps its whole minute, not
// resolved at once for a deadline that passed before the post was up
// (issue 42's crash loop resolved the first rounds with no orders).
func TestTheClockStartsWhenTheOpeningPostWentUp(t *testing.T) {
	for _, lost := range []bool{false, true} {
		t.Run(map[bool]string{false: "answered", true: "found by its marker"}[lost], func(t *testing.T) {
			db := storetest.SQLite(t)
			ctx := context.Background()
			clk := clock.NewFake(start)
			ff := &notYetBoard{Board: forumtest.New(clk)}
			m := &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return ff, nil }}
			gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Seed: 1, Start: start, Options: map[string]any{"rounds": 2, "round_minutes": 1, "break_minutes": 0}}
			zero := 0.0
			fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X", DeadlineUnitSeconds: &zero}
			g, err := m.Create(ctx, "clock", "nations", gc, fc, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Tick(ctx, g.ID); err != nil { // read; the opening's form comes too late
				t.Fatal(err)
			}
			var epoch int64
			if err := db.Tx(ctx, func(tx *store.Tx) (err error) {
				epoch, _, err = tx.AcquireLease(g.ID, "me", time.Hour, true)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			fenced := store.WithFence(ctx, store.Fence{GameID: g.ID, Owner: "me", Epoch: epoch, Budget: time.Minute})
			clk.Advance(70 * time.Second)
			up := clk.Now()
			acct := fc.Account()
			if lost {
				ff.Lose = 1
				m.Send(fenced, g.ID, acct) // it goes up, its answer lost
				clk.Advance(time.Second)
			}
			if err := m.Send(fenced, g.ID, acct); err != nil { // answered, or found by its marker
				t.Fatal(err)
			}
			if n := len(ff.BotPosts()); n != 1 {
				t.Fatalf("%d opening posts, want 1", n)
			}
			clk.Advance(time.Second)
			if err := m.Tick(fenced, g.ID); err != nil { // reads it, with the board's stamp
				t.Fatal(err)
			}
			rs, err := m.Report(ctx, "clock")
			if err != nil {
				t.Fatal(err)
			}
			if st := rs[0].Rules; st.Phase != "round-1" || !st.Deadline.Equal(up.Add(time.Minute)) {
				t.Errorf("after the opening post went up at %s: phase %s, deadline %s; want round-1 until %s", up.Format("15:04:05"), st.Phase, st.Deadline.Format("15:04:05"), up.Add(time.Minute).Format("15:04:05"))
			}
		})
	}
}

// heldOpening is the fake board whose replies do not leave while held.
type heldOpening struct {
	*forumtest.Board
	held bool
}

func (b *heldOpening) Reply(ctx context.Context, thread, body, key string) (string, error) {
	if b.held {
		return "", fmt.Errorf("%w: the form came too late", forum.ErrNotSubmitted)
	}
	return b.Board.Reply(ctx, thread, body, key)
}

// heldGame is a two-round Nations game whose opening post does not leave
// while ff.held.
type heldGame struct {
	db  *store.DB
	clk *clock.Fake
	ff  *heldOpening
	m   *Moderator
	g   *store.Game
	t   *testing.T
}

func newHeldGame(t *testing.T) *heldGame {
	h := &heldGame{db: storetest.SQLite(t), clk: clock.NewFake(start), t: t}
	h.ff = &heldOpening{Board: forumtest.New(h.clk), held: true}
	h.m = &Moderator{DB: h.db, Clock: h.clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return h.ff, nil }}
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Seed: 1, Start: start, Options: map[string]any{"rounds": 2, "round_minutes": 1, "break_minutes": 0}}
	zero := 0.0
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X", DeadlineUnitSeconds: &zero}
	g, err := h.m.Create(context.Background(), "held", "nations", gc, fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.g = g
	return h
}

// phase is the game's phase and deadline, as its report gives them.
func (h *heldGame) phase() (string, time.Time) {
	rs, err := h.m.Report(context.Background(), "held")
	if err != nil {
		h.t.Fatal(err)
	}
	return rs[0].Rules.Phase, rs[0].Rules.Deadline
}

// TestNoDeadlineBeforeTheOpeningPost: while the opening post has not gone
// up, the game's clock has not started: two round lengths go by and no
// round resolves (the crash loop resolved two rounds with no orders while
// the post waited out its window). Once it is up, round 1 runs its whole
// length from then.
func TestNoDeadlineBeforeTheOpeningPost(t *testing.T) {
	ctx := context.Background()
	h := newHeldGame(t)
	clk, ff, m, g := h.clk, h.ff, h.m, h.g
	phase := h.phase
	for range 5 { // 2.5 minutes, the post held back
		m.Tick(ctx, g.ID)
		clk.Advance(30 * time.Second)
	}
	if ph, _ := phase(); ph != "round-1" {
		t.Fatalf("phase %s before the opening post went up, want round-1 still", ph)
	}
	ff.held = false
	up := clk.Now()
	for range 2 {
		if err := m.Tick(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
	}
	if ph, dl := phase(); ph != "round-1" || !dl.Equal(up.Add(time.Minute)) {
		t.Errorf("after the opening post went up at %s: %s until %s, want round-1 until %s", up.Format("15:04:05"), ph, dl.Format("15:04:05"), up.Add(time.Minute).Format("15:04:05"))
	}
}

// TestNoDeadlineBeforeTheOpeningPostAtAnOrder: a player's order read while
// the opening post is still on its way, stamped after two round lengths of
// the creation's clock, closes no round (an order surely made after a
// deadline closes that phase first, but that clock has not started), nor
// does everyone's order: the rounds wait for the post, the orders count in
// round 1, and round 1 runs its whole length from when the post went up. A
// CI run's Nations game on NodeBB, its opening post held up by a restart,
// closed two rounds at the first order and took every order as late.
func TestNoDeadlineBeforeTheOpeningPostAtAnOrder(t *testing.T) {
	ctx := context.Background()
	h := newHeldGame(t)
	db, clk, ff, m, g := h.db, h.clk, h.ff, h.m, h.g
	report := h.phase
	m.Tick(ctx, g.ID)
	clk.Advance(150 * time.Second) // past both rounds of the creation's clock
	ff.PMAt("Alice", "PROSPER", clk.Now())
	ff.PMAt("Bob", "DEFEND", clk.Now())
	clk.Advance(5 * time.Second)
	m.Tick(ctx, g.ID)
	if ph, _ := report(); ph != "round-1" {
		t.Fatalf("phase %s after orders read before the opening post went up, want round-1 still", ph)
	}
	ff.held = false
	up := clk.Now()
	for range 2 {
		if err := m.Tick(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
	}
	if ph, dl := report(); ph != "round-1" || !dl.Equal(up.Add(time.Minute)) {
		t.Errorf("after the opening post went up at %s: %s until %s, want round-1 until %s", up.Format("15:04:05"), ph, dl.Format("15:04:05"), up.Add(time.Minute).Format("15:04:05"))
	}
	var cmds []store.CommandRow
	if err := db.View(ctx, func(tx *store.Tx) (err error) { cmds, err = tx.Commands(g.ID, store.CommandFilter{}); return err }); err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		if c.Status != store.CommandAccepted || c.Phase != "round-1" {
			t.Errorf("%s's %q: %s in %s (%s); want accepted in round-1", c.Player, c.Text, c.Status, c.Phase, c.Reason)
		}
	}
	if len(cmds) != 2 {
		t.Errorf("%d commands recorded, want the two orders", len(cmds))
	}
}
