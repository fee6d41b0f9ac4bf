package nations

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/rules"
)

var update = flag.Bool("update", false, "rewrite the golden files: the counts in testdata/count, testdata/chart-pictures.txt")

// TestCountGolden: the count of round 1 (orders and civilisations) and of
// round 2 (orders only, one nation out of reminders once it has ordered),
// and what each nation is reminded of, against golden files; and a count
// is the same whatever the orders are.
func TestCountGolden(t *testing.T) {
	players := []string{"Alice", "Bob", "Carol"}
	s := newGame(t, players, rules.Options{"rounds": 3})
	s = mustSend(t, s, "Alice", rules.Public, "CIV: Fire")
	s = mustSend(t, s, "Alice", rules.Private, "INVADE Bob")
	s = mustSend(t, s, "Carol", rules.Private, "PROSPER")
	round1 := countAndOwed(s)
	checkSameWithOtherOrders(t, s)
	s, _ = resolve(s)
	s = mustSend(t, s, "Bob", rules.Private, "DEFEND GUESS Alice")
	round2 := countAndOwed(s)
	checkSameWithOtherOrders(t, s)
	golden(t, "rounds", round1+"\n\n"+round2)
}

func countAndOwed(s *State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n%s\n\nReminders:\n", Game{}.Status(s).Title, Game{}.Count(s, rules.CountInput{}))
	for _, id := range s.Seats.IDs() {
		for _, l := range (Game{}).Owed(s, id) {
			fmt.Fprintf(&b, "%s: %s\n", id, l)
		}
	}
	return b.String()
}

func checkSameWithOtherOrders(t *testing.T, s *State) {
	t.Helper()
	other := s.clone()
	for id := range other.Orders {
		other.Orders[id] = Order{Kind: KindProsper}
	}
	if a, b := (Game{}).Count(s, rules.CountInput{}), (Game{}).Count(other, rules.CountInput{}); a != b {
		t.Errorf("the count tells the orders:\n%s\n--- with other orders:\n%s", a, b)
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "count", name+".golden")
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
