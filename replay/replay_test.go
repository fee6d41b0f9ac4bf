package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	_ "github.com/forumgm/forumgm/games"
	"github.com/forumgm/forumgm/scenario"
)

// TestScenarios replays every scenario under testdata/ that has an
// .expect.json beside it and checks the outcome. The expected values were
// worked out by hand from the rulings, not from this code.
func TestScenarios(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../testdata/scenarios/*/*.yaml")
	ex, _ := filepath.Glob("../testdata/examples/*.yaml")
	files = append(files, ex...)
	// The team's shared examples, where that folder sits beside the checkout
	// (as in CI); testdata/examples holds this repository's own copy.
	shared, _ := filepath.Glob("../../shared/examples/*.yaml")
	files = append(files, shared...)
	n := 0
	for _, f := range files {
		exp := strings.TrimSuffix(f, ".yaml") + ".expect.json"
		if _, err := os.Stat(exp); err != nil {
			continue
		}
		n++
		t.Run(strings.TrimPrefix(f, "../"), func(t *testing.T) { checkScenario(t, f, exp) })
	}
	if n < 3 {
		t.Fatalf("only %d scenarios with expectations found", n)
	}
}

func checkScenario(t *testing.T, file, expFile string) {
	sc, err := scenario.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(res.JSON())
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	json.Unmarshal(raw, &got)
	var want map[string]any
	b, err := os.ReadFile(expFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", expFile, err)
	}
	public := strings.Join(res.Public, "\n\n")
	for k, w := range want {
		switch k {
		case "finished", "scores", "winner_side", "missions", "sabotages":
			if !reflect.DeepEqual(got[k], w) {
				t.Errorf("%s = %v, want %v", k, got[k], w)
			}
		case "out", "winners", "revealed":
			if !sameSet(got[k], w) {
				t.Errorf("%s = %v, want (any order) %v", k, got[k], w)
			}
		case "revealed_as_a_set":
			if !sameSet(got["revealed"], w) {
				t.Errorf("revealed = %v, want (any order) %v", got["revealed"], w)
			}
		case "scans":
			gs, _ := got["scans"].(map[string]any)
			ws, _ := w.(map[string]any)
			if len(gs) != len(ws) {
				t.Errorf("scans for %d players, want %d: %v", len(gs), len(ws), gs)
			}
			for p, wl := range ws {
				if !sameSet(gs[p], wl) {
					t.Errorf("scans of %s = %v, want (any order) %v", p, gs[p], wl)
				}
			}
		case "rejected_contains":
			var all []string
			for _, r := range res.Rejected {
				all = append(all, r.Player+": "+r.Text+" — "+r.Reason)
			}
			for _, s := range strs(w) {
				if !strings.Contains(strings.Join(all, "\n"), s) {
					t.Errorf("no rejection contains %q; rejections:\n%s", s, strings.Join(all, "\n"))
				}
			}
		case "public_contains":
			for _, s := range strs(w) {
				if !strings.Contains(public, s) {
					t.Errorf("public posts do not contain %q", s)
				}
			}
		case "public_not_contains":
			for _, s := range strs(w) {
				if strings.Contains(public, s) {
					t.Errorf("public posts contain %q", s)
				}
			}
		case "private_contains", "private_not_contains":
			for p, subs := range w.(map[string]any) {
				pm := strings.Join(res.Private[p], "\n\n")
				for _, s := range strs(subs) {
					if has := strings.Contains(pm, s); has != (k == "private_contains") {
						t.Errorf("%s: PMs to %s and %q (have=%v)", k, p, s, has)
					}
				}
			}
		default:
			if !reflect.DeepEqual(got[k], w) {
				t.Errorf("%s = %v, want %v", k, got[k], w)
			}
		}
	}
	if t.Failed() {
		t.Logf("transcript:\n%s", res.Text())
	}
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// sameSet compares two JSON lists ignoring order (elements by their JSON).
func sameSet(a, b any) bool {
	key := func(v any) []string {
		l, _ := v.([]any)
		var ks []string
		for _, x := range l {
			j, _ := json.Marshal(x)
			ks = append(ks, string(j))
		}
		sort.Strings(ks)
		return ks
	}
	ka, kb := key(a), key(b)
	if len(ka) != len(kb) {
		return false
	}
	for i := range ka {
		if ka[i] != kb[i] {
			return false
		}
	}
	return true
}

func TestJSONHasTheKeys(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Load("../testdata/examples/nations-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	j := res.JSON()
	for _, k := range []string{"game", "finished", "winners", "scores", "out", "rejected", "public", "private"} {
		if _, ok := j[k]; !ok {
			t.Errorf("--json lacks %q", k)
		}
	}
}

func TestQuotedSpoileredStruckVotesAreNotRead(t *testing.T) {
	t.Parallel()
	got := PostSegments("[quote=Bob]I say [b]VOTE REJECT[/b][/quote] and [spoiler][b]REJECT[/b][/spoiler] [b][s]REJECT[/s] APPROVE[/b] [code][b]REJECT[/b][/code]")
	if len(got) != 1 || strings.TrimSpace(got[0]) != "APPROVE" {
		t.Errorf("segments = %q, want just APPROVE", got)
	}
	if l := PMLines("INVADE Bob\n\n  PROSPER  "); len(l) != 2 {
		t.Errorf("PM lines = %q", l)
	}
}

// TestProgress: a replay reports each step done, in order, ending at the
// script's length.
func TestProgress(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Load("../testdata/examples/nations-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	if _, err := Run(sc, Options{Progress: func(done, total int) {
		if total != len(sc.Script) {
			t.Fatalf("total %d, want %d", total, len(sc.Script))
		}
		got = append(got, done)
	}}); err != nil {
		t.Fatal(err)
	}
	for i, d := range got {
		if d != i+1 {
			t.Fatalf("progress %v: want 1, 2, … %d", got, len(sc.Script))
		}
	}
	if len(got) != len(sc.Script) {
		t.Errorf("%d progress calls for %d steps", len(got), len(sc.Script))
	}
}
