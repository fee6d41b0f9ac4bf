package replay

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/resistance"
	"github.com/forumgm/forumgm/scenario"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/golden")

// TestTranscripts plays every game's scenarios (../testdata/scenarios/GAME)
// through Run, the real path: BBCode → phpBB HTML → parser → referee → the
// game. TestScenarios checks each outcome against its .expect.json; here
// every resolved state and the final one must survive a JSON round trip
// through the game's Decode (the store keeps states as JSON), a secret meant
// for one player must reach nobody else, and the transcript (every post and
// PM in order, the outcome, the rejections) must match
// testdata/golden/GAME/NAME.txt. Run with -update after a deliberate
// wording change and read the diff.
func TestTranscripts(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "scenarios", "*", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios found: %v", err)
	}
	for _, f := range files {
		game := filepath.Base(filepath.Dir(f))
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(game+"/"+name, func(t *testing.T) {
			t.Parallel()
			sc, err := scenario.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			g, err := rules.Lookup(sc.Game)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(sc, Options{AfterResolve: func(s rules.State, n int) error {
				if err := roundTrips(g, s); err != nil {
					return fmt.Errorf("after resolution %d: %v", n, err)
				}
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			if err := roundTrips(g, res.State); err != nil {
				t.Errorf("final state: %v", err)
			}
			checkSecrets(t, res, expectedPMs(t, f), secretPrefixes[sc.Game])
			golden(t, filepath.Join("testdata", "golden", game, name+".txt"), res.Text())
		})
	}
}

// roundTrips says whether s comes back the same from JSON through g's
// Decode, as it must between steps.
func roundTrips(g rules.Game, s rules.State) error {
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("state does not marshal: %v", err)
	}
	d, err := g.Decode(b)
	if err != nil {
		return fmt.Errorf("state does not decode: %v\n%s", err, b)
	}
	b2, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("decoded state does not marshal: %v", err)
	}
	var v1, v2 any
	if json.Unmarshal(b, &v1) != nil || json.Unmarshal(b2, &v2) != nil || !reflect.DeepEqual(v1, v2) {
		return fmt.Errorf("state changes in a JSON round trip:\n%s\n%s", b, b2)
	}
	return nil
}

// secretPrefixes says, per game, which expected PM texts are secrets meant
// for one player alone: Resistance's card reveals and a chain spy's name.
var secretPrefixes = map[string][]string{
	"resistance": {resistance.Overheard + ":", resistance.OpenUp + ":", resistance.Confidence + ":",
		resistance.CloseEye + ": on", "The spy you know:"},
}

// expectedPMs reads private_contains from the scenario's .expect.json.
func expectedPMs(t *testing.T, scenarioFile string) map[string][]string {
	t.Helper()
	var exp struct {
		PrivateContains map[string][]string `json:"private_contains"`
	}
	data, err := os.ReadFile(strings.TrimSuffix(scenarioFile, ".yaml") + ".expect.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatal(err)
	}
	return exp.PrivateContains
}

// checkSecrets checks that each expected PM text that starts with one of
// the secret prefixes reached its player, and neither the thread nor anyone
// else.
func checkSecrets(t *testing.T, res *Result, private map[string][]string, prefixes []string) {
	t.Helper()
	pub := strings.Join(res.Public, "\n")
	for who, ws := range private {
		for _, w := range ws {
			if !hasAnyPrefix(w, prefixes) {
				continue
			}
			if !strings.Contains(strings.Join(res.Private[who], "\n"), w) {
				t.Errorf("PMs to %s lack the secret %q", who, w)
			}
			if strings.Contains(pub, w) {
				t.Errorf("the secret %q for %s is in the thread", w, who)
			}
			for other, texts := range res.Private {
				if other != who && strings.Contains(strings.Join(texts, "\n"), w) {
					t.Errorf("the secret %q for %s also reached %s", w, who, other)
				}
			}
		}
	}
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// golden compares a transcript with its golden file; -update rewrites it.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./replay -run TestTranscripts -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("transcript differs from %s (run with -update after checking the change):\n%s", path, firstDiff(string(want), got))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, x, y)
		}
	}
	return ""
}
