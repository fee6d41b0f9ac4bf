package simplayers

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/nations"
)

type recorder struct{ posts, pms []string }

func (r *recorder) Post(_ context.Context, player, text string) error {
	r.posts = append(r.posts, player+": "+text)
	return nil
}

func (r *recorder) PM(_ context.Context, player, text string) error {
	r.pms = append(r.pms, player+": "+text)
	return nil
}

// noBot is a game without the rules.Bot capability: embedding the
// interface keeps only rules.Game's methods.
type noBot struct{ rules.Game }

func setup(t *testing.T) rules.State {
	t.Helper()
	s, _, err := nations.Game{}.Setup(rules.Config{Players: []string{"Alice", "Bob", "Carol"}, Seed: 1,
		Start: time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestActNeedsTheBotCapability(t *testing.T) {
	t.Parallel()
	tbl := &Table{Game: noBot{nations.Game{}}, Seed: 1}
	rec := &recorder{}
	_, err := tbl.Act(context.Background(), setup(t), rec)
	if err == nil || !strings.Contains(err.Error(), "rules.Bot") {
		t.Fatalf("err = %v, want one naming rules.Bot", err)
	}
	if len(rec.posts)+len(rec.pms) != 0 {
		t.Errorf("sent moves without a bot: %v %v", rec.posts, rec.pms)
	}
}

// TestActOnceUntilTheViewChanges: every player moves at the start, and
// nobody moves again while what they see is the same.
func TestActOnceUntilTheViewChanges(t *testing.T) {
	t.Parallel()
	tbl := &Table{Game: nations.Game{}, Seed: 1}
	s := setup(t)
	rec := &recorder{}
	sent, err := tbl.Act(context.Background(), s, rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(sent) == 0 || len(sent) != len(rec.posts)+len(rec.pms) {
		t.Fatalf("sent %d moves, recorder has %d posts and %d PMs", len(sent), len(rec.posts), len(rec.pms))
	}
	again, err := tbl.Act(context.Background(), s, rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 0 {
		t.Errorf("acted again on an unchanged view: %v", again)
	}
}

// TestAskCounts: with AskCounts, players now and then ask for a count,
// and their moves are otherwise the same as without it.
func TestAskCounts(t *testing.T) {
	t.Parallel()
	s := setup(t)
	plain, asking := &recorder{}, &recorder{}
	if _, err := (&Table{Game: nations.Game{}, Seed: 1}).Act(context.Background(), s, plain); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Table{Game: nations.Game{}, Seed: 1, AskCounts: 1}).Act(context.Background(), s, asking); err != nil {
		t.Fatal(err)
	}
	asks := 0
	for _, p := range asking.posts {
		if strings.Contains(p, "[b]VOTECOUNT[/b]") {
			asks++
		}
	}
	if asks != 3 || strings.Join(asking.pms, "|") != strings.Join(plain.pms, "|") {
		t.Errorf("asking every time: %d requests in %q (want one a player), PMs %q (want %q)", asks, asking.posts, asking.pms, plain.pms)
	}
	for i, p := range plain.posts {
		if !strings.HasPrefix(asking.posts[i], p) {
			t.Errorf("post %d changed: %q, was %q", i, asking.posts[i], p)
		}
	}
}

// TestHold: a held player does not act, the others do, and once let go he
// acts on the same state he was held on.
func TestHold(t *testing.T) {
	t.Parallel()
	s := setup(t)
	held := true
	tbl := &Table{Game: nations.Game{}, Seed: 1, Hold: func(p string, _ rules.State) bool { return held && p == s.Roster().IDs()[0] }}
	rec := &recorder{}
	sent, err := tbl.Act(context.Background(), s, rec)
	if err != nil {
		t.Fatal(err)
	}
	first := s.Roster().Display(s.Roster().IDs()[0])
	for _, mv := range sent {
		if mv.Player == first {
			t.Errorf("the held player %s acted: %v", first, mv)
		}
	}
	if len(sent) == 0 {
		t.Fatal("nobody acted")
	}
	held = false
	later, err := tbl.Act(context.Background(), s, rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(later) == 0 {
		t.Fatal("the player let go did not act")
	}
	for _, mv := range later {
		if mv.Player != first {
			t.Errorf("%s acted again on an unchanged view: %v", mv.Player, mv)
		}
	}
}
