package games

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/forumgm/forumgm/replay/gametest"
	"github.com/forumgm/forumgm/rules"
)

// played is every game played by its simulated players to its end (or 60
// phases), once for all the view tests.
func playedGames(t *testing.T) map[string]*gametest.Played {
	t.Helper()
	out := map[string]*gametest.Played{}
	for _, name := range rules.Names() {
		g, _ := rules.Lookup(name)
		cfg := demoConfig(t, g)
		seed := int64(11)
		if name == "resistance" {
			// Seven players, so plot cards are dealt; seed 18 plays five
			// missions with three rejected proposals and cards played.
			cfg.Players = []string{"Ann", "Ben", "Cat", "Dan", "Eli", "Fay", "Zoë"}
			cfg.Seed, seed = 18, 18
		}
		p := gametest.Play(t, g, cfg, seed, 60)
		out[name] = p
	}
	return out
}

// points are where the views are drawn: the start, a few steps into the
// first phase, after each of the first resolutions and halfway to the
// next, and the end.
func points(p *gametest.Played) []int {
	pts := []int{0}
	if len(p.History) > 2 {
		pts = append(pts, 2)
	}
	res := p.Resolutions()
	for i, n := range res {
		if i >= 8 {
			break
		}
		pts = append(pts, n)
		if i+1 < len(res) && res[i+1]-n > 1 {
			pts = append(pts, n+(res[i+1]-n)/2)
		}
	}
	return append(pts, len(p.History))
}

func viewing(p *gametest.Played, n int, gm bool) rules.Viewing {
	at := time.Time{} // the start: nothing is published yet
	if n > 0 {
		at = p.History[n-1].At
	}
	return rules.Viewing{GM: gm, Now: at, History: p.History[:n]}
}

// TestViewsReadable draws every game's views, everyone's and the GM's, at
// several points of a game played to its end: no field name and no Go
// value syntax in anything a person reads, no GM section in everyone's
// view, and every section with a title.
func TestViewsReadable(t *testing.T) {
	for name, p := range playedGames(t) {
		pr, ok := p.Game.(rules.Presenter)
		if !ok {
			t.Errorf("%s draws no views of its own (rules.Presenter)", name)
			continue
		}
		if !p.Game.Status(p.State(len(p.History))).Finished {
			t.Errorf("%s did not finish in the simulated play (%d steps)", name, len(p.History))
		}
		for _, n := range points(p) {
			for _, gm := range []bool{false, true} {
				what := fmt.Sprintf("%s at step %d of %d (GM %v)", name, n, len(p.History), gm)
				secs := pr.Present(p.State(n), viewing(p, n, gm))
				if len(secs) == 0 {
					t.Errorf("%s: no sections", what)
				}
				gmSecs := 0
				for _, s := range secs {
					if s.Title == "" {
						t.Errorf("%s: a section without a title", what)
					}
					if s.GM {
						gmSecs++
						if !gm {
							t.Errorf("%s: everyone's view has the GM section %q", what, s.Title)
						}
					}
					for _, pic := range s.Pictures {
						if pic.Alt == "" || pic.Format != "svg" || len(pic.Data) == 0 {
							t.Errorf("%s: section %q has a picture without alt text or SVG", what, s.Title)
						}
						if pic.GM && !gm {
							t.Errorf("%s: everyone's view has a GM picture", what)
						}
					}
				}
				if gm && gmSecs == 0 {
					t.Errorf("%s: the GM's view adds nothing", what)
				}
				texts, _ := gametest.ViewTexts(secs)
				for _, s := range texts {
					if raw := gametest.Raw(s); raw != "" {
						t.Errorf("%s: %q reads %q", what, s, raw)
					}
				}
			}
		}
	}
}

// TestRawCatches: the check above finds what the desk showed before the
// games drew their own views.
func TestRawCatches(t *testing.T) {
	for _, s := range []string{"fails_at 1", "winner_side spies", "map[Pia:[{1 B 3} {1 E 1}]]", "2026-03-02T18:00:00Z", `{"vp":3}`, "<nil>"} {
		if gametest.Raw(s) == "" {
			t.Errorf("%q passes as readable", s)
		}
	}
	for _, s := range []string{"Mission 2, proposal 1", "approved: mission failed, 2 sabotages", "Ann (Fire Nation)", "Mon 2 Mar 18:00 CET"} {
		if r := gametest.Raw(s); r != "" {
			t.Errorf("%q is taken for raw (%q)", s, r)
		}
	}
}

// TestPublicViewsKeepSecrets: everyone's view does not change when the
// secrets do. Each game's twin changes what players may not see in every
// state of the history (roles and hands, hidden sites and scan counts,
// orders not yet resolved and reports not yet out) and everyone's view
// must come out the same, at every point.
func TestPublicViewsKeepSecrets(t *testing.T) {
	twins := map[string]func(st map[string]any, final bool){
		"resistance": func(st map[string]any, final bool) {
			if st["finished"] == true {
				return // the roles are revealed at the end
			}
			roles := st["roles"].(map[string]any)
			var spy, res string
			for id, r := range roles {
				if r == "spy" && spy == "" {
					spy = id
				} else if r != "spy" && res == "" {
					res = id
				}
			}
			roles[spy], roles[res] = roles[res], roles[spy]
			st["known"] = map[string]any{}
			st["hands"] = map[string]any{}
			st["deck"] = []any{}
			if final {
				for _, v := range mapOf(st["votes"]) {
					v := v.(map[string]any)
					v["approve"] = v["approve"] != true
					v["pm"] = true
				}
				for id, o := range mapOf(st["orders"]) {
					if o == "support" {
						mapOf(st["orders"])[id] = "sabotage"
					} else {
						mapOf(st["orders"])[id] = "support"
					}
				}
			}
		},
		"protest": func(st map[string]any, final bool) {
			revealed := map[string]bool{}
			for _, r := range listOf(st["revealed"]) {
				revealed[r.(map[string]any)["hex"].(string)] = true
			}
			sites := listOf(st["sites"])
			taken := map[string]bool{}
			for _, x := range sites {
				taken[x.(string)] = true
			}
			// Every hidden site moves to a hex that is none.
			m := mapOf(st["map"])
			var free []string
			for c := 0; c < int(m["columns"].(float64)) && c < 26; c++ {
				for r := 1; r <= int(m["rows"].(float64)); r++ {
					if h := fmt.Sprintf("%c%d", 'A'+c, r); !taken[h] {
						free = append(free, h)
					}
				}
			}
			for i, x := range sites {
				if !revealed[x.(string)] && len(free) > 0 {
					sites[i], free = free[0], free[1:]
				}
			}
			for _, pl := range mapOf(st["players"]) {
				pl := pl.(map[string]any)
				for _, r := range listOf(pl["results"]) {
					r.(map[string]any)["count"] = 99.0
				}
				if final {
					delete(pl, "scans")
					delete(pl, "protest")
				}
			}
			for _, l := range listOf(st["history"]) {
				for _, pr := range listOf(l.(map[string]any)["protests"]) {
					if pr := pr.(map[string]any); pr["outcome"] == "silent" {
						pr["hex"] = "A1"
					}
				}
			}
		},
		"nations": func(st map[string]any, final bool) {
			if final {
				for id := range mapOf(st["orders"]) {
					mapOf(st["orders"])[id] = map[string]any{"kind": "prosper"}
				}
				st["next"] = map[string]any{}
			}
		},
	}
	for name, p := range playedGames(t) {
		pr := p.Game.(rules.Presenter)
		twin, ok := twins[name]
		if !ok {
			t.Errorf("%s: no secret twin in this test", name)
			continue
		}
		changed := func(s rules.State, final bool, now time.Time) rules.State {
			b, _ := json.Marshal(s)
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			twin(m, final)
			if name == "nations" {
				// A round report not out yet is a secret too.
				for _, r := range listOf(m["history"]) {
					r := r.(map[string]any)
					pub, _ := time.Parse(time.RFC3339Nano, r["published"].(string))
					if pub.After(now) {
						for id, v := range mapOf(r["after"]) {
							mapOf(r["after"])[id] = v.(float64) + 7
						}
						if m["finished"] != true {
							for id, v := range mapOf(m["vp"]) {
								mapOf(m["vp"])[id] = v.(float64) + 7
							}
						}
					}
				}
			}
			b, _ = json.Marshal(m)
			ns, err := p.Game.Decode(b)
			if err != nil {
				t.Fatalf("%s twin: %v", name, err)
			}
			return ns
		}
		for _, n := range points(p) {
			v := viewing(p, n, false)
			want, _ := json.Marshal(pr.Present(p.State(n), v))
			var hist []rules.Moment
			for _, m := range p.History[:n] {
				hist = append(hist, rules.Moment{Before: changed(m.Before, false, v.Now), After: changed(m.After, false, v.Now), Command: m.Command, Ended: m.Ended, At: m.At})
			}
			v.History = hist
			got, _ := json.Marshal(pr.Present(changed(p.State(n), true, v.Now), v))
			if string(got) != string(want) {
				t.Errorf("%s at step %d: everyone's view changes with the secrets:\n%s\n%s", name, n, firstDiff(string(want), string(got)), firstDiff(string(got), string(want)))
			}
		}
	}
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

func firstDiff(a, b string) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			lo := max(0, i-80)
			return a[lo:min(len(a), i+120)]
		}
	}
	return "(one is a prefix of the other)"
}
