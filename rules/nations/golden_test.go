package nations

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestGolden pins the rendered texts (opening, round reports, final
// scoreboard, private notes) of some scenarios. Run with -update after a
// deliberate wording change and read the diff.
func TestGolden(t *testing.T) {
	for _, name := range []string{"thin_air", "guessed_right", "award_tie", "latest_order"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "scenarios", "nations", name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var sc scenario
			if err := yaml.Unmarshal(data, &sc); err != nil {
				t.Fatal(err)
			}
			got := replay(t, sc)
			var b strings.Builder
			for _, p := range got.public {
				fmt.Fprintf(&b, "=== public\n%s\n", p)
			}
			var who []string
			for w := range got.private {
				who = append(who, w)
			}
			sort.Strings(who)
			for _, w := range who {
				for _, p := range got.private[w] {
					fmt.Fprintf(&b, "=== to %s\n%s\n", w, p)
				}
			}
			for _, r := range got.rejected {
				fmt.Fprintf(&b, "=== rejected\n%s\n", r)
			}
			path := filepath.Join("testdata", "golden", name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if string(want) != b.String() {
				t.Errorf("%s differs from the golden file; got:\n%s", path, b.String())
			}
		})
	}
}
