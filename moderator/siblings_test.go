package moderator

import (
	"context"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// foldKey holds two names equal exactly when strings.EqualFold does, as
// Roster.Author compares a PM's author.
func TestFoldKeyIsEqualFold(t *testing.T) {
	for _, tc := range [][2]string{
		{"Alice", "alice"}, {"ALICE", "aLiCe"}, {"Alice", "Alicia"},
		{"\u212a", "k"},       // the Kelvin sign folds to k
		{"straße", "STRASSE"}, // not a simple fold
		{"Σ", "ς"}, {"σ", "ς"}, {"İ", "i"},
		{"\xff", "\xfe"}, {"a\xff", "A\xfe"}, {"", ""}, {"[b]x[/b]", "[B]X[/B]"},
	} {
		if got, want := foldKey(tc[0]) == foldKey(tc[1]), strings.EqualFold(tc[0], tc[1]); got != want {
			t.Errorf("%q and %q: same key %v, EqualFold %v", tc[0], tc[1], got, want)
		}
	}
}

func FuzzFoldKey(f *testing.F) {
	for _, s := range []string{"Alice", "\u212a", "ς", "\xff", "İı"} {
		f.Add(s, strings.ToUpper(s))
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if got, want := foldKey(a) == foldKey(b), strings.EqualFold(a, b); got != want {
			t.Errorf("%q and %q: same key %v, EqualFold %v", a, b, got, want)
		}
		if !strings.EqualFold(foldKey(a), a) {
			t.Errorf("foldKey(%q) = %q, not EqualFold to it", a, foldKey(a))
		}
	})
}

// The games sharing an inbox are decoded once and kept by their stored
// content: a roster changed by a replace is seen at the next PM, and an
// unchanged game is not decoded again.
func TestSiblingsFollowTheirRosters(t *testing.T) {
	db := storetest.SQLite(t)
	ctx := context.Background()
	clk := clock.NewFake(start)
	ff := forumtest.New(clk)
	m := &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return ff, nil }}
	opts := map[string]any{"rounds": 2, "round_minutes": 10}
	var ids []int64
	for _, g := range []struct {
		name    string
		players []string
	}{{"spies", []string{"Alice", "Bob"}}, {"spies-2", []string{"Alice", "Carol"}}, {"spies-3", []string{"Erin", "Fay"}}} {
		fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
		row, err := m.Create(ctx, g.name, "nations", gameconfig.GameConfig{Players: g.players, Options: opts, Seed: 1, Start: start}, fc, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, row.ID)
	}
	tick := func() {
		t.Helper()
		for _, id := range ids {
			if err := m.Tick(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	tick()
	sibs := func(id int64) (names []string, authors map[string]string) {
		t.Helper()
		authors = map[string]string{}
		err := db.View(ctx, func(tx *store.Tx) error {
			g, err := tx.GameByID(id)
			if err != nil {
				return err
			}
			l, err := decodeGame(g)
			if err != nil {
				return err
			}
			l.site = &gameconfig.Site{Account: l.forum.Account()}
			out, err := m.siblings(tx, l)
			for _, s := range out {
				names = append(names, s.name)
				for k, v := range s.authors {
					authors[s.name+"/"+k] = v
				}
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return names, authors
	}
	names, authors := sibs(ids[0])
	if strings.Join(names, ",") != "spies-2,spies-3" || authors["spies-2/"+foldKey("ALICE")] != "Alice" {
		t.Fatalf("spies' siblings %v, players %v", names, authors)
	}
	before := m.sibs.byID[ids[2]].g
	if _, _, err := m.Replace(ctx, "spies-2", "Alice", "Dave", ""); err != nil {
		t.Fatal(err)
	}
	names, authors = sibs(ids[0])
	if strings.Join(names, ",") != "spies-2,spies-3" || authors["spies-2/"+foldKey("alice")] != "" || authors["spies-2/"+foldKey("dave")] != "Alice" {
		t.Fatalf("after the replace: spies' siblings %v, players %v", names, authors)
	}
	if m.sibs.byID[ids[2]].g != before {
		t.Error("spies-3, unchanged, was decoded again")
	}

	// And the routing follows: Alice's PM without a game's name is now
	// spies' alone, not a question.
	ff.PMSubject("Alice", "orders", "PROSPER")
	tick()
	for _, pm := range ff.SentTo()["Alice"] {
		if strings.Contains(pm, "several games") {
			t.Errorf("Alice, now only in spies, was asked which game: %q", pm)
		}
	}
	var got []store.CommandRow
	db.View(ctx, func(tx *store.Tx) error { got, _ = tx.Commands(ids[0], store.CommandFilter{}); return nil })
	if len(got) != 1 || got[0].Player != "Alice" || got[0].Status != store.CommandAccepted {
		t.Errorf("spies' commands %+v; want Alice's PROSPER accepted", got)
	}
}
