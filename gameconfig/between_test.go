package gameconfig

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestBetweenBlocks: the counts and reminders blocks as a GM writes them
// reach the game's config, survive being stored (JSON), and give the
// settings the moderator uses, with defaults that suit the phase's length;
// what cannot work is refused naming the key.
func TestBetweenBlocks(t *testing.T) {
	dir := t.TempDir()
	const head = "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P}\nplayers: [A1, B1, C1]\n"
	const day, hour = 24 * time.Hour, time.Hour
	for _, c := range []struct {
		name, block string
		length      time.Duration // the phase's, for the defaults
		requests    bool
		gap, every  time.Duration
		before      []time.Duration
		thread      bool
		prod        time.Duration
	}{
		{"defaults, a 48-hour phase", "", 48 * hour, true, 30 * time.Minute, 0, []time.Duration{day, 2 * hour}, false, 48 * hour},
		{"defaults, a 24-hour phase", "", day, true, 30 * time.Minute, 0, []time.Duration{12 * hour, 2 * hour}, false, 48 * hour},
		{"defaults, a week-long phase", "", 7 * day, true, 30 * time.Minute, 0, []time.Duration{day, 2 * hour}, false, 48 * hour},
		{"defaults, a 2-minute phase", "", 2 * time.Minute, true, 12 * time.Second, 0, []time.Duration{time.Minute}, false, 48 * hour},
		{"defaults, a 12-minute phase", "", 12 * time.Minute, true, 72 * time.Second, 0, []time.Duration{6 * time.Minute, time.Minute}, false, 48 * hour},
		{"every key", "counts: {requests: false, gap: 1h, every: 6h}\nreminders: {before: [2h, 1d], thread: true, prod: 3d}\n",
			48 * hour, false, hour, 6 * hour, []time.Duration{day, 2 * hour}, true, 3 * day},
		{"reminders off", "reminders: {before: off, prod: off}\n", 48 * hour, true, 30 * time.Minute, 0, nil, false, 0},
		{"no reminders as an empty list", "reminders: {before: []}\n", 48 * hour, true, 30 * time.Minute, 0, nil, false, 48 * hour},
		{"gap 0: every request at once", "counts: {gap: 0s}\n", 48 * hour, true, 0, 0, []time.Duration{day, 2 * hour}, false, 48 * hour},
	} {
		p := filepath.Join(dir, "g.yaml")
		os.WriteFile(p, []byte(head+c.block), 0o644)
		gf, err := LoadGameFile(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		gc, _, _ := gf.Configs(time.Now())
		b, _ := json.Marshal(gc)
		var stored GameConfig
		if err := json.Unmarshal(b, &stored); err != nil {
			t.Fatal(err)
		}
		for _, g := range []GameConfig{gc, stored} {
			got := []any{g.Counts.OnRequest(), g.Counts.GapFor(c.length), g.Counts.EveryTime(), g.Reminders.BeforeFor(c.length), g.Reminders.InThread(), g.Reminders.ProdAfter()}
			want := []any{c.requests, c.gap, c.every, c.before, c.thread, c.prod}
			if len(c.before) == 0 {
				want[3] = []time.Duration(nil)
				if got[3] != nil && len(got[3].([]time.Duration)) == 0 {
					got[3] = []time.Duration(nil)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: requests, gap, every, before, thread, prod = %v, want %v", c.name, got, want)
			}
		}
	}
	for _, c := range []struct{ block, want string }{
		{"counts: {gap: 2d}\n", "counts: gap 2d: must be 0 to 1d"},
		{"counts: {every: soon}\n", `counts: every: "soon" is not a duration`},
		{"counts: {every: 8d}\n", "counts: every 8d: must be 1s to 7d"},
		{"reminders: {before: [1h, 60m]}\n", "reminders: before: 60m is there twice"},
		{"reminders: {before: [0s]}\n", "reminders: before 0s: must be 1s to 14d"},
		{"reminders: {before: 2h}\n", "reminders: before: a list of durations like [24h, 2h], or off"},
		{"reminders: {prod: -1h}\n", "reminders: prod -1h: must be 1s to 30d"},
		{"reminders: {when: 2h}\n", "field when not found"},
	} {
		p := filepath.Join(dir, "g.yaml")
		os.WriteFile(p, []byte(head+c.block), 0o644)
		_, err := LoadGameFile(p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error saying %q", c.block, err, c.want)
		}
	}
}

// TestBetweenStateFor: the state of another phase starts afresh but keeps
// the prods; a copy never shares them with the original.
func TestBetweenStateFor(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	b := &BetweenState{Phase: "round-1", Counts: 2, Asked: true, Reminded: 1, Prodded: map[string]time.Time{"Ann": at}}
	same := b.For("round-1")
	same.Prodded["Ben"] = at
	if same.Counts != 2 || !same.Asked || same.Reminded != 1 || len(b.Prodded) != 1 {
		t.Errorf("the same phase: %+v (the original now %+v)", same, b)
	}
	next := b.For("round-2")
	if next.Phase != "round-2" || next.Counts != 0 || next.Asked || next.Reminded != 0 || !next.Prodded["Ann"].Equal(at) {
		t.Errorf("the next phase: %+v", next)
	}
	if fresh := (*BetweenState)(nil).For("round-1"); fresh.Phase != "round-1" || fresh.Prodded != nil {
		t.Errorf("from nothing: %+v", fresh)
	}
}
