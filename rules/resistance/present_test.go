package resistance

import (
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/replay/gametest"
	"github.com/forumgm/forumgm/rules"
)

func played(t *testing.T) *gametest.Played {
	cfg := rules.Config{Players: []string{"Ann", "Ben", "Cat", "Dan", "Eli", "Fay", "Zoë"}, Seed: 18,
		Start: time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC), Options: rules.Options{"phase_hours": 1}}
	return gametest.Play(t, Game{}, cfg, 18, 60)
}

func tableOf(secs []rules.Section, caption string) *rules.Table {
	for _, s := range secs {
		for i := range s.Tables {
			if s.Tables[i].Caption == caption {
				return &s.Tables[i]
			}
		}
	}
	return nil
}

// TestProposalGrid: one row per closed proposal plus the open one, and
// each closed row holds the votes as the tally posted them.
func TestProposalGrid(t *testing.T) {
	p := played(t)
	res := p.Resolutions()
	n := res[2] // three proposals closed
	secs := Game{}.Present(p.State(n), rules.Viewing{History: p.History[:n]})
	grid := tableOf(secs, "Proposals and votes")
	if grid == nil || len(grid.Rows) != 4 {
		t.Fatalf("grid %+v, want 3 closed proposals and the open one", grid)
	}
	players := p.Start.(*State).Seats.IDs()
	for i, r := range res[:3] {
		before := p.History[r-1].Before.(*State)
		row := grid.Rows[i]
		for j, id := range players {
			c := row.Cells[2+j]
			v, voted := before.Votes[id]
			switch {
			case before.Team == nil || !voted:
				if c.Text != "–" {
					t.Errorf("proposal %d, %s: %q, want no vote", i+1, id, c.Text)
				}
			case v.Approve != strings.HasPrefix(c.Text, "✓"):
				t.Errorf("proposal %d, %s voted approve=%v, the grid shows %q", i+1, id, v.Approve, c.Text)
			}
			if c.Boxed != contains(before.Team, id) {
				t.Errorf("proposal %d, %s: boxed %v, on the team %v", i+1, id, c.Boxed, contains(before.Team, id))
			}
		}
	}
	open := grid.Rows[3]
	if open.Mark != rules.Lead {
		t.Error("the open proposal's row is not marked")
	}
	for _, c := range open.Cells[2 : 2+len(players)] {
		if strings.ContainsAny(c.Text, "✓✗") {
			t.Errorf("the open proposal shows how someone voted: %q", c.Text)
		}
	}
}

// TestCardsByPMStayPrivate: a Close Eye played by PM is in the GM's view
// and not in everyone's; everyone's still counts it as held.
func TestCardsByPMStayPrivate(t *testing.T) {
	p := played(t)
	var at int
	var who string
	for i, m := range p.History {
		if c := m.Command; c != nil && c.Kind == KindPlay && c.Src.Channel == rules.Private {
			at, who = i+1, c.Src.Player
			break
		}
	}
	if at == 0 {
		t.Fatal("no card was played by PM in this game")
	}
	st := p.State(at)
	pub := Game{}.Present(st, rules.Viewing{History: p.History[:at]})
	for _, r := range tableOf(pub, "Cards given and played").Rows {
		if r.Cells[1].Names[0] == who && r.Cells[2].Text == CloseEye && strings.HasPrefix(r.Cells[3].Text, "played") {
			t.Errorf("everyone's view shows %s's Close Eye played by PM", who)
		}
	}
	held := false
	for _, r := range tableOf(pub, "Cards held").Rows {
		held = held || (r.Cells[0].Names[0] == who && strings.Contains(r.Cells[1].Text, CloseEye))
	}
	if !held {
		t.Errorf("everyone's view no longer counts %s's Close Eye as held", who)
	}
	gm := Game{}.Present(st, rules.Viewing{GM: true, History: p.History[:at]})
	if pm := tableOf(gm, "Cards played by PM"); pm == nil || pm.Rows[0].Cells[1].Names[0] != who {
		t.Errorf("the GM's view does not list the PM play: %+v", pm)
	}
}
