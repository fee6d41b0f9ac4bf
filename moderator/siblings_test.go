package moderator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
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

// An ASCII name's key, found without the runes' orbits, is the one the
// orbits give: a name in Kelvin signs meets its ASCII spelling.
func TestASCIIFoldKeyIsOrbits(t *testing.T) {
	names := []string{"", "Alice", "ALICE", "bob_42", "[b]x[/b]", "k s", "Zz"}
	for c := 0; c < 0x80; c++ {
		names = append(names, string(rune(c)))
	}
	for _, s := range names {
		k, ok := asciiFoldKey(s)
		if !ok || k != orbitFoldKey(s) {
			t.Errorf("asciiFoldKey(%q) = %q, %v; the orbits give %q", s, k, ok, orbitFoldKey(s))
		}
	}
	if _, ok := asciiFoldKey("\u212a"); ok {
		t.Error("a Kelvin sign is taken for ASCII")
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
		if k, ok := asciiFoldKey(a); ok && k != orbitFoldKey(a) {
			t.Errorf("asciiFoldKey(%q) = %q; the orbits give %q", a, k, orbitFoldKey(a))
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
	ctx := context.Background()
	si := newSharedInbox(t, []string{"http://fake/"}, []string{"GMbot"}, []string{"spies", "spies-2", "spies-3"},
		[][]string{{"Alice", "Bob"}, {"Alice", "Carol"}, {"Erin", "Fay"}})
	db, ff, m, ids := si.db, si.ff, si.m, si.ids
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
			ix, err := m.siblings(tx, l)
			if err != nil {
				return err
			}
			for _, s := range ix.others(id) {
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
	index := func() *siblingIndex {
		t.Helper()
		if len(m.sibs.idx) != 1 {
			t.Fatalf("%d accounts' indexes; want 1", len(m.sibs.idx))
		}
		for _, ix := range m.sibs.idx {
			return ix
		}
		return nil
	}
	ix := index()
	tick() // every game saved again: new revisions, the same rosters
	if sibs(ids[1]); index() != ix {
		t.Error("the index by player was built again, with no roster changed")
	}
	if _, _, err := m.Replace(ctx, "spies-2", "Alice", "Dave", ""); err != nil {
		t.Fatal(err)
	}
	names, authors = sibs(ids[0])
	if index() == ix {
		t.Error("the index by player was kept after a replace")
	}
	if got := index().also("DAVE", ids[0]); len(got) != 1 || got[0].name != "spies-2" {
		t.Errorf("Dave plays in %v; want spies-2", got)
	}
	if got := index().also("alice", ids[0]); len(got) != 0 {
		t.Errorf("Alice's other games %v; want none", got)
	}
	if strings.Join(names, ",") != "spies-2,spies-3" || authors["spies-2/"+foldKey("alice")] != "" || authors["spies-2/"+foldKey("dave")] != "Alice" {
		t.Fatalf("after the replace: spies' siblings %v, players %v", names, authors)
	}
	if m.sibs.byID[ids[2]].g != before {
		t.Error("spies-3, unchanged, was decoded again")
	}

	// A game that ends leaves the siblings, a new one joins them, and
	// a paused one stays: its players' PMs still wait for it.
	if err := m.End(ctx, "spies-3"); err != nil {
		t.Fatal(err)
	}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
	opts := map[string]any{"rounds": 2, "round_minutes": 10}
	if _, err := m.Create(ctx, "spies-4", "nations", gameconfig.GameConfig{Players: []string{"Gus", "Dave"}, Options: opts, Seed: 1, Start: start}, fc, nil); err != nil {
		t.Fatal(err)
	}
	if err := m.Pause(ctx, "spies-2"); err != nil {
		t.Fatal(err)
	}
	if names, _ = sibs(ids[0]); strings.Join(names, ",") != "spies-2,spies-4" {
		t.Fatalf("after an end, a create and a pause: spies' siblings %v; want spies-2,spies-4", names)
	}
	if got := index().also("dave", ids[0]); len(got) != 2 || got[0].name != "spies-2" || got[1].name != "spies-4" {
		t.Errorf("Dave's games %v; want spies-2 (paused) and spies-4", got)
	}
	if err := m.Resume(ctx, "spies-2"); err != nil {
		t.Fatal(err)
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

// A game's inbox read leaves unread the PMs of another game's players who
// are not its own, and reads them after all when a game's roster changed
// since its view found the games (a replace by the GM's command line
// between the view and the read): a PM is never passed by on an old roster.
func TestInboxSkipsOtherGamesPMs(t *testing.T) {
	ctx := context.Background()
	si := newSharedInbox(t, []string{"http://fake/"}, []string{"GMbot"}, []string{"spies", "spies-2", "spies-3"},
		[][]string{{"Alice", "Bob"}, {"Alice", "Carol"}, {"Erin", "Fay"}})
	ff, m, ids := si.ff, si.m, si.ids
	for _, id := range ids {
		if err := m.Tick(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	m.Clock.(*clock.Fake).Advance(time.Second) // the PMs come after those reads
	ff.PMSubject("Erin", "orders", "PROSPER")
	ff.PMSubject("Alice", "[spies] orders", "PROSPER")
	l, err := m.viewForRead(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	var wakes []<-chan struct{}
	for _, id := range ids {
		w, drop := m.hailable(id)
		defer drop()
		wakes = append(wakes, w)
	}
	box, err := m.newPMs(ctx, l, ff)
	if err != nil {
		t.Fatal(err)
	}
	if len(box.PMs) != 1 || box.PMs[0].From.Name != "Alice" || ff.Skipped != 1 {
		t.Errorf("spies read %+v, skipped %d; want Alice's PM, Erin's skipped", box.PMs, ff.Skipped)
	}
	// Erin's game is hailed (her PM waits for it), no other.
	for i, w := range wakes {
		select {
		case <-w:
			if i != 2 {
				t.Errorf("game %d hailed, want only Erin's (2)", i)
			}
		default:
			if i == 2 {
				t.Error("Erin's game not hailed for the PM spies passed by")
			}
		}
	}
	gm := &Moderator{DB: si.db, Clock: m.Clock, Connect: m.Connect}
	if _, _, err := gm.Replace(ctx, "spies", "Bob", "Erin", ""); err != nil {
		t.Fatal(err)
	}
	box, err = m.newPMs(ctx, l, ff) // the view from before the replace
	if err != nil {
		t.Fatal(err)
	}
	if len(box.PMs) != 2 || box.PMs[0].From.Name != "Erin" {
		t.Errorf("after a replace: spies read %+v; want Erin's PM too", box.PMs)
	}
}
