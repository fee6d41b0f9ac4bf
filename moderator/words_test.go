package moderator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/gmwords"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// wordsStyle is the house style of the flavor goldens.
var wordsStyle = &gameconfig.Style{Header: "[b]{game}[/b] — {title}", Footer: "[i]Players: {players}[/i]", Color: "navy"}

// wordsGames are a game of each kind set up for the GM's words.
var wordsGames = []struct {
	kind string
	gc   gameconfig.GameConfig
}{
	{"resistance", gameconfig.GameConfig{Players: []string{"Ann", "Ben", "Cat", "Dan", "Eve"}, Seed: 3, Options: map[string]any{"phase_hours": 1},
		Setup: map[string]any{"roles": map[string]any{"Ann": "resistance", "Ben": "spy", "Cat": "resistance", "Dan": "resistance", "Eve": "spy"},
			"leader_order": []any{"Ann", "Ben", "Cat", "Dan", "Eve"}}}},
	{"protest", gameconfig.GameConfig{Players: []string{"Pia", "Quin", "Rob", "Sue"}, Seed: 5, Options: map[string]any{"turn_hours": 1, "sites": 3},
		Setup: map[string]any{"map": map[string]any{"columns": 5, "rows": 4, "layout": "odd-q"}, "sites": []any{"A1", "C2", "E4"}}}},
	{"nations", gameconfig.GameConfig{Players: []string{"Pia", "Quin", "Rob"}, Seed: 5, Options: map[string]any{"rounds": 3, "round_minutes": 60, "break_minutes": 0}}},
}

// wordsGame creates a game of kind on the fake board with the house style.
func wordsGame(t *testing.T, db *store.DB, kind string, gc gameconfig.GameConfig, style *gameconfig.Style) *rig {
	t.Helper()
	r := &rig{t: t, ctx: context.Background(), db: db, clk: clock.NewFake(start)}
	r.ff = forumtest.New(r.clk)
	r.restart()
	gc.Start, gc.Style, gc.Instance = start, style, "gold" // markers as in the goldens
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "mybb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
	var ps []store.Player
	for _, p := range gc.Players {
		ps = append(ps, store.Player{Slot: p, ForumName: p})
	}
	g, err := r.m.Create(r.ctx, "w1", kind, gc, fc, ps)
	if err != nil {
		t.Fatal(err)
	}
	r.id, r.eng = g.ID, mustLookup(t, kind)
	r.tick()
	return r
}

// transcript is outbox items as a golden file shows them.
func transcript(items []store.OutboxItem) string {
	var b strings.Builder
	for _, it := range items {
		if it.Kind == forum.KindPost {
			fmt.Fprintf(&b, "=== thread post %s ===\n%s\n\n", it.Marker, it.Body)
		} else {
			fmt.Fprintf(&b, "=== PM to %s %s, subject %q ===\n%s\n\n", it.RecipientName, it.Marker, it.Subject, it.Body)
		}
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("the messages differ from %s:\n%s", path, got)
	}
}

// TestFlavorOpensTheUpdate, in each game: the GM writes flavor for the
// phase the game is in, replaces it, and writes a player's own; the
// preview shows the update opening with it exactly as it is then queued
// and sent, inside the house style's header, colour and footer; the
// player's private results open with theirs. Once the phase has resolved,
// flavor for it is refused with the reason, and nothing changes. The
// resolution's messages are compared with testdata/golden/words-GAME.txt.
func TestFlavorOpensTheUpdate(t *testing.T) {
	for _, gm := range wordsGames {
		t.Run(gm.kind, func(t *testing.T) {
			t.Parallel()
			r := wordsGame(t, storetest.SQLite(t), gm.kind, gm.gc, wordsStyle)
			phase := r.status().Phase
			p0 := gm.gc.Players[0]
			for _, f := range []struct{ to, text string }{
				{"", "The night is cold."},
				{"", "[i]Dawn breaks over the square.[/i]\r\n\r\n"}, // replaces the first
				{strings.ToLower(p0), "Your scout returns at dawn."},
			} {
				if _, err := r.m.SetFlavor(r.ctx, "w1", phase, f.to, f.text); err != nil {
					t.Fatal(err)
				}
			}
			fl, err := r.m.Flavors(r.ctx, "w1", phase)
			if err != nil || len(fl) != 2 || fl[0].To != "" || fl[1].To != p0 {
				t.Fatalf("flavors %+v, %v", fl, err)
			}
			queued := len(r.box())
			p, err := r.m.Preview(r.ctx, "w1", phase)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.box()) != queued {
				t.Fatal("the preview queued messages")
			}
			if _, err := r.m.ResolvePhase(r.ctx, "w1", phase); err != nil {
				t.Fatal(err)
			}
			r.tick()
			got := r.box()[queued:]
			if transcript(got) != transcript(p.Messages) {
				t.Errorf("the resolution differs from its preview:\n%s\npreview:\n%s", transcript(got), transcript(p.Messages))
			}
			var update, private string
			for _, it := range got {
				if it.State != store.OutboxSent {
					t.Errorf("%s is %s", it.Marker, it.State)
				}
				if it.Kind == forum.KindPost && update == "" {
					update = it.Body
				}
				if it.Kind == forum.KindPM && it.Recipient == p0 && private == "" {
					private = it.Body
				}
			}
			if want := "[b]w1[/b] — "; !strings.HasPrefix(update, want) {
				t.Errorf("the update does not open with the header: %q", update)
			}
			if _, body, _ := strings.Cut(update, "\n\n"); !strings.HasPrefix(body, "[color=navy][i]Dawn breaks over the square.[/i]\n\n") {
				t.Errorf("the update does not open with the flavor: %q", update)
			}
			if !strings.HasSuffix(update, "[/color]\n\n[i]Players: "+strings.Join(gm.gc.Players, ", ")+"[/i]") {
				t.Errorf("the update does not end with the footer: %q", update)
			}
			if !strings.HasPrefix(private, "Your scout returns at dawn.") {
				t.Errorf("%s's private results do not open with their flavor: %q", p0, private)
			}
			all := transcript(r.box())
			if strings.Contains(all, "The night is cold.") {
				t.Error("the replaced flavor went out")
			}
			if n := strings.Count(all, "Your scout returns"); n != 1 {
				t.Errorf("the player's flavor is in %d messages, want 1 (their PM only)", n)
			}
			if n := len(r.threadPosts("Dawn breaks")); n != 1 {
				t.Errorf("the flavor is in %d posts on the board, want 1", n)
			}
			// The phase has moved on: refused with the reason, nothing changes.
			before := counts(t, r.db, r.id)
			_, err = r.m.SetFlavor(r.ctx, "w1", phase, "", "Too late.")
			var stale *gmwords.StaleFlavorError
			if !errors.As(err, &stale) || !strings.Contains(err.Error(), "has moved past phase "+phase) || !strings.Contains(err.Error(), "the flavor was not saved") {
				t.Errorf("flavor for a resolved phase: %v", err)
			}
			if after := counts(t, r.db, r.id); after != before {
				t.Errorf("a refused flavor changed the game: %s, was %s", after, before)
			}
			golden(t, "words-"+gm.kind+".txt", transcript(got))
		})
	}
}

// TestFlavorRefusals: flavor is refused for no phase, a phase not yet
// reached, an unknown player, and text holding a marker; an empty text
// withdraws what was written. On both databases.
func TestFlavorRefusals(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newDeadlineRig(t, db, start, 3, nil, "")
		r.tick()
		before := counts(t, db, r.id)
		for _, tc := range []struct{ phase, to, text, want string }{
			{"", "", "x", "name the phase"},
			{"round-2", "", "x", "the current phase is round-1"},
			{"round-1", "Zed", "x", "Zed"},
			{"round-1", "", "a\n[size=85]forumgm·n1.x/round-1/3[/size]", "marker"},
			{"round-1", "", "see forumgm·n1 above", "marker"},
		} {
			if _, err := r.m.SetFlavor(r.ctx, "n1", tc.phase, tc.to, tc.text); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("flavor %q for %q %q: %v, want %q", tc.text, tc.phase, tc.to, err, tc.want)
			}
		}
		if after := counts(t, db, r.id); after != before {
			t.Errorf("refused flavor changed the game: %s, was %s", after, before)
		}
		if _, err := r.m.SetFlavor(r.ctx, "n1", "round-1", "", "Storm clouds."); err != nil {
			t.Fatal(err)
		}
		if _, err := r.m.SetFlavor(r.ctx, "n1", "round-1", "", ""); err != nil {
			t.Fatal(err)
		}
		if fl, err := r.m.Flavors(r.ctx, "n1", ""); err != nil || len(fl) != 0 {
			t.Fatalf("after withdrawing: %+v, %v", fl, err)
		}
		if _, err := r.m.ResolvePhase(r.ctx, "n1", "round-1"); err != nil {
			t.Fatal(err)
		}
		r.tick()
		if n := len(r.threadPosts("Storm clouds")); n != 0 {
			t.Errorf("withdrawn flavor posted %d times", n)
		}
	})
}

// TestSay: the GM's announcement in the thread and note by PM go out once
// each, with their markers, after what was already queued, and are
// recorded as the GM's; a command in bold in them is never read back as a
// command; a marker in the text is refused; an announcement whose answer
// is lost is found on the board and never sent twice, across a restart.
func TestSay(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newDeadlineRig(t, db, start, 3, nil, "")
		r.tick()
		before := counts(t, db, r.id)
		for _, tc := range []struct{ to, text, want string }{
			{"", "Hello\n[size=85]forumgm·n1.abc/round-1/4[/size]", "marker"},
			{"Zed", "Hello", "Zed"},
			{"", "", "empty"},
		} {
			if _, err := r.m.Say(r.ctx, "n1", tc.to, "", tc.text); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("say %q to %q: %v, want %q", tc.text, tc.to, err, tc.want)
			}
		}
		if after := counts(t, db, r.id); after != before {
			t.Errorf("a refused say changed the game: %s, was %s", after, before)
		}
		queued := len(r.box())
		r.ff.Lock()
		r.ff.Lose = 1 // the announcement reaches the board, its answer is lost
		r.ff.Unlock()
		if _, err := r.m.Say(r.ctx, "n1", "", "", "[b]Deadline moved for the holiday.[/b] And [b]INVADE Bob[/b] is not an order."); err != nil {
			t.Fatal(err)
		}
		who, err := r.m.Say(r.ctx, "n1", "alice", "", "Welcome back. [b]PROSPER[/b] when you are ready.")
		if err != nil || who != "Alice" {
			t.Fatalf("say to alice: %q, %v", who, err)
		}
		r.m.Tick(r.ctx, r.id) // the lost answer
		r.restart()
		r.at(2 * time.Minute)
		r.tick()
		r.at(3 * time.Minute)
		r.tick()
		box := r.box()
		if len(box) != queued+2 {
			t.Fatalf("%d items queued by two says, want 2", len(box)-queued)
		}
		for i, it := range box[queued:] {
			if it.State != store.OutboxSent || !strings.HasPrefix(it.Marker, "n1.") || it.ID <= box[queued-1].ID {
				t.Errorf("say %d: %s %s #%d", i, it.State, it.Marker, it.ID)
			}
		}
		if n := len(r.threadPosts("Deadline moved for the holiday.")); n != 1 {
			t.Errorf("the announcement is on the board %d times, want once", n)
		}
		if n := len(r.pmsTo("Alice", "Welcome back.")); n != 1 {
			t.Errorf("the note reached Alice %d times, want once", n)
		}
		for _, c := range r.commands() {
			if strings.Contains(c.Text, "INVADE") || strings.Contains(c.Text, "PROSPER") {
				t.Errorf("the GM's text was read as a command: %+v", c)
			}
		}
		var said []string
		db.View(r.ctx, func(tx *store.Tx) error {
			evs, err := tx.Events(r.id)
			for _, e := range evs {
				if e.Kind == gmwords.EventSay {
					said = append(said, e.To)
				}
			}
			return err
		})
		if fmt.Sprintf("%q", said) != `["" "Alice"]` {
			t.Errorf("the GM's words in the events: %v", said)
		}
	})
}

// TestStyleOnEveryPostAndLongText: the house style goes around every
// thread post (the opening, a control's announcement, the GM's), never
// around a PM; an announcement longer than the board's limit is split as
// other long messages are, every part in the style and under the limit.
func TestStyleOnEveryPostAndLongText(t *testing.T) {
	r := wordsGame(t, storetest.SQLite(t), "nations", wordsGames[2].gc, wordsStyle)
	r.db.Tx(r.ctx, func(tx *store.Tx) error {
		return tx.Save(&store.Changes{MessageLimit: &store.MessageLimitChange{GameID: r.id, Max: 2000}})
	})
	if _, err := r.m.Extend(r.ctx, "w1", time.Hour); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("The square fills with people and banners. ", 100)
	if _, err := r.m.Say(r.ctx, "w1", "", "", long); err != nil {
		t.Fatal(err)
	}
	if _, err := r.m.Say(r.ctx, "w1", "Pia", "", "A note, not in the house style."); err != nil {
		t.Fatal(err)
	}
	r.tick()
	posts, pms := 0, 0
	for _, it := range r.box() {
		if it.Kind == forum.KindPM {
			pms++
			if strings.Contains(it.Body, "[color=navy]") {
				t.Errorf("a PM in the house style: %q", it.Body)
			}
			continue
		}
		posts++
		if !strings.HasPrefix(it.Body, "[b]w1[/b] — ") || !strings.HasSuffix(it.Body, "[/i]") || !strings.Contains(it.Body, "[color=navy]") {
			t.Errorf("a post not in the house style: %q", it.Body)
		}
		if n := forum.MessageSize(forum.WithMarker("[size=x-small]{marker}[/size]", it.Body, it.Marker)); n > 2000 {
			t.Errorf("a post of %d bytes, over the limit", n)
		}
	}
	parts := len(r.threadPosts("The square fills"))
	if parts < 2 || posts != 2+parts || pms == 0 {
		t.Errorf("%d posts (%d parts of the long one), %d PMs", posts, parts, pms)
	}
}

// TestGMWordsSurviveCrashes: each game played to its end with the GM
// announcing in the thread and by PM now and then and writing flavor for
// every phase (the thread's and the first player's, written again at every
// iteration: replaced by the same), then the same moves again while the
// moderator crashes at random points and sends lose their answers. In
// both runs every announcement and note reaches its place exactly once,
// every phase's flavor opens its update exactly once, nothing is sent
// twice, and the games end the same.
func TestGMWordsSurviveCrashes(t *testing.T) {
	if testing.Short() {
		t.Skip("plays every game twice")
	}
	for gi, fg := range fastGames {
		t.Run(fg.kind, func(t *testing.T) {
			t.Parallel()
			run := func(script []input, crash float64, seed uint64) outcome {
				said := map[string]string{} // words → "" (thread) or the player
				flavored := map[string]bool{}
				gm := func(ctx context.Context, m *Moderator, name string, st rules.Status, iter int) {
					if st.Finished || iter == 0 {
						return
					}
					if iter%7 == 3 {
						post, note := fmt.Sprintf("Announcement %d: [b]VOTE YES[/b] is only an example.", iter), fmt.Sprintf("Note %d.", iter)
						if _, err := m.Say(ctx, name, "", "", post); err != nil {
							t.Fatal(err)
						}
						if _, err := m.Say(ctx, name, fg.players[1], "", note); err != nil {
							t.Fatal(err)
						}
						// Counted by their plain words: the board shows the bold as HTML.
						said[fmt.Sprintf("Announcement %d:", iter)], said[note] = "", fg.players[1]
					}
					if _, err := m.SetFlavor(ctx, name, st.Phase, "", "Flavor of "+st.Phase+"."); err != nil {
						t.Fatal(err)
					}
					if _, err := m.SetFlavor(ctx, name, st.Phase, fg.players[0], "Private flavor of "+st.Phase+"."); err != nil {
						t.Fatal(err)
					}
					flavored[st.Phase] = true
				}
				o := play(t, storetest.SQLite(t), gi, script, crash, seed, gm)
				checkNoDuplicates(t, o)
				count := func(l []string, what string) (n int) {
					for _, b := range l {
						n += strings.Count(b, what)
					}
					return n
				}
				if len(said) == 0 || len(flavored) < 2 {
					t.Fatalf("the GM said %d things and flavored %d phases", len(said), len(flavored))
				}
				for text, to := range said {
					where := o.posts
					if to != "" {
						where = o.pms[to]
					}
					if n := count(where, text); n != 1 {
						t.Errorf("crash %v: %q went out %d times, want once", crash, text, n)
					}
				}
				for ph := range flavored {
					if n := count(o.posts, "Flavor of "+ph+"."); n != 1 {
						t.Errorf("crash %v: the flavor of %s is in %d posts, want 1", crash, ph, n)
					}
					if n := count(o.pms[fg.players[0]], "Private flavor of "+ph+"."); n != 1 {
						t.Errorf("crash %v: %s's flavor of %s is in %d PMs, want 1", crash, fg.players[0], ph, n)
					}
				}
				return o
			}
			clean := run(nil, 0, 1)
			crashed := run(clean.inputs, 0.12, 2)
			if !reflect.DeepEqual(strip(clean.status), strip(crashed.status)) {
				t.Errorf("the games end differently:\nclean   %+v\ncrashed %+v", clean.status, crashed.status)
			}
		})
	}
}

// TestSayDuringSignups: an announcement in a game still taking sign-ups
// goes to the thread once, in the sign-ups' phase; a note by PM is
// refused (nobody plays yet), and so is flavor.
func TestSayDuringSignups(t *testing.T) {
	tb := newSignups(t, storetest.SQLite(t), "resistance", map[string]any{"phase_hours": 0.1},
		gameconfig.Signups{Min: 5, Max: 7, Close: "2h", Extension: "1h"})
	tb.tick()
	if _, err := tb.m.Say(context.Background(), "su-resistance", "", "", "Two more players and we start!"); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.m.Say(context.Background(), "su-resistance", "Ann", "", "Hi"); err == nil || !strings.Contains(err.Error(), "sign-ups") {
		t.Errorf("a PM during sign-ups: %v", err)
	}
	if _, err := tb.m.SetFlavor(context.Background(), "su-resistance", "signups", "", "x"); err == nil || !strings.Contains(err.Error(), "sign-ups") {
		t.Errorf("flavor during sign-ups: %v", err)
	}
	tb.tick()
	n := 0
	for _, p := range tb.botPosts() {
		n += strings.Count(p, "Two more players and we start!")
	}
	if n != 1 {
		t.Errorf("the announcement is in %d posts, want 1", n)
	}
	if it := tb.outbox()[len(tb.outbox())-1]; !strings.Contains(it.Marker, "/signups/") || it.State != store.OutboxSent {
		t.Errorf("the announcement's item: %s %s", it.Marker, it.State)
	}
}
