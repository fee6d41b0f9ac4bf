package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/pgtest"
	"github.com/forumgm/forumgm/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var ctx = context.Background()

// t0 is a fixed instant in a non-UTC zone: values must come back as the
// same instant, in UTC.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.FixedZone("CET", 3600))

func us(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func tx(t *testing.T, db *store.DB, fn func(*store.Tx) error) {
	t.Helper()
	must(t, db.Tx(ctx, fn))
}

func newGame(t *testing.T, db *store.DB, name string) *store.Game {
	t.Helper()
	g := &store.Game{Name: name, Kind: "nations", Status: "running", Config: []byte(`{"rounds":5}`),
		Forum: []byte(`{"base_url":"http://x/","credentials":"env:FORUMGM_PASS"}`), State: []byte(`{}`)}
	tx(t, db, func(tx *store.Tx) error { return tx.CreateGame(g) })
	return g
}

func TestSortKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"12345": 12345, "p12345": 12345, "post-7": 7, "abc": 0, "": 0, "99999999999999999999": 0, "10": 10} {
		if got := store.SortKey(in); got != want {
			t.Errorf("SortKey(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		if !strings.HasPrefix(t.Name(), "TestOpen/"+db.Driver()) {
			t.Errorf("driver %q in %s", db.Driver(), t.Name())
		}
		v, err := db.SchemaVersion(ctx)
		must(t, err)
		if v != store.CurrentSchemaVersion() {
			t.Errorf("SchemaVersion = %d, want %d", v, store.CurrentSchemaVersion())
		}
	})
}

func TestOpenMemory(t *testing.T) {
	t.Parallel()
	for _, dsn := range []string{":memory:", "sqlite::memory:"} {
		db, err := store.Open(ctx, dsn)
		must(t, err)
		if db.Driver() != "sqlite" {
			t.Errorf("%s: driver %s", dsn, db.Driver())
		}
		g := &store.Game{Name: "m", Kind: "protest", Status: "running"}
		must(t, db.Tx(ctx, func(tx *store.Tx) error { return tx.CreateGame(g) }))
		must(t, db.View(ctx, func(tx *store.Tx) error { _, err := tx.Game("m"); return err }))
		must(t, db.Close())
	}
}

func TestOpenSQLitePathForms(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, dsn := range []string{filepath.Join(dir, "a b.db"), "sqlite:" + filepath.Join(dir, "c.db"), "file:" + filepath.Join(dir, "d.db")} {
		db, err := store.Open(ctx, dsn)
		must(t, err)
		newGame(t, db, "g")
		must(t, db.Close())
	}
	for _, f := range []string{"a b.db", "c.db", "d.db"} {
		if _, err := store.Open(ctx, filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGames(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g := newGame(t, db, "nations-1")
		if g.ID == 0 || g.CreatedAt.IsZero() || !g.UpdatedAt.Equal(g.CreatedAt) {
			t.Fatalf("CreateGame left %+v", g)
		}
		newGame(t, db, "resist")

		// A duplicate name is ErrExists, and the transaction stays usable
		// (on PostgreSQL a failed statement would abort it).
		tx(t, db, func(tx *store.Tx) error {
			err := tx.CreateGame(&store.Game{Name: "nations-1", Kind: "nations", Status: "running"})
			if !errors.Is(err, store.ErrExists) {
				t.Errorf("duplicate name: %v", err)
			}
			_, err = tx.Game("resist")
			return err
		})
		// A password in the forum settings is refused.
		err := db.Tx(ctx, func(tx *store.Tx) error {
			return tx.CreateGame(&store.Game{Name: "bad", Kind: "nations", Status: "running", Forum: []byte(`{"login":{"user":"bot","password":"hunter2"}}`)})
		})
		if !errors.Is(err, store.ErrSecret) {
			t.Errorf("password in forum settings: %v", err)
		}

		err = db.View(ctx, func(tx *store.Tx) error {
			got, err := tx.Game("nations-1")
			must(t, err)
			if !reflect.DeepEqual(got, g) {
				t.Errorf("Game = %+v\nwant %+v", got, g)
			}
			byID, err := tx.GameByID(g.ID)
			must(t, err)
			if !reflect.DeepEqual(byID, g) {
				t.Errorf("GameByID = %+v", byID)
			}
			if _, err := tx.Game("nope"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Game(nope): %v", err)
			}
			if _, err := tx.GameByID(999); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("GameByID(999): %v", err)
			}
			return nil
		})
		must(t, err)

		g.Status, g.State, g.Phase = "paused", []byte(`{"round":2}`), "round-2"
		g.Deadline, g.PausedAt, g.UpdatedAt = us(t0.Add(time.Hour)), us(t0), us(t0.Add(time.Minute))
		g.ThreadCursor, g.PMCursor = []byte(`{"page":3,"last":"1234"}`), []byte(`{"seen":["9"]}`)
		g.Name, g.Config = "renamed?", []byte(`{"changed":true}`) // not written by SaveGame
		tx(t, db, func(tx *store.Tx) error { return tx.SaveGame(g) })
		tx(t, db, func(tx *store.Tx) error {
			got, err := tx.GameByID(g.ID)
			must(t, err)
			want := *g
			want.Name, want.Config = "nations-1", []byte(`{"rounds":5}`)
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("after SaveGame: %+v\nwant %+v", got, want)
			}
			// Clearing times writes NULLs that read back as zero.
			got.Deadline, got.PausedAt, got.UpdatedAt = time.Time{}, time.Time{}, time.Time{}
			must(t, tx.SaveGame(got))
			again, err := tx.GameByID(g.ID)
			must(t, err)
			if !again.Deadline.IsZero() || !again.PausedAt.IsZero() || again.UpdatedAt.IsZero() {
				t.Errorf("zero times: %+v", again)
			}
			must(t, tx.SetGameSettings(g.ID, []byte(`{"rounds":7}`), []byte(`{"credentials":"file:/etc/x"}`)))
			again, err = tx.GameByID(g.ID)
			must(t, err)
			if string(again.Config) != `{"rounds":7}` || string(again.Forum) != `{"credentials":"file:/etc/x"}` {
				t.Errorf("SetGameSettings: %s %s", again.Config, again.Forum)
			}
			if err := tx.SetGameSettings(g.ID, nil, []byte(`{"password":"x"}`)); !errors.Is(err, store.ErrSecret) {
				t.Errorf("SetGameSettings with password: %v", err)
			}
			if err := tx.SaveGame(&store.Game{ID: 999}); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("SaveGame(999): %v", err)
			}
			return nil
		})

		g3 := newGame(t, db, "finished-one")
		g3.Status = "finished"
		tx(t, db, func(tx *store.Tx) error { return tx.SaveGame(g3) })
		must(t, db.View(ctx, func(tx *store.Tx) error {
			for _, c := range []struct {
				status []store.GameStatus
				want   []string
			}{
				{nil, []string{"nations-1", "resist", "finished-one"}},
				{[]store.GameStatus{store.GameRunning}, []string{"resist"}},
				{[]store.GameStatus{store.GameRunning, store.GameFinished}, []string{"resist", "finished-one"}},
				{[]store.GameStatus{store.GameEnded}, nil},
			} {
				gs, err := tx.Games(c.status...)
				must(t, err)
				var names []string
				for _, g := range gs {
					names = append(names, g.Name)
				}
				if !reflect.DeepEqual(names, c.want) {
					t.Errorf("Games(%v) = %v, want %v", c.status, names, c.want)
				}
			}
			return nil
		}))
	})
}

func TestPlayers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g := newGame(t, db, "g")
		ps := []store.Player{
			{GameID: g.ID, Slot: "Zed", ForumName: "Zed", ForumUserID: "7"},
			{GameID: g.ID, Slot: "Alice", ForumName: "Alice [x]", ForumUserID: "3", Aliases: []string{"Ali", "A"}},
			{GameID: g.ID, Slot: "Bob", ForumName: "Bob"},
		}
		tx(t, db, func(tx *store.Tx) error { return tx.SetPlayers(g.ID, ps) })
		tx(t, db, func(tx *store.Tx) error {
			got, err := tx.Players(g.ID)
			must(t, err)
			if !reflect.DeepEqual(got, ps) {
				t.Errorf("Players = %+v\nwant %+v", got, ps)
			}
			// Replacing the roster (a replaced player) drops the old rows.
			ps2 := []store.Player{{GameID: g.ID, Slot: "Bob", ForumName: "Bob"}, {GameID: g.ID, Slot: "Zed", ForumName: "Zed2"}}
			must(t, tx.SetPlayers(g.ID, ps2))
			got, err = tx.Players(g.ID)
			must(t, err)
			if !reflect.DeepEqual(got, ps2) {
				t.Errorf("Players after replace = %+v", got)
			}
			other, err := tx.Players(g.ID + 100)
			if err != nil || len(other) != 0 {
				t.Errorf("Players(other) = %v, %v", other, err)
			}
			return nil
		})
		// A slot twice is ErrExists; the transaction is rolled back.
		err := db.Tx(ctx, func(tx *store.Tx) error {
			return tx.SetPlayers(g.ID, []store.Player{{Slot: "A", ForumName: "A"}, {Slot: "A", ForumName: "A"}})
		})
		if !errors.Is(err, store.ErrExists) {
			t.Errorf("duplicate slot: %v", err)
		}
	})
}

func msg(g int64, kind forum.MessageKind, id, body string, at time.Time) *store.Message {
	return &store.Message{GameID: g, Kind: kind, ForumID: id, AuthorName: "Alice", AuthorID: "3", Time: at,
		BodyHTML: body, Hash: "h:" + body, FirstSeen: at.Add(time.Second)}
}

func TestMessages(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g := newGame(t, db, "g")
		g2 := newGame(t, db, "other")
		var first store.Message
		tx(t, db, func(tx *store.Tx) error {
			m := msg(g.ID, "post", "100", "<b>vote</b>", t0)
			ch, err := tx.RecordMessage(m)
			must(t, err)
			if ch != store.New || m.ID == 0 || m.Status != "new" || !m.FirstSeen.Equal(us(t0.Add(time.Second))) {
				t.Fatalf("first record: %v %+v", ch, m)
			}
			first = *m
			got, err := tx.Message(m.ID)
			must(t, err)
			if !reflect.DeepEqual(*got, first) {
				t.Errorf("Message = %+v\nwant %+v", got, first)
			}
			// Seen again, same hash: unchanged, the stored row comes back.
			again := msg(g.ID, "post", "100", "<b>vote</b>", t0)
			again.FirstSeen = t0.Add(time.Hour)
			ch, err = tx.RecordMessage(again)
			must(t, err)
			if ch != store.Unchanged || !reflect.DeepEqual(*again, first) {
				t.Errorf("unchanged: %v %+v", ch, again)
			}
			// A PM with the same forum id, and the same post in another
			// game, are other messages.
			pm := msg(g.ID, "pm", "100", "hi", t0)
			ch, err = tx.RecordMessage(pm)
			must(t, err)
			o := msg(g2.ID, "post", "100", "x", t0)
			ch2, err := tx.RecordMessage(o)
			must(t, err)
			if ch != store.New || ch2 != store.New || pm.ID == m.ID || o.ID == m.ID {
				t.Errorf("distinct identities: %v %v %d %d %d", ch, ch2, m.ID, pm.ID, o.ID)
			}
			return nil
		})

		// Two edits keep two versions, each with the time it was first seen.
		tx(t, db, func(tx *store.Tx) error {
			must(t, tx.SetMessageStatus(first.ID, "processed"))
			e1 := msg(g.ID, "post", "100", "<b>vote Bob</b>", t0)
			e1.FirstSeen = t0.Add(10 * time.Minute)
			ch, err := tx.RecordMessage(e1)
			must(t, err)
			if ch != store.Edited || e1.ID != first.ID || e1.Edits != 1 || e1.Status != "processed" ||
				!e1.LastEditSeen.Equal(us(t0.Add(10*time.Minute))) || !e1.FirstSeen.Equal(first.FirstSeen) {
				t.Errorf("edit 1: %v %+v", ch, e1)
			}
			e2 := msg(g.ID, "post", "100", "<b>vote Carol</b>", t0)
			e2.FirstSeen = t0.Add(20 * time.Minute)
			ch, err = tx.RecordMessage(e2)
			must(t, err)
			if ch != store.Edited || e2.Edits != 2 || e2.BodyHTML != "<b>vote Carol</b>" || e2.Hash != "h:<b>vote Carol</b>" {
				t.Errorf("edit 2: %v %+v", ch, e2)
			}
			vs, err := tx.Versions(first.ID)
			must(t, err)
			want := []store.MessageVersion{
				{MessageID: first.ID, BodyHTML: "<b>vote</b>", Hash: "h:<b>vote</b>", Seen: first.FirstSeen},
				{MessageID: first.ID, BodyHTML: "<b>vote Bob</b>", Hash: "h:<b>vote Bob</b>", Seen: us(t0.Add(10 * time.Minute))},
			}
			if !reflect.DeepEqual(vs, want) {
				t.Errorf("Versions = %+v\nwant %+v", vs, want)
			}
			got, err := tx.Message(first.ID)
			must(t, err)
			if !reflect.DeepEqual(*got, *e2) {
				t.Errorf("stored after edits %+v\nwant %+v", got, e2)
			}
			return nil
		})

		// Forum order: time, then numeric id ("99" before "100"), then id
		// (post 100 was stored before PM 100); a message without a time
		// comes first.
		tx(t, db, func(tx *store.Tx) error {
			for _, m := range []*store.Message{
				msg(g.ID, "post", "99", "a", t0),
				msg(g.ID, "post", "101", "b", t0.Add(-time.Minute)),
				msg(g.ID, "post", "1000", "c", t0.Add(time.Minute)),
				msg(g.ID, "pm", "5", "d", time.Time{}),
			} {
				_, err := tx.RecordMessage(m)
				must(t, err)
			}
			news, err := tx.MessagesByStatus(g.ID, "new")
			must(t, err)
			if got := ids(news); got != "pm5 post101 post99 pm100 post1000" {
				t.Errorf("MessagesByStatus(new) = %s", got)
			}
			all, err := tx.Messages(g.ID)
			must(t, err)
			if got := ids(all); got != "pm5 post101 post99 post100 pm100 post1000" {
				t.Errorf("Messages = %s", got)
			}
			proc, err := tx.MessagesByStatus(g.ID, "processed")
			must(t, err)
			if got := ids(proc); got != "post100" {
				t.Errorf("MessagesByStatus(processed) = %s", got)
			}
			return nil
		})

		// Deletion: only posts, not deleted, numerically in range.
		tx(t, db, func(tx *store.Tx) error {
			between := func(lo, hi string) string {
				got, err := tx.PostIDsBetween(g.ID, lo, hi)
				must(t, err)
				return strings.Join(got, " ")
			}
			if got := between("99", "1000"); got != "99 100 101 1000" {
				t.Errorf("PostIDsBetween(99,1000) = %q", got)
			}
			if got := between("100", "101"); got != "100 101" {
				t.Errorf("PostIDsBetween(100,101) = %q", got)
			}
			must(t, tx.MarkDeleted(g.ID, "post", "100", t0.Add(time.Hour)))
			must(t, tx.MarkDeleted(g.ID, "post", "100", t0.Add(2*time.Hour))) // the first time stays
			if got := between("0", "999999"); got != "99 101 1000" {
				t.Errorf("after delete: %q", got)
			}
			m, err := tx.Message(first.ID)
			must(t, err)
			if !m.Deleted || !m.DeletedSeen.Equal(us(t0.Add(time.Hour))) {
				t.Errorf("deleted: %+v", m)
			}
			if err := tx.MarkDeleted(g.ID, "post", "4242", t0); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("MarkDeleted unknown: %v", err)
			}
			// Seen again after all: no longer deleted, the record of the
			// deletion stays.
			back := msg(g.ID, "post", "100", "<b>vote Carol</b>", t0)
			ch, err := tx.RecordMessage(back)
			must(t, err)
			if ch != store.Unchanged || back.Deleted || !back.DeletedSeen.Equal(us(t0.Add(time.Hour))) {
				t.Errorf("seen again: %v %+v", ch, back)
			}
			if got := between("100", "100"); got != "100" {
				t.Errorf("after reappearing: %q", got)
			}
			if _, err := tx.Message(99999); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Message(99999): %v", err)
			}
			if err := tx.SetMessageStatus(99999, "ignored"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("SetMessageStatus(99999): %v", err)
			}
			return nil
		})
	})
}

func ids(ms []store.Message) string {
	var s []string
	for _, m := range ms {
		s = append(s, string(m.Kind)+m.ForumID)
	}
	return strings.Join(s, " ")
}

func TestCommands(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g := newGame(t, db, "g")
		var m store.Message
		tx(t, db, func(tx *store.Tx) error {
			m = *msg(g.ID, "post", "1", "x", t0)
			_, err := tx.RecordMessage(&m)
			return err
		})
		cs := []*store.CommandRow{
			{GameID: g.ID, MessageID: m.ID, Seq: 0, Phase: "round-1", Player: "Alice", Channel: "public", Text: "VOTE Bob", Kind: "vote", Args: []string{"Bob"}, Status: "accepted", Time: t0},
			{GameID: g.ID, MessageID: m.ID, Seq: 1, Phase: "round-1", Player: "Alice", Channel: "public", Text: "wow", Status: "ignored", Time: t0},
			{GameID: g.ID, Phase: "round-2", Player: "Bob", Channel: "private", Text: "INVADE X", Kind: "invade", Args: []string{"X", "2"}, Status: "rejected", Reason: "no such player", Time: t0.Add(time.Hour)},
		}
		tx(t, db, func(tx *store.Tx) error {
			for _, c := range cs {
				must(t, tx.AddCommand(c))
				if c.ID == 0 || c.CreatedAt.IsZero() {
					t.Fatalf("AddCommand left %+v", c)
				}
				c.Time = us(c.Time)
			}
			return nil
		})
		tx(t, db, func(tx *store.Tx) error {
			got, err := tx.Command(cs[2].ID)
			must(t, err)
			if !reflect.DeepEqual(got, cs[2]) {
				t.Errorf("Command = %+v\nwant %+v", got, cs[2])
			}
			must(t, tx.SetCommandStatus(cs[0].ID, "superseded", "replaced by a later vote"))
			cs[0].Status, cs[0].Reason = "superseded", "replaced by a later vote"
			if err := tx.SetCommandStatus(9999, "voided", ""); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("SetCommandStatus(9999): %v", err)
			}
			if _, err := tx.Command(9999); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Command(9999): %v", err)
			}
			for _, c := range []struct {
				f    store.CommandFilter
				want []*store.CommandRow
			}{
				{store.CommandFilter{}, cs},
				{store.CommandFilter{Player: "Alice"}, cs[:2]},
				{store.CommandFilter{Phase: "round-2"}, cs[2:]},
				{store.CommandFilter{MessageID: m.ID}, cs[:2]},
				{store.CommandFilter{Status: "superseded"}, cs[:1]},
				{store.CommandFilter{Player: "Alice", Status: "ignored"}, cs[1:2]},
				{store.CommandFilter{Player: "Carol"}, nil},
			} {
				got, err := tx.Commands(g.ID, c.f)
				must(t, err)
				var want []store.CommandRow
				for _, w := range c.want {
					want = append(want, *w)
				}
				if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
					t.Errorf("Commands(%+v) = %+v\nwant %+v", c.f, got, want)
				}
			}
			return nil
		})
	})
}

func TestJournal(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g1, g2 := newGame(t, db, "a"), newGame(t, db, "b")
		var cmd store.CommandRow
		tx(t, db, func(tx *store.Tx) error {
			cmd = store.CommandRow{GameID: g1.ID, Player: "Alice", Text: "VOTE Bob", Status: "accepted"}
			must(t, tx.AddCommand(&cmd))
			for i, e := range []*journal.Entry{
				{GameID: g1.ID, Kind: "command", Payload: []byte(`{"kind":"vote"}`), CommandID: cmd.ID, Time: t0},
				{GameID: g2.ID, Kind: "command", Payload: []byte(`{}`), Time: t0},
				{GameID: g1.ID, Kind: "resolve", Time: t0.Add(time.Hour)},
				{GameID: g1.ID, Kind: "deadline", Payload: []byte(`{"t":1}`)},
			} {
				must(t, tx.AppendJournal(e))
				want := []int64{1, 1, 2, 3}[i]
				if e.Seq != want {
					t.Errorf("entry %d: Seq %d, want %d", i, e.Seq, want)
				}
			}
			return nil
		})
		tx(t, db, func(tx *store.Tx) error { return tx.VoidJournalForCommand(cmd.ID) })
		tx(t, db, func(tx *store.Tx) error { return tx.VoidJournalForCommand(9999) }) // nothing to void: fine
		must(t, db.View(ctx, func(tx *store.Tx) error {
			j, err := tx.Journal(g1.ID)
			must(t, err)
			if len(j) != 3 {
				t.Fatalf("journal: %+v", j)
			}
			want0 := journal.Entry{Seq: 1, GameID: g1.ID, Kind: "command", Payload: []byte(`{"kind":"vote"}`), CommandID: cmd.ID, Time: us(t0), Voided: true}
			if !reflect.DeepEqual(j[0], want0) {
				t.Errorf("entry 1 = %+v\nwant %+v", j[0], want0)
			}
			if j[1].Voided || j[1].Kind != "resolve" || j[1].Payload != nil || j[1].CommandID != 0 || j[2].Seq != 3 || j[2].Time.IsZero() {
				t.Errorf("entries 2,3 = %+v", j[1:])
			}
			j2, err := tx.Journal(g2.ID)
			must(t, err)
			if len(j2) != 1 || j2[0].Seq != 1 || j2[0].Voided {
				t.Errorf("game 2 journal: %+v", j2)
			}
			return nil
		}))
	})
}

func TestEvents(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g := newGame(t, db, "g")
		evs := []rules.Event{
			rules.PublicEvent("round", "Round 1 [b]begins[/b]"),
			rules.PrivateEvent("Alice", "role", "You are a spy."),
			{Kind: "report", Text: "later", NotBefore: t0.Add(time.Hour)},
		}
		rows := func(phase string, evs []rules.Event, at time.Time) *store.Changes {
			var c store.Changes
			for _, e := range evs {
				c.Events = append(c.Events, store.EventRow{GameID: g.ID, Phase: phase, To: e.To, Kind: e.Kind, Text: e.Text, NotBefore: e.NotBefore, At: at})
			}
			return &c
		}
		tx(t, db, func(tx *store.Tx) error { return tx.Save(rows("round-1", evs, t0)) })
		tx(t, db, func(tx *store.Tx) error { return tx.Save(rows("round-2", evs[:1], t0.Add(time.Minute))) })
		must(t, db.View(ctx, func(tx *store.Tx) error {
			got, err := tx.Events(g.ID)
			must(t, err)
			if len(got) != 4 {
				t.Fatalf("Events: %+v", got)
			}
			for i, w := range append(evs, evs[0]) {
				e := got[i]
				phase, at := "round-1", us(t0)
				if i == 3 {
					phase, at = "round-2", us(t0.Add(time.Minute))
				}
				if e.ID == 0 || e.GameID != g.ID || e.Phase != phase || e.To != w.To || e.Kind != w.Kind || e.Text != w.Text ||
					!e.NotBefore.Equal(us(w.NotBefore)) || !e.At.Equal(at) || (i > 0 && e.ID <= got[i-1].ID) {
					t.Errorf("event %d = %+v, want %+v in %s at %v", i, e, w, phase, at)
				}
			}
			return nil
		}))
	})
}

func TestOutbox(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g, g2 := newGame(t, db, "g"), newGame(t, db, "h")
		items := []store.OutboxItem{
			{GameID: g.ID, Kind: "post", Body: "one", Marker: "m1"},
			{GameID: g.ID, Kind: "pm", Recipient: "Alice", RecipientName: "Alice", RecipientID: "3", Subject: "role", Body: "two", Marker: "m2"},
			{GameID: g.ID, Kind: "post", Body: "three", Marker: "m3", NotBefore: t0.Add(time.Hour)},
			{GameID: g.ID, Kind: "post", Body: "four", Marker: "m4"},
			{GameID: g2.ID, Kind: "post", Body: "other game", Marker: "m5", NotBefore: t0.Add(-time.Hour)},
		}
		tx(t, db, func(tx *store.Tx) error { return tx.Enqueue(items) })
		for i, it := range items {
			if it.ID == 0 || it.State != "pending" || it.CreatedAt.IsZero() || (i > 0 && it.ID <= items[i-1].ID) {
				t.Fatalf("Enqueue left %+v", it)
			}
		}
		// A duplicate marker is ErrExists (also within one batch).
		for _, batch := range [][]store.OutboxItem{
			{{GameID: g.ID, Kind: "post", Body: "x", Marker: "m2"}},
			{{GameID: g.ID, Kind: "post", Body: "x", Marker: "new"}, {GameID: g.ID, Kind: "post", Body: "y", Marker: "new"}},
		} {
			if err := db.Tx(ctx, func(tx *store.Tx) error { return tx.Enqueue(batch) }); !errors.Is(err, store.ErrExists) {
				t.Errorf("duplicate marker: %v", err)
			}
		}

		next := func(gid int64, now time.Time) string {
			var s string
			tx(t, db, func(tx *store.Tx) error {
				it, err := tx.NextOutbox(gid, now)
				must(t, err)
				if it != nil {
					s = it.Marker
				}
				return nil
			})
			return s
		}
		send := func(marker string, state store.OutboxState, at time.Time) {
			tx(t, db, func(tx *store.Tx) error {
				all, err := tx.Outbox(g.ID)
				must(t, err)
				for _, it := range all {
					if it.Marker == marker {
						it.State, it.Attempts, it.ForumID, it.LastError, it.SentAt = state, it.Attempts+1, "p-"+marker, "", at
						return tx.UpdateOutbox(&it)
					}
				}
				t.Fatalf("no %s", marker)
				return nil
			})
		}
		if got := next(g.ID, t0); got != "m1" {
			t.Fatalf("next = %q, want m1", got)
		}
		// "sending" is still unsent: it comes back (the poster re-checks
		// the forum for its marker before retrying).
		send("m1", "sending", time.Time{})
		if got := next(g.ID, t0); got != "m1" {
			t.Errorf("next after sending = %q, want m1", got)
		}
		send("m1", "sent", t0)
		send("m2", "failed", time.Time{}) // given up: no longer blocks
		// m3 is not due: nothing goes, not even the due m4 behind it.
		if got := next(g.ID, t0); got != "" {
			t.Errorf("next before m3 is due = %q, want none", got)
		}
		if got := next(g.ID, t0.Add(time.Hour)); got != "m3" {
			t.Errorf("next when m3 is due = %q", got)
		}
		send("m3", "sent", t0.Add(time.Hour))
		if got := next(g.ID, t0.Add(time.Hour)); got != "m4" {
			t.Errorf("next = %q, want m4", got)
		}
		send("m4", "sent", t0.Add(time.Hour))
		if got := next(g.ID, t0.Add(time.Hour)); got != "" {
			t.Errorf("next when all sent = %q", got)
		}
		if got := next(g2.ID, t0); got != "m5" {
			t.Errorf("other game next = %q", got)
		}
		must(t, db.View(ctx, func(tx *store.Tx) error {
			// By marker: the game's own item, or none.
			for _, c := range []struct {
				gid           int64
				marker, forum string
			}{{g.ID, "m1", "p-m1"}, {g.ID, "m3", "p-m3"}, {g.ID, "m5", ""}, {g2.ID, "m5", ""}, {g.ID, "none", ""}} {
				it, err := tx.OutboxByMarker(c.gid, c.marker)
				must(t, err)
				switch {
				case c.forum == "" && c.gid == g2.ID && (it == nil || it.Marker != "m5" || it.State != "pending"):
					t.Errorf("OutboxByMarker(g2, m5) = %+v", it)
				case c.forum == "" && c.gid == g.ID && it != nil:
					t.Errorf("OutboxByMarker(g, %s) = %+v, want none", c.marker, it)
				case c.forum != "" && (it == nil || it.Marker != c.marker || it.ForumID != c.forum || it.State != "sent" || it.SentAt.IsZero()):
					t.Errorf("OutboxByMarker(g, %s) = %+v", c.marker, it)
				}
			}
			all, err := tx.Outbox(g.ID)
			must(t, err)
			if len(all) != 4 {
				t.Fatalf("Outbox = %+v", all)
			}
			want := items[0]
			want.State, want.Attempts, want.ForumID, want.SentAt = "sent", 2, "p-m1", us(t0)
			want.CreatedAt = us(want.CreatedAt)
			if !reflect.DeepEqual(all[0], want) {
				t.Errorf("Outbox[0] = %+v\nwant %+v", all[0], want)
			}
			want = items[1]
			want.State, want.Attempts, want.ForumID = "failed", 1, "p-m2"
			if !reflect.DeepEqual(all[1], want) {
				t.Errorf("Outbox[1] = %+v\nwant %+v", all[1], want)
			}
			if !all[2].NotBefore.Equal(us(t0.Add(time.Hour))) {
				t.Errorf("NotBefore = %v", all[2].NotBefore)
			}
			return nil
		}))
		tx(t, db, func(tx *store.Tx) error {
			if err := tx.UpdateOutbox(&store.OutboxItem{ID: 9999, State: "sent"}); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("UpdateOutbox(9999): %v", err)
			}
			return nil
		})
	})
}

func TestTxRollback(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		boom := errors.New("boom")
		err := db.Tx(ctx, func(tx *store.Tx) error {
			must(t, tx.CreateGame(&store.Game{Name: "rolled", Kind: "nations", Status: "running"}))
			return boom
		})
		if !errors.Is(err, boom) {
			t.Errorf("Tx error = %v", err)
		}
		func() {
			defer func() {
				if r := recover(); r != "panic!" {
					t.Errorf("recovered %v", r)
				}
			}()
			_ = db.Tx(ctx, func(tx *store.Tx) error {
				must(t, tx.CreateGame(&store.Game{Name: "panicked", Kind: "nations", Status: "running"}))
				panic("panic!")
			})
		}()
		must(t, db.View(ctx, func(tx *store.Tx) error {
			gs, err := tx.Games()
			must(t, err)
			if len(gs) != 0 {
				t.Errorf("rolled back games are there: %+v", gs)
			}
			return nil
		}))
		// The store still works after a panic (the connection was freed).
		newGame(t, db, "after")
	})
}

func TestViewIsReadOnly(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		err := db.View(ctx, func(tx *store.Tx) error {
			return tx.CreateGame(&store.Game{Name: "x", Kind: "nations", Status: "running"})
		})
		if err == nil {
			t.Error("a write in View succeeded")
		}
	})
}

// Many goroutines writing at once: on SQLite they must queue, never fail
// with SQLITE_BUSY; readers run beside them.
func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		const workers, each = 12, 20
		games := make([]*store.Game, workers)
		for i := range games {
			games[i] = newGame(t, db, fmt.Sprintf("g%d", i))
		}
		var wg sync.WaitGroup
		errs := make(chan error, 2*workers*each)
		for w := 0; w < workers; w++ {
			wg.Add(2)
			go func() {
				defer wg.Done()
				g := games[w]
				for i := 0; i < each; i++ {
					errs <- db.Tx(ctx, func(tx *store.Tx) error {
						m := msg(g.ID, "post", fmt.Sprint(i), "body", t0)
						if _, err := tx.RecordMessage(m); err != nil {
							return err
						}
						if err := tx.AppendJournal(&journal.Entry{GameID: g.ID, Kind: "command"}); err != nil {
							return err
						}
						if err := tx.Enqueue([]store.OutboxItem{{GameID: g.ID, Kind: "post", Body: "b", Marker: fmt.Sprintf("%d-%d", w, i)}}); err != nil {
							return err
						}
						g2, err := tx.GameByID(g.ID)
						if err != nil {
							return err
						}
						g2.Phase = fmt.Sprint(i)
						return tx.SaveGame(g2)
					})
				}
			}()
			go func() {
				defer wg.Done()
				for i := 0; i < each; i++ {
					errs <- db.View(ctx, func(tx *store.Tx) error {
						_, err := tx.Messages(games[w].ID)
						return err
					})
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		must(t, db.View(ctx, func(tx *store.Tx) error {
			for _, g := range games {
				ms, err := tx.Messages(g.ID)
				must(t, err)
				j, err := tx.Journal(g.ID)
				must(t, err)
				o, err := tx.Outbox(g.ID)
				must(t, err)
				if len(ms) != each || len(j) != each || len(o) != each || j[each-1].Seq != each {
					t.Errorf("game %s: %d messages, %d journal, %d outbox", g.Name, len(ms), len(j), len(o))
				}
			}
			return nil
		}))
	})
}

// eachDSN gives a fresh SQLite file and a fresh PostgreSQL database as DSNs,
// for the tests that must reopen or poke at the database directly.
func eachDSN(t *testing.T, body func(t *testing.T, driver, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { body(t, "sqlite", filepath.Join(t.TempDir(), "f.db")) })
	t.Run("postgres", func(t *testing.T) { body(t, "postgres", pgtest.DSN(t)) })
}

func countVersions(t *testing.T, driver, dsn string) int {
	t.Helper()
	raw, err := sql.Open(driver, dsn)
	must(t, err)
	defer raw.Close()
	var n int
	must(t, raw.QueryRow(`SELECT COUNT(*) FROM schema_version`).Scan(&n))
	return n
}

func TestReopen(t *testing.T) {
	t.Parallel()
	eachDSN(t, func(t *testing.T, driver, dsn string) {
		db, err := store.Open(ctx, dsn)
		must(t, err)
		g := newGame(t, db, "kept")
		must(t, db.Close())
		if n := countVersions(t, driver, dsn); n != store.CurrentSchemaVersion() {
			t.Fatalf("%d schema_version rows, want one per migration (%d)", n, store.CurrentSchemaVersion())
		}
		for i := 0; i < 2; i++ {
			db, err = store.Open(ctx, dsn)
			must(t, err)
			must(t, db.View(ctx, func(tx *store.Tx) error {
				got, err := tx.Game("kept")
				if err == nil && !reflect.DeepEqual(got, g) {
					t.Errorf("after reopen: %+v\nwant %+v", got, g)
				}
				return err
			}))
			must(t, db.Close())
		}
		if n := countVersions(t, driver, dsn); n != store.CurrentSchemaVersion() {
			t.Errorf("schema applied again: %d schema_version rows", n)
		}
	})
}

func TestRefuseNewerSchema(t *testing.T) {
	t.Parallel()
	eachDSN(t, func(t *testing.T, driver, dsn string) {
		db, err := store.Open(ctx, dsn)
		must(t, err)
		must(t, db.Close())
		raw, err := sql.Open(driver, dsn)
		must(t, err)
		q := `INSERT INTO schema_version (version, applied_at) VALUES (?, 0)`
		if driver == "postgres" {
			q = strings.Replace(q, "?", "$1", 1)
		}
		_, err = raw.Exec(q, store.CurrentSchemaVersion()+1)
		must(t, err)
		must(t, raw.Close())
		db, err = store.Open(ctx, dsn)
		if !errors.Is(err, store.ErrSchemaTooNew) {
			t.Errorf("Open of a newer schema: %v", err)
		}
		if db != nil {
			db.Close()
		}
	})
}

func TestOpenRejectsSQLiteParams(t *testing.T) {
	t.Parallel()
	_, err := store.Open(ctx, filepath.Join(t.TempDir(), "x.db")+"?_pragma=journal_mode(DELETE)")
	if err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("Open with parameters: %v", err)
	}
}

// LockGame: the game row as Game reads it; on PostgreSQL a second locker
// waits until the first transaction ends.
func TestLockGame(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g := newGame(t, db, "locked")
		tx(t, db, func(tx *store.Tx) error {
			got, err := tx.LockGame(g.ID)
			must(t, err)
			if !reflect.DeepEqual(got, g) {
				t.Errorf("LockGame = %+v\nwant %+v", got, g)
			}
			if _, err := tx.LockGame(9999); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("LockGame(9999): %v", err)
			}
			return nil
		})
		locked, release := make(chan struct{}), make(chan struct{})
		var order []string
		var mu sync.Mutex
		note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := db.Tx(ctx, func(tx *store.Tx) error {
				_, err := tx.LockGame(g.ID)
				close(locked)
				<-release
				note("first done")
				return err
			})
			if err != nil {
				t.Error(err)
			}
		}()
		<-locked
		waiting, err := db.LockWaiters(ctx)
		must(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := db.Tx(ctx, func(tx *store.Tx) error {
				_, err := tx.LockGame(g.ID)
				note("second locked")
				return err
			})
			if err != nil {
				t.Error(err)
			}
		}()
		// The second must be waiting now before the first lets go.
		for deadline := time.Now().Add(10 * time.Second); ; {
			n, err := db.LockWaiters(ctx)
			must(t, err)
			if n > waiting {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the second transaction never waited for the lock")
			}
			time.Sleep(time.Millisecond)
		}
		close(release)
		wg.Wait()
		if strings.Join(order, ",") != "first done,second locked" {
			t.Errorf("order: %v", order)
		}
	})
}

// The learned flood status is stored per game and read back (the column
// comes with migration 2; TestUpgradeFromFirstRelease covers upgrading).
func TestFlood(t *testing.T) {
	t.Parallel()
	eachDSN(t, func(t *testing.T, driver, dsn string) {
		db, err := store.Open(ctx, dsn)
		must(t, err)
		defer db.Close()
		g := newGame(t, db, "old")
		must(t, db.View(ctx, func(tx *store.Tx) error {
			doc, err := tx.Flood(g.ID)
			if doc != nil {
				t.Errorf("flood before any: %s", doc)
			}
			return err
		}))
		must(t, db.Tx(ctx, func(tx *store.Tx) error { return tx.SetFlood(g.ID, []byte(`{"state":"exempt"}`)) }))
		must(t, db.View(ctx, func(tx *store.Tx) error {
			doc, err := tx.Flood(g.ID)
			if string(doc) != `{"state":"exempt"}` {
				t.Errorf("flood read back: %s", doc)
			}
			return err
		}))
		if err := db.Tx(ctx, func(tx *store.Tx) error { return tx.SetFlood(g.ID+100, []byte(`{}`)) }); err == nil {
			t.Error("SetFlood of a missing game: no error")
		}
	})
}

// TestMessageStamps: a message keeps its stamp's interval, precision, text
// and error as recorded; a caller that gives only a time gets it as exact;
// the post before an id is found by its numeric order.
func TestMessageStamps(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g := newGame(t, db, "g")
		minute := forum.Stamp{Earliest: us(t0).Truncate(time.Minute), Latest: us(t0).Truncate(time.Minute).Add(40 * time.Second),
			Precision: forum.PrecisionMinute, Text: "Today, 12:00 PM", Relative: false}
		bad := forum.UnreadableStamp("yesterday-ish", nil)
		tx(t, db, func(tx *store.Tx) error {
			m := msg(g.ID, "post", "7", "a", time.Time{})
			m.Stamp = minute
			_, err := tx.RecordMessage(m)
			must(t, err)
			u := msg(g.ID, "post", "9", "b", time.Time{})
			u.Stamp = bad
			_, err = tx.RecordMessage(u)
			must(t, err)
			e := msg(g.ID, "pm", "3", "c", t0)
			_, err = tx.RecordMessage(e)
			must(t, err)

			got, err := tx.MessageByForumID(g.ID, "post", "7")
			must(t, err)
			if !reflect.DeepEqual(got.Stamp, minute) || !got.Time.Equal(minute.Earliest) {
				t.Errorf("minute stamp came back as %+v (time %v)", got.Stamp, got.Time)
			}
			got, err = tx.MessageByForumID(g.ID, "post", "9")
			must(t, err)
			if got.Stamp.Err != bad.Err || got.Stamp.Text != "yesterday-ish" || got.Stamp.Known() || !got.Time.IsZero() {
				t.Errorf("unreadable stamp came back as %+v", got.Stamp)
			}
			got, err = tx.MessageByForumID(g.ID, "pm", "3")
			must(t, err)
			if !got.Stamp.Exact() || !got.Stamp.Earliest.Equal(us(t0)) {
				t.Errorf("a time alone should be an exact stamp: %+v", got.Stamp)
			}
			prev, err := tx.LastMessageBefore(g.ID, "post", "9")
			must(t, err)
			if prev == nil || prev.ForumID != "7" {
				t.Errorf("post before 9: %+v", prev)
			}
			if prev, err = tx.LastMessageBefore(g.ID, "post", "7"); err != nil || prev != nil {
				t.Errorf("post before 7: %+v %v", prev, err)
			}
			if _, err := tx.MessageByForumID(g.ID, "post", "8"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("unknown post: %v", err)
			}
			return nil
		})
	})
}

// TestMessageCommands: the commands read with a message are kept with it
// (none read is another thing than none found), an edit replaces them with
// the new body's or with none, and a row without them says so.
func TestMessageCommands(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g := newGame(t, db, "g")
		tx(t, db, func(tx *store.Tx) error {
			read := msg(g.ID, "post", "1", "<b>vote: Al</b>", t0)
			read.Commands, read.CommandsRead = []string{"vote: Al"}, true
			empty := msg(g.ID, "post", "2", "chatter", t0)
			empty.CommandsRead = true
			unread := msg(g.ID, "pm", "3", "JOIN", t0)
			for _, m := range []*store.Message{read, empty, unread} {
				_, err := tx.RecordMessage(m)
				must(t, err)
			}
			for _, c := range []struct {
				id   int64
				read bool
				want []string
			}{{read.ID, true, []string{"vote: Al"}}, {empty.ID, true, []string{}}, {unread.ID, false, nil}} {
				got, err := tx.Message(c.id)
				must(t, err)
				if got.CommandsRead != c.read || !reflect.DeepEqual(got.Commands, c.want) {
					t.Errorf("message %d: commands %q read %v, want %q %v", c.id, got.Commands, got.CommandsRead, c.want, c.read)
				}
			}
			// Edits: the new body's commands, then none read.
			ed := msg(g.ID, "post", "1", "<b>vote: Bo</b>", t0)
			ed.Commands, ed.CommandsRead = []string{"vote: Bo"}, true
			ch, err := tx.RecordMessage(ed)
			must(t, err)
			if ch != store.Edited || !ed.CommandsRead || !reflect.DeepEqual(ed.Commands, []string{"vote: Bo"}) {
				t.Errorf("edit: %v, commands %q read %v", ch, ed.Commands, ed.CommandsRead)
			}
			ed2 := msg(g.ID, "post", "1", "<b>vote: Cy</b>", t0)
			_, err = tx.RecordMessage(ed2)
			must(t, err)
			got, err := tx.Message(read.ID)
			must(t, err)
			if got.CommandsRead || got.Commands != nil || ed2.CommandsRead {
				t.Errorf("an edit with no commands read kept %q (read %v; returned %v)", got.Commands, got.CommandsRead, ed2.CommandsRead)
			}
			return nil
		})
	})
}

// A game's revision counts the saves of its state and of its settings, and
// GameRevisions lists them by status without the rows.
func TestGameRevisions(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		a, b := newGame(t, db, "rev-a"), newGame(t, db, "rev-b")
		revs := func(status ...store.GameStatus) []store.GameRevision {
			var out []store.GameRevision
			tx(t, db, func(tx *store.Tx) (err error) { out, err = tx.GameRevisions(status...); return err })
			return out
		}
		if got, want := revs(), []store.GameRevision{{ID: a.ID}, {ID: b.ID}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("new games: %+v, want %+v", got, want)
		}
		a.State = []byte(`{"round":2}`)
		tx(t, db, func(tx *store.Tx) error { return tx.SaveGame(a) })
		tx(t, db, func(tx *store.Tx) error { return tx.SaveGame(a) }) // the same state again: a revision all the same
		if a.Revision != 2 {
			t.Errorf("after two saves the game says revision %d, want 2", a.Revision)
		}
		tx(t, db, func(tx *store.Tx) error { return tx.SetGameSettings(b.ID, []byte(`{"rounds":6}`), b.Forum) })
		b.Status = "finished"
		tx(t, db, func(tx *store.Tx) error { return tx.SaveGame(b) })
		if got, want := revs(), []store.GameRevision{{ID: a.ID, Revision: 2}, {ID: b.ID, Revision: 2}}; !reflect.DeepEqual(got, want) {
			t.Errorf("after the saves: %+v, want %+v", got, want)
		}
		if got, want := revs("running", "paused"), []store.GameRevision{{ID: a.ID, Revision: 2}}; !reflect.DeepEqual(got, want) {
			t.Errorf("running or paused: %+v, want %+v", got, want)
		}
		tx(t, db, func(tx *store.Tx) error {
			g, err := tx.GameByID(a.ID)
			if err == nil && g.Revision != 2 {
				t.Errorf("GameByID: revision %d, want 2", g.Revision)
			}
			return err
		})
	})
}

// GamesVersion counts what changes a game's roster or whether it runs (its
// creation, status, forum settings, players' names), and neither a forum
// user id learned, nor a change of its config alone (its counts' and
// reminders' bookkeeping), nor the saves of a running game's state, which
// every poll makes.
func TestGamesVersion(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ver := func() int64 {
			t.Helper()
			var n int64
			tx(t, db, func(tx *store.Tx) (err error) { n, err = tx.GamesVersion(); return err })
			return n
		}
		v0 := ver()
		a := newGame(t, db, "ver-a")
		v := ver()
		for _, c := range []struct {
			what   string
			change func(tx *store.Tx) error
			counts bool
		}{
			{"a state saved", func(tx *store.Tx) error { a.State = []byte(`{"round":2}`); return tx.SaveGame(a) }, false},
			{"saved again", func(tx *store.Tx) error { return tx.SaveGame(a) }, false},
			{"paused", func(tx *store.Tx) error { a.Status = "paused"; return tx.SaveGame(a) }, true},
			{"running again", func(tx *store.Tx) error { a.Status = "running"; return tx.SaveGame(a) }, true},
			{"its config", func(tx *store.Tx) error { return tx.SetGameSettings(a.ID, []byte(`{"rounds":6}`), a.Forum) }, false},
			{"its forum settings", func(tx *store.Tx) error {
				a.Forum = []byte(`{"url":"http://other/","engine":"phpbb","thread":"1","bot":"gm"}`)
				return tx.SetGameSettings(a.ID, []byte(`{"rounds":6}`), a.Forum)
			}, true},
			{"its players", func(tx *store.Tx) error {
				return tx.SetPlayers(a.ID, []store.Player{{GameID: a.ID, Slot: "Ann", ForumName: "Ann"}})
			}, true},
			{"a forum user id learned", func(tx *store.Tx) error {
				return tx.SetPlayers(a.ID, []store.Player{{GameID: a.ID, Slot: "Ann", ForumName: "Ann", ForumUserID: "7"}})
			}, false},
			{"a name changed", func(tx *store.Tx) error {
				return tx.SetPlayers(a.ID, []store.Player{{GameID: a.ID, Slot: "Ann", ForumName: "Anne", ForumUserID: "7", Aliases: []string{"Ann"}}})
			}, true},
			{"an alias only", func(tx *store.Tx) error {
				return tx.SetPlayers(a.ID, []store.Player{{GameID: a.ID, Slot: "Ann", ForumName: "Anne", ForumUserID: "7", Aliases: []string{"Ann", "A"}}})
			}, true},
			{"a game created", func(tx *store.Tx) error {
				return tx.CreateGame(&store.Game{Name: "ver-b", Kind: "nations", Status: "running", Forum: a.Forum, State: []byte(`{}`)})
			}, true},
		} {
			tx(t, db, c.change)
			if got := ver(); (got != v) != c.counts {
				t.Errorf("%s: version %d after %d; counted %v, want %v", c.what, got, v, got != v, c.counts)
			}
			v = ver()
		}
		if v <= v0 {
			t.Errorf("version %d after %d: not counted up", v, v0)
		}
	})
}

// GamesChangedSince lists the games a counted change touched after a
// count, and not those whose state only was saved.
func TestGamesChangedSince(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		var v0 int64
		tx(t, db, func(tx *store.Tx) (err error) { v0, err = tx.GamesVersion(); return err })
		a, b := newGame(t, db, "since-a"), newGame(t, db, "since-b")
		since := func(v int64) (ids []int64) {
			t.Helper()
			var hs []store.GameHead
			tx(t, db, func(tx *store.Tx) (err error) { hs, err = tx.GamesChangedSince(v); return err })
			for _, h := range hs {
				ids = append(ids, h.ID)
			}
			return ids
		}
		if got := since(v0); !reflect.DeepEqual(got, []int64{a.ID, b.ID}) {
			t.Errorf("since before both were created: %v, want %d and %d", got, a.ID, b.ID)
		}
		var v1 int64
		tx(t, db, func(tx *store.Tx) (err error) { v1, err = tx.GamesVersion(); return err })
		if got := since(v1); len(got) != 0 {
			t.Errorf("since the last count: %v, want none", got)
		}
		tx(t, db, func(tx *store.Tx) error { a.State = []byte(`{"round":2}`); return tx.SaveGame(a) })
		if got := since(v1); len(got) != 0 {
			t.Errorf("after a state saved: %v, want none", got)
		}
		tx(t, db, func(tx *store.Tx) error { b.Status = "paused"; return tx.SaveGame(b) })
		tx(t, db, func(tx *store.Tx) error {
			return tx.Save(&store.Changes{Game: a, Roster: true})
		})
		var hs []store.GameHead
		tx(t, db, func(tx *store.Tx) (err error) { hs, err = tx.GamesChangedSince(v1); return err })
		if len(hs) != 2 || hs[0].ID != a.ID || hs[1].ID != b.ID || hs[1].Status != "paused" {
			t.Errorf("after b paused and a's roster changed: %+v", hs)
		}
	})
}

// GameHeads lists the games' ids, names and statuses by status, by id.
func TestGameHeads(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		a, b := newGame(t, db, "head-a"), newGame(t, db, "head-b")
		b.Status = "finished"
		tx(t, db, func(tx *store.Tx) error { return tx.SaveGame(b) })
		heads := func(status ...store.GameStatus) []store.GameHead {
			var out []store.GameHead
			tx(t, db, func(tx *store.Tx) (err error) { out, err = tx.GameHeads(status...); return err })
			return out
		}
		if got, want := heads(), []store.GameHead{{ID: a.ID, Name: "head-a", Status: "running"}, {ID: b.ID, Name: "head-b", Status: "finished"}}; !reflect.DeepEqual(got, want) {
			t.Errorf("all: %+v, want %+v", got, want)
		}
		if got, want := heads("finished", "paused"), []store.GameHead{{ID: b.ID, Name: "head-b", Status: "finished"}}; !reflect.DeepEqual(got, want) {
			t.Errorf("finished or paused: %+v, want %+v", got, want)
		}
	})
}
