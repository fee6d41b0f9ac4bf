package rules

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	r, err := NewRoster([]string{"Alice", "Alicia", "Bob_Smith", "Mary-Jane", "Al", "Ünal", "Işık"}, map[string][]string{"Alice": {"Ali"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"alice", "Alice", true},
		{"ALICE", "Alice", true},
		{"Ali", "Alice", true},    // alias, exact beats prefix of Alicia
		{"alic", "", false},       // prefix of Alice and Alicia: ambiguous
		{"alici", "Alicia", true}, // unique prefix
		{"bob smith", "Bob_Smith", true},
		{"bobsmith", "Bob_Smith", true},
		{"Bob-Smith", "Bob_Smith", true},
		{"bob", "Bob_Smith", true}, // 3-letter unique prefix
		{"bo", "", false},          // too short
		{"Al", "Al", true},         // exact match even though short
		{"mary jane", "Mary-Jane", true},
		{"maryj", "Mary-Jane", true},
		{"ünal", "Ünal", true},
		{"zed", "", false},
		{"", "", false},
		{"[b]", "", false},
		{"IŞIK", "Işık", true}, // dotless i folds like I
		{"işık", "Işık", true},
	}
	for _, tc := range tests {
		got, err := r.Match(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("Match(%q) = %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestRosterRejectsClashes(t *testing.T) {
	t.Parallel()
	if _, err := NewRoster([]string{"Bob Smith", "bob_smith"}, nil); err == nil {
		t.Error("names that normalise alike must be refused")
	}
	if _, err := NewRoster([]string{"Bob", "Carl"}, map[string][]string{"Bob": {"carl"}}); err == nil {
		t.Error("alias clashing with another player must be refused")
	}
	if _, err := NewRoster([]string{"Bob"}, map[string][]string{"Zed": {"z"}}); err == nil {
		t.Error("alias of a non-player must be refused")
	}
}

func TestReplaceKeepsOldName(t *testing.T) {
	t.Parallel()
	r, _ := NewRoster([]string{"Alice", "Bob"}, nil)
	if err := r.Replace("Bob", "Carol"); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"Bob", "carol", "Car"} {
		if id, err := r.Match(n); err != nil || id != "Bob" {
			t.Errorf("Match(%q) = %q, %v; want slot Bob", n, id, err)
		}
	}
	if r.Display("Bob") != "Carol" {
		t.Errorf("display = %q", r.Display("Bob"))
	}
	if err := r.Replace("Alice", "carol"); err == nil {
		t.Error("replacing with an existing player's name must fail")
	}
}

func TestSplitListAndWords(t *testing.T) {
	t.Parallel()
	got := SplitList("alice, bob and carol & dave;eve")
	want := []string{"alice", "bob", "carol", "dave", "eve"}
	if len(got) != len(want) {
		t.Fatalf("SplitList = %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("SplitList = %q", got)
		}
	}
	if w := Words("VOTE:APPROVE!"); len(w) != 2 || w[1] != "APPROVE" {
		t.Errorf("Words = %q", w)
	}
	if r := Rest("TEAM:  alice, bob", 1); r != "alice, bob" {
		t.Errorf("Rest = %q", r)
	}
}

func TestEsc(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"[/quote][url=x]", "[\u200b/quote][\u200burl=x]"},
		// Right-to-left overrides, embeddings, isolates and marks are left
		// out: a name cannot turn the rest of a post around.
		{"Ann\u202Eevil", "Annevil"},
		{"\u2067x\u2069[b]\u200F\u200E\u061C\u202A\u202B\u202C\u202D\u2066\u2068", "x[\u200bb]"},
		// Letters of right-to-left scripts stay: they are names, not controls.
		{"شادي", "شادي"},
	}
	for _, tc := range tests {
		if got := Esc(tc.in); got != tc.want {
			t.Errorf("Esc(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRandIsPerPurpose(t *testing.T) {
	t.Parallel()
	a := NewRand(7, "roles").IntN(1 << 30)
	b := NewRand(7, "roles").IntN(1 << 30)
	c := NewRand(7, "deck").IntN(1 << 30)
	if a != b {
		t.Error("same seed and purpose must give the same stream")
	}
	if a == c {
		t.Error("different purposes should give different streams")
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	o := Options{"rounds": 3, "round_minutes": 0.5, "layout": "ODD-R", "chain_spies": true}
	if n, _ := o.Int("rounds", 5); n != 3 {
		t.Error(n)
	}
	if n, _ := o.Int("missing", 5); n != 5 {
		t.Error(n)
	}
	if f, _ := o.Float("round_minutes", 8); f != 0.5 {
		t.Error(f)
	}
	if _, err := o.Int("round_minutes", 8); err == nil {
		t.Error("0.5 is not a whole number")
	}
	if s := o.String("layout", "odd-q"); s != "odd-r" {
		t.Error(s)
	}
	if s := o.String("chain_spies", "auto"); s != "on" {
		t.Error(s)
	}
	if err := o.Check("rounds", "round_minutes", "layout"); err == nil {
		t.Error("chain_spies is unknown here")
	}
}

func TestAuthor(t *testing.T) {
	t.Parallel()
	r, _ := NewRoster([]string{"Alice", "Bob"}, map[string][]string{"Alice": {"Ali"}})
	if id, ok := r.Author("alice"); !ok || id != "Alice" {
		t.Error("author by name")
	}
	if _, ok := r.Author("Ali"); ok {
		t.Error("an alias is not a forum account")
	}
	r.Replace("Bob", "Carol")
	if _, ok := r.Author("Bob"); ok {
		t.Error("a replaced account no longer speaks for the slot")
	}
	if id, ok := r.Author("Carol"); !ok || id != "Bob" {
		t.Error("the replacement speaks for the slot")
	}
}

func TestOptionNumbersAreFiniteAndBounded(t *testing.T) {
	cases := []struct {
		v      any
		intOK  bool
		spanOK bool // as hours, zero not allowed
	}{
		{3, true, true},
		{2.0, true, true},
		{0.5, false, true},
		{"12", true, true},
		{math.NaN(), false, false},
		{math.Inf(1), false, false},
		{math.Inf(-1), false, false},
		{"NaN", false, false},
		{"+Inf", false, false},
		{1e300, false, false},
		{float64(1 << 53), true, false},
		{float64(1 << 54), false, false},
		{0, true, false},
		{-2, true, false},
		{8784.0, true, true},
		{8784.5, false, false},
		{0.1 / 3600, false, true},
		{0.05 / 3600, false, false},
	}
	for _, c := range cases {
		o := Options{"x": c.v}
		if _, err := o.Int("x", 0); (err == nil) != c.intOK {
			t.Errorf("Int(%v): err %v, want ok=%v", c.v, err, c.intOK)
		}
		_, err := o.Span("x", 1, time.Hour, false)
		if (err == nil) != c.spanOK {
			t.Errorf("Span(%v): err %v, want ok=%v", c.v, err, c.spanOK)
		}
		if err != nil && !strings.Contains(err.Error(), "option x") {
			t.Errorf("Span(%v): the error does not name the option: %v", c.v, err)
		}
	}
	if f, err := (Options{"b": 0}).Span("b", 4, time.Minute, true); err != nil || f != 0 {
		t.Errorf("a zero break must be allowed where zeroOK: %v %v", f, err)
	}
	if _, err := (Options{"n": 101}).IntIn("n", 5, 1, 100); err == nil || !strings.Contains(err.Error(), "1 to 100") {
		t.Errorf("IntIn out of range: %v", err)
	}
}
