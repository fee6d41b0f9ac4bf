package resistance

import (
	"fmt"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/replay"
	"github.com/forumgm/forumgm/rules"
)

func TestBot(t *testing.T) {
	t.Parallel()
	g := Game{}
	st, _, err := g.Setup(fixture(seven, []string{StrongLeader, Speech}, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("leader gives cards, then proposes", func(t *testing.T) {
		bad := 0
		for i := 0; i < 200; i++ {
			ms := g.Bot(st, "Ann", rules.NewRand(int64(i), "bot"))
			if len(ms) != 1 || ms[0].Private {
				t.Fatalf("moves %+v", ms)
			}
			segs := replay.PostSegments(ms[0].Text)
			if len(segs) != 3 || !strings.HasPrefix(segs[0], "GIVE Strong Leader TO ") || !strings.HasPrefix(segs[1], "GIVE Passionate Speech TO ") || !strings.HasPrefix(segs[2], "TEAM: ") {
				t.Fatalf("segments %q", segs)
			}
			if strings.Contains(segs[0], "Ann") || strings.Contains(segs[1], "Ann") {
				t.Fatalf("gave a card to himself: %q", segs)
			}
			r := &run{State: st.(*State), Private: map[string][]string{}}
			r.message(g, "Ann", false, ms[0].Text, startTime)
			if r.State.Team == nil {
				bad++
			}
		}
		if bad == 0 || bad > 50 {
			t.Errorf("%d of 200 proposals were bad; want about 10%%", bad)
		}
	})
	t.Run("others wait while no team is proposed", func(t *testing.T) {
		for _, p := range seven[1:] {
			if ms := g.Bot(st, p, rules.NewRand(1, "bot")); len(ms) != 0 {
				t.Errorf("%s moves %+v", p, ms)
			}
		}
	})
	t.Run("votes and orders on a team", func(t *testing.T) {
		r := play(t, fixture(seven, []string{StrongLeader, Speech}, nil), give("Ann", "strong", "Dan", "speech", "Cat"), "Ann> [b]TEAM: Ann, Ben[/b]")
		orders, pmVotes, votes := 0, 0, 0
		for i := 0; i < 300; i++ {
			for _, p := range seven {
				for _, m := range g.Bot(r.State, p, rules.NewRand(int64(i), p)) {
					text := m.Text
					if m.Private {
						for _, l := range strings.Split(text, "\n") {
							switch l {
							case "SUPPORT", "SABOTAGE":
								orders++
								if p != "Ann" && p != "Ben" {
									t.Fatalf("%s is not on the team but sends %s", p, l)
								}
								if p == "Ann" && l == "SABOTAGE" {
									t.Fatal("a resistance bot sabotaged")
								}
							case "APPROVE", "REJECT":
								pmVotes++
							}
						}
						continue
					}
					votes += strings.Count(text, "[b]VOTE ")
				}
			}
		}
		if orders == 0 || pmVotes == 0 || votes == 0 {
			t.Errorf("orders %d, PM votes %d, thread votes %d", orders, pmVotes, votes)
		}
	})
	t.Run("nothing after the end", func(t *testing.T) {
		s2, _ := g.End(st, startTime)
		for _, p := range seven {
			if ms := g.Bot(s2, p, rules.NewRand(1, fmt.Sprint(p))); len(ms) != 0 {
				t.Errorf("%s moves after the end", p)
			}
		}
	})
}
