package signup

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func open57() State {
	return New(5, 7, t0.Add(48*time.Hour), 24*time.Hour, true, "GMBot", []string{"TheHost"})
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		seg  string
		kind Kind
		ok   bool
	}{
		{"/in", In, true}, {"/IN", In, true}, {" /in! ", In, true}, {"/in.", In, true}, {"/In!!", In, true},
		{"/out", Out, true}, {"/OUT.", Out, true},
		{"in", "", false}, {"/inn", "", false}, {"/in please", "", false}, {"I'm /in", "", false},
		{"/ in", "", false}, {"//in", "", false}, {"", "", false}, {"/out/in", "", false},
	} {
		k, ok := Parse(tc.seg)
		if k != tc.kind || ok != tc.ok {
			t.Errorf("Parse(%q) = %q %v, want %q %v", tc.seg, k, ok, tc.kind, tc.ok)
		}
	}
	got := Read([]string{"hello", "/in", "VOTE: Ann", "/out!"})
	want := []Command{{Seq: 1, Text: "/in", Kind: In}, {Seq: 3, Text: "/out!", Kind: Out}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Read = %+v", got)
	}
}

// TestJoinLeave: each refusal has its reason, the list keeps its order, an
// /out moves those after up, and nothing is changed in place.
func TestJoinLeave(t *testing.T) {
	s := open57()
	var r Result
	step := func(name, id string, kind Kind) Result {
		t.Helper()
		before := s
		beforeNames := strings.Join(s.Names(), " ")
		if kind == In {
			s, r = s.Join(name, id, t0, "p")
		} else {
			s, r = s.Leave(name, id)
		}
		if strings.Join(before.Names(), " ") != beforeNames {
			t.Fatal("changed in place")
		}
		return r
	}
	for _, tc := range []struct {
		name, id string
		kind     Kind
		ok       bool
		reason   string
		list     string
	}{
		{"Ann", "1", In, true, "", "Ann"},
		{"Ben", "2", In, true, "", "Ann Ben"},
		{"ann", "9", In, false, "already signed up (number 1)", "Ann Ben"},
		{"Annie", "1", In, false, "your account is already signed up, as Ann (number 1)", "Ann Ben"},
		{"A_n-N", "3", In, false, "the bot cannot tell you from Ann", "Ann Ben"},
		{"gmbot", "4", In, false, "its own account cannot sign up", "Ann Ben"},
		{"TheHost", "5", In, false, "the GM runs the game", "Ann Ben"},
		{"--", "6", In, false, "no letters or digits", "Ann Ben"},
		{"Cat", "", In, false, "could not read your forum user id", "Ann Ben"},
		{"Zed", "7", Out, false, "you are not signed up", "Ann Ben"},
		{"Cat", "8", In, true, "", "Ann Ben Cat"},
		{"ann", "1", Out, true, "", "Ben Cat"},
		{"Ann", "1", In, true, "", "Ben Cat Ann"},
		{"Dan", "10", In, true, "", "Ben Cat Ann Dan"},
		{"Eli", "11", In, true, "", "Ben Cat Ann Dan Eli"},
		{"Fay", "12", In, true, "", "Ben Cat Ann Dan Eli Fay"},
		{"Gus", "13", In, true, "", "Ben Cat Ann Dan Eli Fay Gus"},
		{"Hal", "14", In, false, "the game is full (7 of 7)", "Ben Cat Ann Dan Eli Fay Gus"},
	} {
		r := step(tc.name, tc.id, tc.kind)
		if r.OK != tc.ok || !strings.Contains(r.Reason, tc.reason) || (tc.ok && r.Reason != "") {
			t.Errorf("%s %s: %+v, want ok %v %q", tc.kind, tc.name, r, tc.ok, tc.reason)
		}
		if got := strings.Join(s.Names(), " "); got != tc.list {
			t.Errorf("after %s %s: %s, want %s", tc.kind, tc.name, got, tc.list)
		}
	}
	if r := step("Ann", "1", Out); !r.OK || r.Name != "Ann" {
		t.Errorf("%+v", r)
	}
	if s.Full() || !s.Enough() {
		t.Errorf("6 of 5 to 7: full %v, enough %v", s.Full(), s.Enough())
	}
}

func TestTake(t *testing.T) {
	s := open57()
	for i, n := range []string{"Annabel", "Anne", "Bob"} {
		s, _ = s.Join(n, string(rune('1'+i)), t0, "")
	}
	if _, _, err := s.Take("Ann"); err == nil || !strings.Contains(err.Error(), "more than one") {
		t.Errorf("an ambiguous prefix: %v", err)
	}
	if _, _, err := s.Take("Bo"); err == nil {
		t.Error("a two-letter prefix took someone off")
	}
	n, r, err := s.Take("anne")
	if err != nil || r.Name != "Anne" || strings.Join(n.Names(), " ") != "Annabel Bob" || len(s.In) != 3 {
		t.Errorf("take anne: %v %+v %v (was %v)", err, r, n.Names(), s.Names())
	}
}

func TestAtClose(t *testing.T) {
	s := open57()
	if s.AtClose() != Extend {
		t.Error("none in, an extension set: extend")
	}
	s = s.Extend(s.Close.Add(24 * time.Hour))
	if s.AtClose() != Cancel || !s.Close.Equal(t0.Add(72*time.Hour)) {
		t.Errorf("extended once: cancel next (%v)", s.Close)
	}
	for i, n := range []string{"A1", "B2", "C3", "D4", "E5"} {
		s, _ = s.Join(n, string(rune('a'+i)), t0, "")
	}
	if s.AtClose() != Start {
		t.Error("five of five: start")
	}
	none := New(2, 4, t0, 0, false, "bot", nil)
	if none.AtClose() != Cancel {
		t.Error("no extension set: cancel at once")
	}
}

// TestGame: the sign-ups as a rules.Game: one phase with the closing time
// as its deadline, the list as its roster, a state that round-trips.
func TestGame(t *testing.T) {
	g := Engine("resistance")
	s := open57()
	s, _ = s.Join("Ann", "1", t0, "")
	st := g.Status(s)
	if st.Phase != Phase || !st.Deadline.Equal(s.Close) || st.Finished || len(st.Acted) != 1 || st.Title != "Sign-ups: 1 in (5 to 7 players)" {
		t.Errorf("status %+v", st)
	}
	if id, ok := s.Roster().Author("ann"); !ok || id != "Ann" {
		t.Error("the roster does not know Ann")
	}
	b, _ := json.Marshal(s)
	back, err := g.Decode(b)
	if err != nil || !reflect.DeepEqual(back, rules.State(s)) {
		t.Errorf("round trip: %v\n%+v\n%+v", err, back, s)
	}
	moved := g.SetDeadline(s, t0.Add(time.Hour)).(State)
	if !moved.Close.Equal(t0.Add(time.Hour)) || s.Close.Equal(moved.Close) {
		t.Error("SetDeadline")
	}
	if _, _, err := g.Apply(s, rules.Command{Kind: "vote"}); err == nil {
		t.Error("a game command applied during sign-ups")
	}
	if _, _, err := g.Setup(rules.Config{}); err == nil {
		t.Error("set up from a config")
	}
}

// TestTexts compares the posts with testdata/golden (go test ./signup
// -update rewrites them), written in New York time: every time in the
// board's zone and in UTC, with how far away.
func TestTexts(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	s := open57()
	var rs []Result
	add := func(name, id string, in bool) {
		var r Result
		if in {
			s, r = s.Join(name, id, t0, "")
		} else {
			s, r = s.Leave(name, id)
		}
		rs = append(rs, r)
	}
	add("Ann", "1", true)
	add("[url=http://evil.example]Eve\u202e", "2", true)
	add("Ann", "1", true)
	add("Zed", "3", false)
	now := t0.Add(time.Hour)
	full := s
	for i, n := range []string{"Cat", "Dan", "Fay", "Gus", "Hal"} {
		full, _ = full.Join(n, string(rune('a'+i)), t0, "")
	}
	gmOnly := New(6, 6, t0.Add(90*time.Minute), 0, false, "bot", nil)
	texts := map[string]string{
		"call":              s.CallText("resistance", "spies-50", "", ny, t0),
		"call-own-words":    gmOnly.CallText("nations", "n1", "Five quick rounds tonight.", ny, t0),
		"list":              s.ListText(rs, ny, now),
		"closed-full":       full.ClosedText(Filled, rs[:1]),
		"closed-by-the-gm":  full.ClosedText(ByGM, nil),
		"extended":          s.Extend(s.Close.Add(24*time.Hour)).ExtendedText(rs[3:], ny, s.Close),
		"cancelled":         s.Extend(s.Close.Add(24*time.Hour)).CancelledText(nil, false),
		"cancelled-no-ext":  gmOnly.CancelledText(nil, false),
		"cancelled-by-a-gm": s.CancelledText(nil, true),
		"late-reason":       LateReason(s.Close, ny),
	}
	for name, got := range texts {
		checkEscaped(t, got)
		file := filepath.Join("testdata", "golden", name+".txt")
		if *update {
			os.MkdirAll(filepath.Dir(file), 0o755)
			if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (go test ./signup -update writes it)", err)
		}
		if got != string(want) {
			t.Errorf("%s differs from %s:\n%s", name, file, got)
		}
	}
}

// checkEscaped: the only BBCode in a sign-up post is the bot's own bold;
// any other "[" came from a name and is escaped (rules.Esc), and no
// direction control is left.
func checkEscaped(t *testing.T, text string) {
	t.Helper()
	rest := strings.NewReplacer("[b]", "", "[/b]", "").Replace(text)
	for i := strings.IndexByte(rest, '['); i >= 0; i = strings.IndexByte(rest, '[') {
		if !strings.HasPrefix(rest[i+1:], "\u200b") {
			t.Fatalf("an unescaped %q in:\n%s", rest[i:min(len(rest), i+20)], text)
		}
		rest = rest[i+1:]
	}
	if strings.ContainsAny(text, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c") {
		t.Fatalf("a direction control in:\n%s", text)
	}
}
