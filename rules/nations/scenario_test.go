package nations

import (
	"encoding/json"
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

// A small stand-in for the lead's replay: it reads the scenario files in
// testdata/scenarios/nations and checks them against their .expect.json.

type scenario struct {
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

type expectation struct {
	Finished          *bool               `json:"finished"`
	Winners           []string            `json:"winners"`
	Scores            map[string]int      `json:"scores"`
	Out               []string            `json:"out"`
	RejectedContains  []string            `json:"rejected_contains"`
	PublicContains    []string            `json:"public_contains"`
	PublicNotContains []string            `json:"public_not_contains"`
	PrivateContains   map[string][]string `json:"private_contains"`
}

// replayed is what a replay produced.
type replayed struct {
	state    rules.State
	status   rules.Status
	public   []string
	private  map[string][]string
	rejected []string
}

var (
	quoteRE = regexp.MustCompile(`(?is)\[quote[^\]]*\].*?\[/quote\]`)
	boldRE  = regexp.MustCompile(`(?is)\[b\](.*?)\[/b\]`)
)

// segments splits a post into its bold runs outside quotes, or a PM into lines.
func segments(text string, private bool) []string {
	if private {
		return strings.Split(text, "\n")
	}
	for quoteRE.MatchString(text) {
		text = quoteRE.ReplaceAllString(text, "")
	}
	var out []string
	for _, m := range boldRE.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

var scenarioStart = time.Date(2026, 1, 10, 18, 0, 0, 0, time.UTC)

func replay(t *testing.T, sc scenario) replayed {
	t.Helper()
	g := Game{}
	st, evs, err := g.Setup(rules.Config{Players: sc.Players, Aliases: sc.Aliases,
		Options: sc.Options, Setup: sc.Setup, Seed: sc.Seed, Start: scenarioStart})
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	out := replayed{private: map[string][]string{}}
	collect := func(evs []rules.Event) {
		for _, e := range evs {
			if e.To == rules.Everyone {
				out.public = append(out.public, e.Text)
			} else {
				out.private[e.To] = append(out.private[e.To], e.Text)
			}
		}
	}
	collect(evs)
	for i, step := range sc.Script {
		now := scenarioStart.Add(time.Duration(i) * time.Second)
		if step.Deadline {
			st, evs = g.Resolve(st, g.Status(st).Deadline)
			collect(evs)
			continue
		}
		who, ch := step.Post, rules.Public
		if step.PM != "" {
			who, ch = step.PM, rules.Private
		}
		id, err := st.Roster().Match(who)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		for _, seg := range segments(step.Text, ch == rules.Private) {
			p := g.Parse(st, seg, rules.Source{Player: id, Channel: ch, Time: now})
			switch {
			case p.Reject != "":
				out.rejected = append(out.rejected, p.Reject)
			case p.Cmd != nil:
				var err error
				var ns rules.State
				ns, evs, err = g.Apply(st, *p.Cmd)
				if err != nil {
					out.rejected = append(out.rejected, err.Error())
				} else {
					st = ns
				}
				collect(evs)
			}
		}
	}
	out.state, out.status = st, g.Status(st)
	return out
}

func sameSet(a, b []string) bool {
	a, b = append([]string{}, a...), append([]string{}, b...)
	sort.Strings(a)
	sort.Strings(b)
	return strings.Join(a, "\x00") == strings.Join(b, "\x00")
}

func containsAny(texts []string, sub string) bool {
	for _, t := range texts {
		if strings.Contains(t, sub) {
			return true
		}
	}
	return false
}

func TestScenarios(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "scenarios", "nations")
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios in %s (%v)", dir, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			var sc scenario
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal(data, &sc); err != nil {
				t.Fatal(err)
			}
			if sc.Game != "nations" {
				t.Fatalf("game %q", sc.Game)
			}
			var want expectation
			data, err = os.ReadFile(strings.TrimSuffix(f, ".yaml") + ".expect.json")
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			got := replay(t, sc)
			st := got.status
			if want.Finished != nil && *want.Finished != st.Finished {
				t.Errorf("finished = %v, want %v", st.Finished, *want.Finished)
			}
			if want.Winners != nil && !sameSet(want.Winners, st.Winners) {
				t.Errorf("winners = %v, want %v", st.Winners, want.Winners)
			}
			if want.Out != nil && !sameSet(want.Out, st.Out) {
				t.Errorf("out = %v, want %v", st.Out, want.Out)
			}
			if want.Scores != nil {
				if len(want.Scores) != len(st.Scores) {
					t.Errorf("scores = %v, want %v", st.Scores, want.Scores)
				}
				for k, v := range want.Scores {
					if st.Scores[k] != v {
						t.Errorf("score %s = %d, want %d (all: %v)", k, st.Scores[k], v, st.Scores)
					}
				}
			}
			for _, r := range want.RejectedContains {
				if !containsAny(got.rejected, r) {
					t.Errorf("no rejection containing %q; rejections: %q", r, got.rejected)
				}
			}
			for _, p := range want.PublicContains {
				if !containsAny(got.public, p) {
					t.Errorf("no public text containing %q; public:\n%s", p, strings.Join(got.public, "\n----\n"))
				}
			}
			for _, p := range want.PublicNotContains {
				if containsAny(got.public, p) {
					t.Errorf("public text contains %q", p)
				}
			}
			for who, subs := range want.PrivateContains {
				for _, p := range subs {
					if !containsAny(got.private[who], p) {
						t.Errorf("no PM to %s containing %q; PMs: %q", who, p, got.private[who])
					}
				}
			}
			if testing.Verbose() {
				t.Logf("public:\n%s", strings.Join(got.public, "\n----\n"))
			}
		})
	}
}
