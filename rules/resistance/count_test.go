package resistance

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/replay"
	"github.com/forumgm/forumgm/rules"
)

var update = flag.Bool("update", false, "rewrite the golden counts in testdata/count")

// counted is a game driven through the engine that keeps, as the moderator
// does, the commands accepted from the thread in the current phase (each
// with its post id), so a count can be made at any point.
type counted struct {
	t      *testing.T
	s      *State
	thread []rules.Command
	phase  string
	post   int
}

func newCounted(t *testing.T, cfg rules.Config) *counted {
	st, _, err := Game{}.Setup(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := &counted{t: t, s: st.(*State), post: 100}
	c.phase = Game{}.Status(c.s).Phase
	return c
}

// send applies a post (private false) or a PM from who.
func (c *counted) send(who string, private bool, text string) {
	g := Game{}
	c.post++
	src := rules.Source{Player: who, Channel: rules.Public, Time: startTime, Ref: fmt.Sprint(c.post)}
	segs := replay.PostSegments(text)
	if private {
		src.Channel = rules.Private
		segs = replay.PMLines(text)
	}
	for _, seg := range segs {
		p := g.Parse(c.s, seg, src)
		if p.Cmd == nil {
			continue
		}
		cmd := *p.Cmd
		cmd.Src = src
		ns, _, err := g.Apply(c.s, cmd)
		if err != nil {
			continue
		}
		c.s = ns.(*State)
		if !private {
			c.thread = append(c.thread, cmd)
		}
	}
	if g.Due(c.s, startTime) {
		ns, _ := g.Resolve(c.s, startTime)
		c.s = ns.(*State)
	}
	if ph := g.Status(c.s).Phase; ph != c.phase {
		c.phase, c.thread = ph, nil
	}
}

func (c *counted) post_(who, text string) { c.send(who, false, text) }
func (c *counted) pm(who, text string)    { c.send(who, true, text) }

// link is the post link the counts carry, as the board's would be.
func link(ref string) string { return "https://board.example/viewtopic.php?p=" + ref + "#p" + ref }

func (c *counted) count() string {
	return Game{}.Count(c.s, rules.CountInput{Thread: c.thread, Link: link})
}

// owed is every player's reminder lines.
func (c *counted) owed() string {
	var b strings.Builder
	for _, id := range c.s.Seats.IDs() {
		for _, l := range (Game{}).Owed(c.s, id) {
			fmt.Fprintf(&b, "%s: %s\n", id, l)
		}
	}
	return b.String()
}

// golden compares got with testdata/count/name.golden (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "count", name+".golden")
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
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestCountGolden: the counts of a proposal as it goes, and what each
// player is reminded of at each point, against golden files.
func TestCountGolden(t *testing.T) {
	cases := []struct {
		name  string
		cfg   rules.Config
		moves func(c *counted)
	}{
		{"no-team-yet", fixture(five, nil, nil), func(*counted) {}},
		{"cards-to-give", fixture(seven, FullDeck, nil), func(*counted) {}},
		{"votes-thread-and-pm", fixture(five, nil, nil), func(c *counted) {
			c.post_("Ann", "[b]TEAM: Ann, Ben[/b]")
			c.post_("Ann", "[b]APPROVE[/b]")
			c.post_("Ben", "I say [b]REJECT[/b] for now")
			c.post_("Ben", "[b]APPROVE[/b] after all") // replaces his first
			c.pm("Cat", "REJECT")                      // by PM only
			c.post_("Dan", "[b]PLAY Double Vote[/b]\n[b]REJECT[/b]")
			c.pm("Dan", "APPROVE") // overrides his thread vote; nobody else may know
			c.post_("Eli", "[quote=Ann][b]APPROVE[/b][/quote] not mine")
		}},
		{"one-pm-vote-missing-rejects", fixture(five, nil, rules.Options{"missing_vote": "reject"}), func(c *counted) {
			c.post_("Ann", "[b]TEAM: Cat, Dan[/b]")
			c.pm("Eli", "APPROVE")
			c.post_("Cat", "[b]APPROVE[/b]")
		}},
		{"team-orders-owed", fixture(seven, FullDeck, nil), func(c *counted) {
			c.post_("Ann", "[b]GIVE Strong Leader TO Cat[/b]\n[b]GIVE "+c.s.Dealt[1]+" TO Dan[/b]")
			c.post_("Ann", "[b]TEAM: Ann, Ben[/b]")
			c.pm("Ben", "SABOTAGE")
			c.post_("Fay", "[b]REJECT[/b]")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCounted(t, tc.cfg)
			tc.moves(c)
			golden(t, tc.name, fmt.Sprintf("%s\n\n%s\n\nReminders:\n%s", Game{}.Status(c.s).Title, c.count(), c.owed()))
		})
	}
}

// TestCountKeepsSecrets: a count is the same whatever the secrets are —
// which way each PM vote went, the mission orders, the roles, the hands
// played by PM — through whole games played by the simulated players; and
// a reminder of a mission order is the same for a spy and a resistance
// member.
func TestCountKeepsSecrets(t *testing.T) {
	g := Game{}
	for seed := int64(1); seed <= 12; seed++ {
		players := seven
		if seed%2 == 0 {
			players = five
		}
		cfg := rules.Config{Players: players, Seed: seed, Start: startTime, Options: rules.Options{"phase_hours": 1}}
		c := newCounted(t, cfg)
		r := rules.NewRand(seed, "count-test")
		for step := 0; step < 400 && !c.s.Finished; step++ {
			for _, p := range c.s.Seats.IDs() {
				for _, mv := range g.Bot(c.s, p, r) {
					c.send(p, mv.Private, mv.Text)
				}
				if c.s.Finished {
					break
				}
				want := c.count()
				other := rules.Clone(g, c.s)
				for id, v := range other.Votes {
					if v.PM {
						other.Votes[id] = Vote{Approve: !v.Approve, PM: true}
					}
				}
				for id, o := range other.Orders {
					other.Orders[id] = map[string]string{"support": "sabotage", "sabotage": "support"}[o]
				}
				for id, role := range other.Roles {
					other.Roles[id] = map[string]string{Spy: Resistance, Resistance: Spy}[role]
				}
				if got := g.Count(other, rules.CountInput{Thread: c.thread, Link: link}); got != want {
					t.Fatalf("seed %d: the count changes with the secrets:\n%s\n--- with them changed:\n%s", seed, want, got)
				}
				for _, id := range other.Seats.IDs() {
					a, b := strings.Join(g.Owed(c.s, id), "\n"), strings.Join(g.Owed(other, id), "\n")
					if a != b {
						t.Fatalf("seed %d: %s's reminder changes with the roles:\n%s\n--- with them changed:\n%s", seed, id, a, b)
					}
				}
			}
			if g.Due(c.s, c.s.Deadline) {
				ns, _ := g.Resolve(c.s, c.s.Deadline.Add(time.Second))
				c.s = ns.(*State)
				c.phase, c.thread = g.Status(c.s).Phase, nil
			}
		}
	}
}

// TestPublicReasons: the vote log hides the two refusals that tell what
// only the player knows, and shows the others.
func TestPublicReasons(t *testing.T) {
	c := newCounted(t, fixture(seven, FullDeck, nil))
	g := Game{}
	var reasons []string
	try := func(who, text string) {
		p := g.Parse(c.s, text, rules.Source{Player: who, Channel: rules.Public})
		if p.Cmd == nil {
			reasons = append(reasons, p.Reject)
			return
		}
		cmd := *p.Cmd
		cmd.Src = rules.Source{Player: who, Channel: rules.Public}
		if _, _, err := g.Apply(c.s, cmd); err != nil {
			reasons = append(reasons, err.Error())
		}
	}
	c.post_("Ann", "[b]GIVE Strong Leader TO Cat[/b]\n[b]GIVE "+c.s.Dealt[1]+" TO Dan[/b]")
	c.post_("Ann", "[b]TEAM: Ann, Ben[/b]")
	c.pm("Cat", "APPROVE")
	try("Cat", "APPROVE")                    // after his PM vote
	try("Fay", "PLAY Strong Leader")         // a card she does not hold
	try("Ben", "SABOTAGE")                   // an order in the thread
	try("Gus", "TEAM: Ann, Ben, Cat, Dan")   // not the leader
	want := []bool{false, false, true, true} // shown?
	if len(reasons) != len(want) {
		t.Fatalf("refusals %q", reasons)
	}
	for i, r := range reasons {
		if shown := g.PublicReason("", r) != ""; shown != want[i] {
			t.Errorf("the vote log shows %q: %v, want %v", r, shown, want[i])
		}
	}
}
