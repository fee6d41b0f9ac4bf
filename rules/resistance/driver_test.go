package resistance

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/forumgm/forumgm/rules"
)

// A small stand-in for `forumgm replay`, so the scenarios are checked here
// too: setup, then for each step split the text (post: bold runs outside
// quotes; PM: lines), Parse, Apply; after each step resolve if Due; a
// deadline step resolves at the deadline.

type scenarioFile struct {
	Game    string              `yaml:"game"`
	Seed    int64               `yaml:"seed"`
	Players []string            `yaml:"players"`
	Aliases map[string][]string `yaml:"aliases"`
	Options map[string]any      `yaml:"options"`
	Setup   map[string]any      `yaml:"setup"`
	Script  []struct {
		Post     string `yaml:"post"`
		PM       string `yaml:"pm"`
		Text     string `yaml:"text"`
		Deadline bool   `yaml:"deadline"`
	} `yaml:"script"`
}

type expectFile struct {
	Finished          *bool               `json:"finished"`
	Winners           []string            `json:"winners"`
	WinnerSide        *string             `json:"winner_side"`
	Missions          []string            `json:"missions"`
	Sabotages         []int               `json:"sabotages"`
	RejectedContains  []string            `json:"rejected_contains"`
	PublicContains    []string            `json:"public_contains"`
	PublicNotContains []string            `json:"public_not_contains"`
	PrivateContains   map[string][]string `json:"private_contains"`
}

var startTime = time.Date(2026, 1, 5, 18, 0, 0, 0, time.UTC)

// run is the outcome of replaying a script.
type run struct {
	State    *State
	Public   []string
	Private  map[string][]string
	Rejected []string
	Log      []string // every event and rejection in order, for the golden transcripts
}

func (r *run) add(evs []rules.Event) {
	for _, e := range evs {
		to := "thread"
		if e.To != rules.Everyone {
			to = "PM to " + e.To
		}
		r.Log = append(r.Log, fmt.Sprintf("== %s (%s)\n%s", to, e.Kind, e.Text))
		if e.To == rules.Everyone {
			r.Public = append(r.Public, e.Text)
		} else {
			r.Private[e.To] = append(r.Private[e.To], e.Text)
		}
	}
}

var (
	hiddenRe = regexp.MustCompile(`(?is)\[(quote|spoiler|code|s|strike)(=[^\]]*)?\].*?\[/(quote|spoiler|code|s|strike)\]`)
	boldRe   = regexp.MustCompile(`(?is)\[b\](.*?)\[/b\]`)
)

// segments splits a post into its bold runs outside quotes, spoilers, code
// and struck text, as the parser does.
func segments(post string) []string {
	for {
		s := hiddenRe.ReplaceAllString(post, "")
		if s == post {
			break
		}
		post = s
	}
	var out []string
	for _, m := range boldRe.FindAllStringSubmatch(post, -1) {
		out = append(out, m[1])
	}
	return out
}

// step applies one message; it returns the events.
func (r *run) message(g Game, who string, private bool, text string, now time.Time) {
	src := rules.Source{Player: who, Channel: rules.Public, Time: now}
	segs := segments(text)
	if private {
		src.Channel = rules.Private
		segs = strings.Split(text, "\n")
	}
	for _, seg := range segs {
		if strings.TrimSpace(seg) == "" {
			continue
		}
		p := g.Parse(r.State, seg, src)
		switch {
		case p.Cmd != nil:
			c := *p.Cmd
			c.Src = src
			ns, evs, err := g.Apply(r.State, c)
			r.add(evs)
			if err != nil {
				r.Rejected = append(r.Rejected, err.Error())
				r.Log = append(r.Log, fmt.Sprintf("== rejected from %s: %q\n%s", who, seg, err))
				continue
			}
			r.State = ns.(*State)
		case p.Reject != "":
			r.Rejected = append(r.Rejected, p.Reject)
			r.Log = append(r.Log, fmt.Sprintf("== rejected from %s: %q\n%s", who, seg, p.Reject))
		}
	}
	if g.Due(r.State, now) {
		ns, evs := g.Resolve(r.State, now)
		r.State = ns.(*State)
		r.add(evs)
	}
}

func replay(t *testing.T, sc scenarioFile) *run {
	t.Helper()
	g := Game{}
	cfg := rules.Config{Players: sc.Players, Aliases: sc.Aliases, Options: sc.Options, Setup: sc.Setup, Seed: sc.Seed, Start: startTime}
	st, evs, err := g.Setup(cfg)
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	r := &run{State: st.(*State), Private: map[string][]string{}}
	r.add(evs)
	for i, stp := range sc.Script {
		now := startTime.Add(time.Duration(i+1) * time.Second)
		switch {
		case stp.Deadline:
			ns, evs := g.Resolve(r.State, g.Status(r.State).Deadline)
			r.State = ns.(*State)
			r.add(evs)
		case stp.Post != "":
			r.message(g, stp.Post, false, stp.Text, now)
		case stp.PM != "":
			r.message(g, stp.PM, true, stp.Text, now)
		default:
			t.Fatalf("step %d: no post, pm or deadline", i)
		}
		// Round-trip the state as the store would.
		b, err := json.Marshal(r.State)
		if err != nil {
			t.Fatal(err)
		}
		ns, err := g.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		r.State = ns.(*State)
	}
	return r
}

func loadScenario(t *testing.T, path string) scenarioFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sc scenarioFile
	if err := yaml.Unmarshal(data, &sc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return sc
}

func sortedCopy(xs []string) []string {
	out := append([]string{}, xs...)
	sort.Strings(out)
	return out
}

// TestScenarios replays every scenario in testdata/scenarios/resistance and
// compares it with its hand-checked .expect.json.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("../../testdata/scenarios/resistance/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			sc := loadScenario(t, f)
			var exp expectFile
			data, err := os.ReadFile(strings.TrimSuffix(f, ".yaml") + ".expect.json")
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &exp); err != nil {
				t.Fatal(err)
			}
			r := replay(t, sc)
			checkExpect(t, r, exp)
			golden(t, filepath.Join("testdata", "golden", strings.TrimSuffix(filepath.Base(f), ".yaml")+".txt"), strings.Join(r.Log, "\n")+"\n")
		})
	}
}

func checkExpect(t *testing.T, r *run, exp expectFile) {
	t.Helper()
	g := Game{}
	st := g.Status(r.State)
	if exp.Finished != nil && st.Finished != *exp.Finished {
		t.Errorf("finished = %v, want %v", st.Finished, *exp.Finished)
	}
	if exp.Winners != nil && strings.Join(sortedCopy(st.Winners), ",") != strings.Join(sortedCopy(exp.Winners), ",") {
		t.Errorf("winners = %v, want %v", st.Winners, exp.Winners)
	}
	if exp.WinnerSide != nil && st.Extra["winner_side"] != *exp.WinnerSide {
		t.Errorf("winner_side = %v, want %v", st.Extra["winner_side"], *exp.WinnerSide)
	}
	if exp.Missions != nil {
		if got := st.Extra["missions"].([]string); strings.Join(got, ",") != strings.Join(exp.Missions, ",") {
			t.Errorf("missions = %v, want %v", got, exp.Missions)
		}
	}
	if exp.Sabotages != nil {
		got, _ := json.Marshal(st.Extra["sabotages"])
		want, _ := json.Marshal(exp.Sabotages)
		if string(got) != string(want) {
			t.Errorf("sabotages = %s, want %s", got, want)
		}
	}
	all := strings.Join(r.Rejected, "\n")
	for _, w := range exp.RejectedContains {
		if !strings.Contains(all, w) {
			t.Errorf("no rejection contains %q; rejections:\n%s", w, all)
		}
	}
	pub := strings.Join(r.Public, "\n")
	for _, w := range exp.PublicContains {
		if !strings.Contains(pub, w) {
			t.Errorf("public events lack %q", w)
		}
	}
	for _, w := range exp.PublicNotContains {
		if strings.Contains(pub, w) {
			t.Errorf("public events contain %q", w)
		}
	}
	for who, ws := range exp.PrivateContains {
		priv := strings.Join(r.Private[who], "\n")
		for _, w := range ws {
			if !strings.Contains(priv, w) {
				t.Errorf("PMs to %s lack %q; they are:\n%s", who, w, priv)
			}
			if !isReveal(w) {
				continue
			}
			// A secret that reaches who must reach nobody else.
			if strings.Contains(pub, w) {
				t.Errorf("the secret %q for %s is in the thread", w, who)
			}
			for other, texts := range r.Private {
				if other != who && strings.Contains(strings.Join(texts, "\n"), w) {
					t.Errorf("the secret %q for %s also reached %s", w, who, other)
				}
			}
		}
	}
	if t.Failed() {
		t.Logf("public:\n%s", pub)
		t.Logf("rejections:\n%s", all)
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

var update = flag.Bool("update", false, "rewrite the golden transcripts")

// golden compares the rendered transcript of a scenario (every post, PM and
// rejection, in order) with its golden file; -update rewrites it.
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
