package protest

import (
	"encoding/json"
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

// scenario is the replay file format (the subset this game uses).
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

// run is what a driven scenario produced.
type run struct {
	state    *State
	rejected []string
	public   []string
	private  map[string][]string
}

var (
	quoteRE = regexp.MustCompile(`(?is)\[(quote|spoiler|code|s)(=[^\]]*)?\].*?\[/(quote|spoiler|code|s)\]`)
	boldRE  = regexp.MustCompile(`(?is)\[b\](.*?)\[/b\]`)
)

func segments(text string, public bool) []string {
	if !public {
		return strings.Split(text, "\n")
	}
	var out []string
	for _, m := range boldRE.FindAllStringSubmatch(quoteRE.ReplaceAllString(text, ""), -1) {
		out = append(out, m[1])
	}
	return out
}

var start = time.Date(2026, 1, 5, 18, 0, 0, 0, time.UTC)

// drive plays a scenario the way replay does: Parse → Apply per segment,
// deadline → Resolve at the status deadline.
func drive(t *testing.T, sc scenario) run {
	t.Helper()
	g := Game{}
	s0, evs, err := g.Setup(rules.Config{Players: sc.Players, Aliases: sc.Aliases, Options: sc.Options,
		Setup: sc.Setup, Seed: sc.Seed, Start: start})
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	r := run{state: s0.(*State), private: map[string][]string{}}
	record := func(evs []rules.Event) {
		for _, e := range evs {
			if e.To == rules.Everyone {
				r.public = append(r.public, e.Text)
			} else {
				r.private[e.To] = append(r.private[e.To], e.Text)
			}
		}
	}
	record(evs)
	var s rules.State = r.state
	for i, step := range sc.Script {
		now := start.Add(time.Duration(i+1) * time.Second)
		if step.Deadline {
			s, evs = g.Resolve(s, g.Status(s).Deadline)
			record(evs)
			continue
		}
		who, ch := step.Post, rules.Public
		if step.PM != "" {
			who, ch = step.PM, rules.Private
		}
		src := rules.Source{Player: who, Channel: ch, Time: now}
		for _, seg := range segments(step.Text, ch == rules.Public) {
			if strings.TrimSpace(seg) == "" || g.Status(s).Finished {
				continue
			}
			p := g.Parse(s, seg, src)
			switch {
			case p.Reject != "":
				r.rejected = append(r.rejected, p.Reject)
			case p.Cmd != nil:
				var err error
				s, evs, err = g.Apply(s, *p.Cmd)
				record(evs)
				if err != nil {
					r.rejected = append(r.rejected, err.Error())
				}
			}
		}
	}
	r.state = s.(*State)
	return r
}

type expectation struct {
	Finished          *bool                   `json:"finished"`
	Winners           []string                `json:"winners"`
	Scores            map[string]int          `json:"scores"`
	Out               []string                `json:"out"`
	Revealed          []string                `json:"revealed"`
	RevealedSet       []string                `json:"revealed_as_a_set"`
	Scans             map[string][]ScanReport `json:"scans"`
	RejectedContains  []string                `json:"rejected_contains"`
	PublicContains    []string                `json:"public_contains"`
	PublicNotContains []string                `json:"public_not_contains"`
	PrivateContains   map[string][]string     `json:"private_contains"`
}

func sortedCopy(xs []string) []string {
	out := append([]string{}, xs...)
	sort.Strings(out)
	return out
}

func sameSet(a, b []string) bool {
	return fmt.Sprint(sortedCopy(a)) == fmt.Sprint(sortedCopy(b))
}

func scanKeys(xs []ScanReport) []string {
	var out []string
	for _, x := range xs {
		out = append(out, fmt.Sprintf("%d/%s/%d", x.Turn, x.Label, x.Count))
	}
	return out
}

func check(t *testing.T, r run, ex expectation) {
	t.Helper()
	st := Game{}.Status(r.state)
	if ex.Finished != nil && st.Finished != *ex.Finished {
		t.Errorf("finished = %v, want %v", st.Finished, *ex.Finished)
	}
	if ex.Winners != nil && !sameSet(st.Winners, ex.Winners) {
		t.Errorf("winners = %v, want %v", st.Winners, ex.Winners)
	}
	if ex.Scores != nil && fmt.Sprint(st.Scores) != fmt.Sprint(ex.Scores) {
		t.Errorf("scores = %v, want %v", st.Scores, ex.Scores)
	}
	if ex.Out != nil && !sameSet(st.Out, ex.Out) {
		t.Errorf("out = %v, want %v", st.Out, ex.Out)
	}
	revealed := st.Extra["revealed"].([]string)
	if ex.Revealed != nil && fmt.Sprint(revealed) != fmt.Sprint(ex.Revealed) {
		t.Errorf("revealed = %v, want %v", revealed, ex.Revealed)
	}
	if ex.RevealedSet != nil && !sameSet(revealed, ex.RevealedSet) {
		t.Errorf("revealed = %v, want the set %v", revealed, ex.RevealedSet)
	}
	if ex.Scans != nil {
		got := st.Extra["scans"].(map[string][]ScanReport)
		for _, id := range r.state.Players.IDs() {
			if !sameSet(scanKeys(got[id]), scanKeys(ex.Scans[id])) {
				t.Errorf("scans of %s = %v, want %v", id, scanKeys(got[id]), scanKeys(ex.Scans[id]))
			}
		}
	}
	allRejected := strings.Join(r.rejected, "\n")
	for _, want := range ex.RejectedContains {
		if !strings.Contains(allRejected, want) {
			t.Errorf("no rejection contains %q; rejections:\n%s", want, allRejected)
		}
	}
	allPublic := strings.Join(r.public, "\n")
	for _, want := range ex.PublicContains {
		if !strings.Contains(allPublic, want) {
			t.Errorf("public posts lack %q", want)
		}
	}
	for _, bad := range ex.PublicNotContains {
		if strings.Contains(allPublic, bad) {
			t.Errorf("public posts contain %q", bad)
		}
	}
	for who, wants := range ex.PrivateContains {
		all := strings.Join(r.private[who], "\n")
		for _, want := range wants {
			if !strings.Contains(all, want) {
				t.Errorf("PMs to %s lack %q; they are:\n%s", who, want, all)
			}
		}
	}
}

func loadScenario(t *testing.T, path string) (scenario, expectation) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sc scenario
	if err := yaml.Unmarshal(data, &sc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if sc.Game != "protest" {
		t.Fatalf("%s: game %q", path, sc.Game)
	}
	exData, err := os.ReadFile(strings.TrimSuffix(path, filepath.Ext(path)) + ".expect.json")
	if err != nil {
		t.Fatal(err)
	}
	var ex expectation
	if err := json.Unmarshal(exData, &ex); err != nil {
		t.Fatalf("%s expect: %v", path, err)
	}
	return sc, ex
}

// TestScenarios plays every scenario of testdata/scenarios/protest and checks
// its hand-worked expectation.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("../../testdata/scenarios/protest/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no protest scenarios found")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			sc, ex := loadScenario(t, f)
			r := drive(t, sc)
			check(t, r, ex)
		})
	}
}
