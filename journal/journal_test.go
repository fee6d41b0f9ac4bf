package journal_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	_ "github.com/forumgm/forumgm/games"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/pgtest"
	"github.com/forumgm/forumgm/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Every kind's payload is written once and read back as itself.
func TestEncodeDecode(t *testing.T) {
	t.Parallel()
	cmd := rules.Command{Kind: "civ", Args: []string{"Fire"}, Text: "CIV: Fire", Src: rules.Source{Player: "Alice", Channel: rules.Public, Time: t0, Ref: "2"}}
	for _, p := range []journal.Payload{
		journal.Command{Command: cmd},
		journal.Resolve{Phase: "round-1", Title: "Round 1 of 2"},
		journal.Deadline{Deadline: t0.Add(time.Hour)},
		journal.Replace{Old: "Carol", New: "Dora"},
		journal.End{},
	} {
		e := journal.New(7, t0, p)
		if e.GameID != 7 || !e.Time.Equal(t0) || e.Kind != journal.KindOf(p) {
			t.Errorf("%T: entry %+v", p, e)
		}
		got, err := e.Decode()
		if err != nil || !reflect.DeepEqual(got, p) {
			t.Errorf("%T: decoded %#v, %v; want %#v", p, got, err, p)
		}
	}
	if e := journal.New(1, t0, journal.End{}); e.Payload != nil {
		t.Errorf("an end entry has a payload: %s", e.Payload)
	}
}

// fixture is a Nations game's journal as the moderator wrote it before the
// journal was typed (testdata/nations-v1.json: the rows of a game with a
// command by post and one by PM, a GM's extend, replace, void and end, a
// resolution), with the game's config and its final state.
type fixture struct {
	Kind   string          `json:"kind"`
	Config json.RawMessage `json:"config"`
	State  json.RawMessage `json:"state"`
	Rows   []struct {
		Seq       int64           `json:"seq"`
		Kind      string          `json:"kind"`
		Payload   json.RawMessage `json:"payload"`
		CommandID int64           `json:"command_id"`
		At        int64           `json:"at"`
		Voided    bool            `json:"voided"`
	} `json:"rows"`
}

func loadFixture(t *testing.T) (fixture, []journal.Entry) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "nations-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var es []journal.Entry
	for _, r := range f.Rows {
		e := journal.Entry{Seq: r.Seq, Kind: journal.Kind(r.Kind), CommandID: r.CommandID, Time: time.UnixMicro(r.At).UTC(), Voided: r.Voided}
		if string(r.Payload) != "null" {
			e.Payload = r.Payload
		}
		es = append(es, e)
	}
	return f, es
}

// The rows existing databases hold decode, are written again in the same
// JSON shapes, and replay strictly to the state the game ended in.
func TestOldRowsReplay(t *testing.T) {
	t.Parallel()
	f, es := loadFixture(t)
	kinds := map[journal.Kind]bool{}
	for _, e := range es {
		kinds[e.Kind] = true
		p, err := e.Decode()
		if err != nil {
			t.Fatalf("row %d (%s): %v", e.Seq, e.Kind, err)
		}
		if again := journal.New(0, e.Time, p); !sameJSON(again.Payload, e.Payload) {
			t.Errorf("row %d (%s): written again as %s, was %s", e.Seq, e.Kind, again.Payload, e.Payload)
		}
	}
	for _, k := range []journal.Kind{journal.KindCommand, journal.KindResolve, journal.KindDeadline, journal.KindReplace, journal.KindEnd} {
		if !kinds[k] {
			t.Errorf("the fixture has no %s row", k)
		}
	}
	checkReplay(t, f, es)
}

// The same rows through the store, on SQLite and PostgreSQL, as an
// existing database would give them back.
func TestOldRowsReplayFromTheStore(t *testing.T) {
	f, es := loadFixture(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		var back []journal.Entry
		err := db.Tx(t.Context(), func(tx *store.Tx) error {
			g := &store.Game{Name: "old", Kind: f.Kind, Status: store.GameFinished, Config: f.Config, Forum: []byte(`{}`), State: f.State}
			if err := tx.CreateGame(g); err != nil {
				return err
			}
			var c store.Changes
			for _, e := range es {
				// (The fixture has no audit log for the rows' commands.)
				e.GameID, e.CommandID = g.ID, 0
				c.Journal = append(c.Journal, store.JournalWrite{Entry: e})
			}
			if err := tx.Save(&c); err != nil {
				return err
			}
			var err error
			back, err = tx.Journal(g.ID)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		checkReplay(t, f, back)
	})
}

func checkReplay(t *testing.T, f fixture, es []journal.Entry) {
	t.Helper()
	g, err := rules.Lookup(f.Kind)
	if err != nil {
		t.Fatal(err)
	}
	var gc gameconfig.GameConfig
	if err := json.Unmarshal(f.Config, &gc); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []journal.Mode{journal.Strict, journal.Lenient} {
		s, err := journal.Replay(g, gc.Rules(), es, mode)
		if err != nil {
			t.Fatalf("mode %d: %v", mode, err)
		}
		got, _ := json.Marshal(s)
		if !sameJSON(got, f.State) {
			t.Errorf("mode %d: replayed\n%s\nwant the game's state\n%s", mode, got, f.State)
		}
	}
}

// The moderator's rebuild passes over what it cannot replay; the tests'
// strict oracle fails on it; an undecodable payload fails both.
func TestReplayModes(t *testing.T) {
	t.Parallel()
	f, es := loadFixture(t)
	g, _ := rules.Lookup(f.Kind)
	var gc gameconfig.GameConfig
	json.Unmarshal(f.Config, &gc)
	with := func(e journal.Entry) []journal.Entry {
		out := append([]journal.Entry(nil), es[:len(es)-1]...)
		return append(out, e, es[len(es)-1])
	}
	bogus := rules.Command{Kind: "civ", Args: []string{"Fire"}, Text: "CIV: Fire", Src: rules.Source{Player: "Nobody", Channel: rules.Public, Time: t0}}
	for _, tc := range []struct {
		name         string
		entry        journal.Entry
		lenientFails bool
		want         error
	}{
		{"an unknown kind", journal.Entry{Seq: 99, Kind: "teleport", Payload: []byte(`{}`), Time: t0}, false, journal.ErrUnknownKind},
		{"a command that no longer applies", journal.New(0, t0, journal.Command{Command: bogus}), false, nil},
		{"an undecodable deadline", journal.Entry{Seq: 99, Kind: journal.KindDeadline, Payload: []byte(`{"deadline": 5}`), Time: t0}, true, nil},
		{"an undecodable command", journal.Entry{Seq: 99, Kind: journal.KindCommand, Payload: []byte(`[`), Time: t0}, true, nil},
	} {
		_, err := journal.Replay(g, gc.Rules(), with(tc.entry), journal.Strict)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s: strict replay: %v", tc.name, err)
		}
		_, err = journal.Replay(g, gc.Rules(), with(tc.entry), journal.Lenient)
		if (err != nil) != tc.lenientFails {
			t.Errorf("%s: lenient replay: %v", tc.name, err)
		}
	}
	// A voided entry is passed over by both, whatever it holds.
	voided := journal.New(0, t0, journal.Command{Command: bogus})
	voided.Voided = true
	if _, err := journal.Replay(g, gc.Rules(), with(voided), journal.Strict); err != nil {
		t.Errorf("a voided entry: %v", err)
	}
}

func sameJSON(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}
