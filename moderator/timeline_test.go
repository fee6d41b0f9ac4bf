package moderator

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// laps is a test game of numbered phases: each player writes DONE (in the
// thread or by PM); a phase closes when everyone has, or after 5 minutes.
// The state remembers in which phase each DONE counted.
type laps struct{}

type lapsState struct {
	R        *rules.Roster       `json:"r"`
	Phase    int                 `json:"phase"`
	Done     map[string]bool     `json:"done"`
	Log      map[string][]string `json:"log"`
	Deadline time.Time           `json:"deadline"`
}

func (s *lapsState) Roster() *rules.Roster { return s.R }

func init() { rules.Register(laps{}) }

func (laps) Name() string { return "laps-test" }
func (laps) Setup(cfg rules.Config) (rules.State, []rules.Event, error) {
	r, err := rules.NewRoster(cfg.Players, cfg.Aliases)
	if err != nil {
		return nil, nil, err
	}
	return &lapsState{R: r, Phase: 1, Done: map[string]bool{}, Log: map[string][]string{}, Deadline: cfg.Start.Add(5 * time.Minute)},
		[]rules.Event{rules.PublicEvent("open", "Go!")}, nil
}
func (laps) Parse(s rules.State, text string, src rules.Source) rules.Parsed {
	if strings.EqualFold(strings.TrimSpace(text), "DONE") {
		return rules.Parsed{Cmd: &rules.Command{Kind: "done"}}
	}
	return rules.Parsed{}
}
func (g laps) clone(st rules.State) *lapsState {
	b, _ := json.Marshal(st)
	s, _ := g.Decode(b)
	return s.(*lapsState)
}
func (g laps) Apply(st rules.State, c rules.Command) (rules.State, []rules.Event, error) {
	s := g.clone(st)
	s.Done[c.Src.Player] = true
	k := fmt.Sprint(s.Phase)
	s.Log[k] = append(s.Log[k], c.Src.Player+"@"+c.Src.Ref)
	return s, nil, nil
}
func (laps) Due(st rules.State, now time.Time) bool {
	s := st.(*lapsState)
	return len(s.Done) == len(s.R.IDs()) || !now.Before(s.Deadline)
}
func (g laps) Resolve(st rules.State, now time.Time) (rules.State, []rules.Event) {
	s := g.clone(st)
	s.Phase++
	s.Done = map[string]bool{}
	s.Deadline = now.Add(5 * time.Minute)
	return s, []rules.Event{rules.PublicEvent("close", fmt.Sprintf("Phase %d", s.Phase))}
}
func (g laps) End(st rules.State, now time.Time) (rules.State, []rules.Event) { return st, nil }
func (g laps) SetDeadline(st rules.State, t time.Time) rules.State {
	s := g.clone(st)
	s.Deadline = t
	return s
}
func (laps) Status(st rules.State) rules.Status {
	s := st.(*lapsState)
	return rules.Status{Phase: fmt.Sprintf("phase-%d", s.Phase), Title: fmt.Sprintf("Phase %d", s.Phase), Deadline: s.Deadline}
}
func (laps) View(st rules.State, v string) any { return st }
func (laps) Decode(b []byte) (rules.State, error) {
	var s lapsState
	err := json.Unmarshal(b, &s)
	return &s, err
}

// rig is a game on the fake forum with a clock the test moves.
type rig struct {
	t   *testing.T
	ctx context.Context
	db  *store.DB
	clk *clock.Fake
	ff  *forumtest.Board
	m   *Moderator
	id  int64
	eng rules.Game
}

func newRig(t *testing.T, kind, engine string, minutes bool, players []string, options map[string]any) *rig {
	t.Helper()
	r := &rig{t: t, ctx: context.Background(), db: storetest.SQLite(t), clk: clock.NewFake(start)}
	r.ff = forumtest.New(r.clk)
	r.ff.Minutes = minutes
	r.m = &Moderator{DB: r.db, Clock: r.clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return r.ff, nil }}
	gc := gameconfig.GameConfig{Players: players, Options: options, Seed: 3, Start: start}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: engine, Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
	var ps []store.Player
	for _, p := range players {
		ps = append(ps, store.Player{Slot: p, ForumName: p})
	}
	g, err := r.m.Create(r.ctx, "g", kind, gc, fc, ps)
	if err != nil {
		t.Fatal(err)
	}
	r.id = g.ID
	r.eng, _ = rules.Lookup(kind)
	return r
}

func (r *rig) tick() {
	r.t.Helper()
	if err := r.m.Tick(r.ctx, r.id); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) at(d time.Duration) { r.clk.Set(start.Add(d)) }

func (r *rig) post(who, text string) string {
	r.ff.Post(r.ctx, who, text)
	return r.ff.LastID()
}

func (r *rig) game() (*store.Game, rules.State, gameconfig.GameConfig) {
	r.t.Helper()
	var g *store.Game
	r.db.View(r.ctx, func(tx *store.Tx) error { var err error; g, err = tx.GameByID(r.id); return err })
	st, err := r.eng.Decode(g.State)
	if err != nil {
		r.t.Fatal(err)
	}
	var cfg gameconfig.GameConfig
	json.Unmarshal(g.Config, &cfg)
	return g, st, cfg
}

func (r *rig) commands() []store.CommandRow {
	var cs []store.CommandRow
	r.db.View(r.ctx, func(tx *store.Tx) error {
		var err error
		cs, err = tx.Commands(r.id, store.CommandFilter{})
		return err
	})
	return cs
}

// rebuilt is the state replayed from the seed and the journal.
func (r *rig) rebuilt() rules.State {
	r.t.Helper()
	g, _, cfg := r.game()
	var j []journal.Entry
	r.db.View(r.ctx, func(tx *store.Tx) error { var err error; j, err = tx.Journal(g.ID); return err })
	st, err := journal.Replay(r.eng, cfg.Rules(), j, journal.Strict)
	if err != nil {
		r.t.Fatal(err)
	}
	return st
}

func mustJSONString(v any) string { return string(mustJSON(v)) }

// TestCloseTakesEffectAtTheCompletingMessage: on a board that stamps to
// the minute, the post that completes "everyone has acted" closes the
// phase there: a post made 8 s later in the same minute counts in the
// next phase and is not refused as late; the next deadline is on a whole
// minute.
func TestCloseTakesEffectAtTheCompletingMessage(t *testing.T) {
	r := newRig(t, "laps-test", "mybb", true, []string{"Ann", "Ben"}, nil)
	r.tick() // the opening post
	r.at(70 * time.Second)
	a1 := r.post("Ann", "[b]DONE[/b]")
	r.at(80 * time.Second)
	b1 := r.post("Ben", "[b]DONE[/b]") // completes phase 1
	r.at(88 * time.Second)
	a2 := r.post("Ann", "[b]DONE[/b]") // same minute, after the close
	r.at(100 * time.Second)
	r.tick()
	g, st, _ := r.game()
	s := st.(*lapsState)
	want := map[string][]string{"1": {"Ann@" + a1, "Ben@" + b1}, "2": {"Ann@" + a2}}
	if mustJSONString(s.Log) != mustJSONString(want) {
		t.Errorf("phases counted in: %v, want %v", s.Log, want)
	}
	for _, c := range r.commands() {
		if c.Status != store.CommandAccepted {
			t.Errorf("%s's %q (message %d): %s: %s", c.Player, c.Text, c.MessageID, c.Status, c.Reason)
		}
	}
	if g.Deadline.Truncate(time.Minute) != g.Deadline || g.Deadline.IsZero() {
		t.Errorf("next deadline %v is not on a whole minute", g.Deadline)
	}
	if mustJSONString(r.rebuilt()) != mustJSONString(st) {
		t.Errorf("rebuilt state differs:\n%s\n%s", mustJSONString(r.rebuilt()), mustJSONString(st))
	}
}

// TestOnTimeOrderCountsHoweverLateRead: PM orders stamped to the minute. An
// order made in the deadline's last minute counts in that round, read
// before or after the deadline; a read starting exactly at the deadline
// does not close the round; an order made after it goes to the next round
// even though the bot was down across the deadline.
func TestOnTimeOrderCountsHoweverLateRead(t *testing.T) {
	opts := map[string]any{"rounds": 2, "round_minutes": 10, "break_minutes": 1}
	players := []string{"Alice", "Bob", "Carol"}

	// A read that starts exactly at the deadline does not close the round.
	r := newRig(t, "nations", "phpbb", true, players, opts)
	r.tick()
	r.at(9*time.Minute + 40*time.Second)
	r.ff.PM(r.ctx, "Alice", "PROSPER")
	r.at(10 * time.Minute)
	r.tick()
	if g, _, _ := r.game(); g.Phase != "round-1" {
		t.Fatalf("a read starting at the deadline closed the round: %s", g.Phase)
	}

	// The bot is down from 12:09 to 12:11:20, across the 12:10 deadline.
	r = newRig(t, "nations", "phpbb", true, players, opts)
	r.tick()
	r.at(9 * time.Minute)
	r.tick()
	r.at(9*time.Minute + 40*time.Second)
	r.ff.PM(r.ctx, "Alice", "PROSPER")
	r.at(9*time.Minute + 55*time.Second)
	r.ff.PM(r.ctx, "Bob", "PROSPER")
	r.at(10*time.Minute + 50*time.Second)
	r.ff.PM(r.ctx, "Carol", "PROSPER")
	r.at(11*time.Minute + 20*time.Second)
	r.tick()
	phases := map[string]string{}
	for _, c := range r.commands() {
		phases[c.Player] = c.Phase + " " + string(c.Status)
	}
	want := map[string]string{"Alice": "round-1 accepted", "Bob": "round-1 accepted", "Carol": "round-2 accepted"}
	if mustJSONString(phases) != mustJSONString(want) {
		t.Errorf("orders counted in %v, want %v", phases, want)
	}
}

// TestGameClockStartsWithTheOpeningPost: the bot was slow to post the
// opening post (90 s after `new`): the game starts then, the first
// deadline moves by as much (onto a whole minute), a rebuild agrees, and
// a post in the opening post's minute after it belongs to the game.
func TestGameClockStartsWithTheOpeningPost(t *testing.T) {
	r := newRig(t, "nations", "mybb", true, []string{"Alice", "Bob"}, map[string]any{"rounds": 2, "round_minutes": 10, "break_minutes": 1})
	r.at(90 * time.Second)
	r.tick()
	g, st, cfg := r.game()
	if want := start.Add(90 * time.Second); !cfg.Start.Equal(want) || cfg.OpeningPost == "" {
		t.Errorf("start %v (opening post %q), want %v", cfg.Start, cfg.OpeningPost, want)
	}
	if want := start.Add(12 * time.Minute); !g.Deadline.Equal(want) {
		t.Errorf("first deadline %v, want %v (12:11:30 on the minute)", g.Deadline, want)
	}
	if mustJSONString(r.rebuilt()) != mustJSONString(st) {
		t.Error("a rebuild does not reproduce the moved start")
	}
	r.at(100 * time.Second) // the opening post's minute
	r.post("Alice", "[b]CIV: Fire[/b]")
	r.at(110 * time.Second)
	r.tick()
	if cs := r.commands(); len(cs) != 1 || cs[0].Status != store.CommandAccepted {
		t.Errorf("a post after the opening post in its minute: %+v", cs)
	}
}

// TestUnreadableTimeIsAnsweredNotDropped: a post whose time the bot cannot
// read is in the audit log with the reason, its command is not applied,
// and its author is told.
func TestUnreadableTimeIsAnsweredNotDropped(t *testing.T) {
	r := newRig(t, "nations", "phpbb", false, []string{"Alice", "Bob"}, nil)
	r.tick()
	r.at(time.Minute)
	id := r.post("Alice", "[b]CIV: Fire[/b]")
	r.ff.Unreadable(id)
	r.tick()
	cs := r.commands()
	if len(cs) != 1 || cs[0].Status != store.CommandRejected || !strings.Contains(cs[0].Reason, "could not read when this was made (the board showed “Smarch 32”") {
		t.Fatalf("audit: %+v", cs)
	}
	told := false
	for _, pm := range r.ff.SentTo()["Alice"] {
		told = told || strings.Contains(pm, "could not read when this was made")
	}
	if !told {
		t.Errorf("Alice was not told: %q", r.ff.SentTo()["Alice"])
	}
}

// TestMergedPostIsANewMessage: MyBB appends Alice's second post to her
// first; the appended text is read as a new message made between the two
// reads, not as an edit of the first.
func TestMergedPostIsANewMessage(t *testing.T) {
	r := newRig(t, "nations", "mybb", true, []string{"Alice", "Bob"}, map[string]any{"rounds": 2, "round_minutes": 10, "break_minutes": 1})
	r.tick()
	r.at(time.Minute)
	id := r.post("Alice", "Hello all, thinking about it.")
	r.tick()
	r.at(2 * time.Minute)
	r.ff.Merge(id, "[b]CIV: Water[/b]")
	r.at(2*time.Minute + 30*time.Second)
	r.tick()
	r.tick() // read again: nothing new
	cs := r.commands()
	if len(cs) != 1 || cs[0].Status != store.CommandAccepted || cs[0].Text != "CIV: Water" {
		t.Fatalf("commands: %+v", cs)
	}
	var m *store.Message
	r.db.View(r.ctx, func(tx *store.Tx) error { var err error; m, err = tx.Message(cs[0].MessageID); return err })
	if m.ForumID != id+"+1" || !m.Stamp.Earliest.Equal(start.Add(time.Minute)) || !m.Stamp.Latest.Equal(start.Add(2*time.Minute+30*time.Second)) {
		t.Errorf("the appended part: %s %+v", m.ForumID, m.Stamp)
	}
}

func TestSplitMerged(t *testing.T) {
	p, _ := forum.Builtin("mybb")
	sep := regexp.MustCompile(p.MergeSeparator)
	hash := parser.MustBodyReader(p).Hash
	hr := "<br />\n<hr class=\"mycode_hr\" />\n"
	tests := []struct {
		name, stored, body string
		known              int
		head               string
		parts              []string
		ok                 bool
	}{
		{"no separator", "a", "a b", 0, "", nil, false},
		{"one merge", "a", "a" + hr + "b", 0, "a", []string{"b"}, true},
		{"a second merge", "a", "a" + hr + "b" + hr + "c", 1, "a", []string{"b", "c"}, true},
		{"the player's own rule stays in the first part", "a<hr />x", "a<hr />x" + hr + "b", 0, "a<hr />x", []string{"b"}, true},
		{"first part edited, one known merge", "a", "a2" + hr + "b", 1, "a2", []string{"b"}, true},
		{"an edit adding a rule is no merge", "a", "a2<hr />b", 0, "", nil, false},
	}
	for _, tc := range tests {
		head, parts, ok := splitMerged(sep, hash, hash(tc.stored), tc.body, tc.known)
		if ok != tc.ok || (ok && (head != tc.head || strings.Join(parts, "|") != strings.Join(tc.parts, "|"))) {
			t.Errorf("%s: %q %q %v", tc.name, head, parts, ok)
		}
	}
}
