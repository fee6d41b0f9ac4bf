package nations

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/forumgm/forumgm/replay"
	"github.com/forumgm/forumgm/scenario"
)

// Every scenario of testdata/scenarios/nations is checked against its
// .expect.json by the replay package's TestScenarios; here only the rendered
// texts are pinned.

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestGolden pins replay's transcript (opening, round reports, final
// scoreboard, private notes and receipts, rejections) of some scenarios,
// played through the real path: BBCode → phpBB HTML → parser → referee.
// Run with -update after a deliberate wording change and read the diff.
func TestGolden(t *testing.T) {
	for _, name := range []string{"thin_air", "guessed_right", "award_tie", "latest_order"} {
		t.Run(name, func(t *testing.T) {
			sc, err := scenario.Load(filepath.Join("..", "..", "testdata", "scenarios", "nations", name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			res, err := replay.Run(sc, replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := res.Text()
			path := filepath.Join("testdata", "golden", name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if string(want) != got {
				t.Errorf("%s differs from the golden file; got:\n%s", path, got)
			}
		})
	}
}
