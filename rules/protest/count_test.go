package protest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/rules"
)

var update = flag.Bool("update", false, "rewrite the golden counts in testdata/count")

// TestCountGolden: the count of a turn (who has sent orders by PM) and what
// each organisation is reminded of, against a golden file; the count is
// the same whatever the orders are.
func TestCountGolden(t *testing.T) {
	s := newGame(t, 4, 5, 4, "odd-q", "A1", "C2", "E4")
	s = pm(t, s, "Alice", "A 1 B2", "PROTEST C2")
	s = pm(t, s, "Carol", "PROTEST E4")
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n%s\n\nReminders:\n", g.Status(s).Title, g.Count(s, rules.CountInput{}))
	for _, id := range s.Seats.IDs() {
		for _, l := range g.Owed(s, id) {
			fmt.Fprintf(&b, "%s: %s\n", id, l)
		}
	}
	other := g.clone(s)
	other.Players["Alice"].Protest, other.Players["Carol"].Protest = "A1", "B2"
	if a, b := g.Count(s, rules.CountInput{}), g.Count(other, rules.CountInput{}); a != b {
		t.Errorf("the count tells the orders:\n%s\n--- with other orders:\n%s", a, b)
	}
	path := filepath.Join("testdata", "count", "turn.golden")
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(want) != b.String() {
		t.Errorf("%s:\n--- got\n%s\n--- want\n%s", path, b.String(), want)
	}
}
