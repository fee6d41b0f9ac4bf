package resistance

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/replay"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/scenario"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts")

// TestScenarios plays every scenario of testdata/scenarios/resistance
// through replay (BBCode → phpBB HTML → parser → referee → this game). The
// replay package's TestScenarios compares each with its .expect.json; here
// are the checks of this game's own: every resolved state and the final one
// survive a JSON round trip through Decode, a secret revealed to one player
// (a card's reveal, a chain spy's name) reaches nobody else, and the
// transcript matches its golden file.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("../../testdata/scenarios/resistance/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios found: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			sc, err := scenario.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			res, err := replay.Run(sc, replay.Options{AfterResolve: func(s rules.State, n int) error {
				return roundTrips(s)
			}})
			if err != nil {
				t.Fatal(err)
			}
			if err := roundTrips(res.State); err != nil {
				t.Errorf("final state: %v", err)
			}
			var exp struct {
				PrivateContains map[string][]string `json:"private_contains"`
			}
			data, err := os.ReadFile(strings.TrimSuffix(f, ".yaml") + ".expect.json")
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &exp); err != nil {
				t.Fatal(err)
			}
			checkSecrets(t, res, exp.PrivateContains)
			golden(t, filepath.Join("testdata", "golden", name+".txt"), res.Text())
		})
	}
}

// roundTrips says whether s comes back the same from JSON through Decode, as
// it must between steps (the store keeps states as JSON).
func roundTrips(s rules.State) error {
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("state does not marshal: %v", err)
	}
	d, err := Game{}.Decode(b)
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

// checkSecrets checks that each expected PM text that is a secret for one
// player alone reached that player, and neither the thread nor anyone else.
func checkSecrets(t *testing.T, res *replay.Result, private map[string][]string) {
	t.Helper()
	pub := strings.Join(res.Public, "\n")
	for who, ws := range private {
		for _, w := range ws {
			if !isReveal(w) {
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

// isReveal says whether an expected PM text is a secret meant for one player
// alone: a card's reveal or a chain spy's one name.
func isReveal(w string) bool {
	for _, p := range []string{Overheard + ":", OpenUp + ":", Confidence + ":", CloseEye + ": on", "The spy you know:"} {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// golden compares replay's transcript of a scenario (every post and PM, in
// order, then the outcome and the rejections) with its golden file; -update
// rewrites it.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
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
