package resistance

import (
	"fmt"
	"strings"

	"github.com/forumgm/forumgm/rules"
)

var _ rules.Presenter = Game{}

// Present implements rules.Presenter: the mission track, the proposal in
// progress, the leader order, every closed proposal as a grid of votes,
// and the plot cards as the thread saw them; for the GM also the roles,
// the hands and what has been received for the open proposal.
//
// Everyone's view is built from View(s, Everyone) and from what each
// resolution made public (a closed proposal's tally: leader, team and
// every vote by name; a mission's result and sabotage count) and the
// commands posted in the thread; never from a vote, order or card play
// sent by PM before its tally.
func (g Game) Present(st rules.State, v rules.Viewing) []rules.Section {
	s := st.(*State)
	pv := g.View(s, rules.Everyone).(View)
	p := presenter{s: s, v: pv, past: closedProposals(v.History), cards: publicCards(v.History)}
	out := []rules.Section{p.missions(), p.now(), p.leaders(), p.proposals()}
	if c, ok := p.cardsSection(); ok {
		out = append(out, c)
	}
	if pv.Finished {
		out = append(out, p.roles())
	}
	if v.GM {
		out = append(out, p.gmSecrets(), p.gmProposal())
		if h, ok := p.gmHands(v.History); ok {
			out = append(out, h)
		}
	}
	return out
}

type presenter struct {
	s     *State
	v     View
	past  []closed
	cards cardLog
}

func (p presenter) name(id string) string { return p.s.Seats.Display(id) }

func (p presenter) names(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = p.name(id)
	}
	return out
}

// sizes are the five missions' team sizes and the sabotages that fail
// each, from the rulings' tables for this many players.
func (p presenter) sizes() (size, fails [5]int) {
	for i := range 5 {
		m := &State{Order: p.v.LeaderOrder, Mission: i + 1}
		size[i], fails[i] = m.teamSize(), m.failsAt()
	}
	return size, fails
}

func sabotageCount(n int) string {
	if n == 1 {
		return "1 sabotage"
	}
	return fmt.Sprintf("%d sabotages", n)
}

// missions is the mission track: a drawing and the same as a table.
func (p presenter) missions() rules.Section {
	size, fails := p.sizes()
	won, lost := 0, 0
	for _, m := range p.v.Missions {
		if m == "success" {
			won++
		} else {
			lost++
		}
	}
	sec := rules.Section{Title: "Missions",
		Intro: "Five missions; three successes win it for the resistance, three failures for the spies."}
	sec.Facts = []rules.Fact{{Label: "Score", Value: rules.Marked(fmt.Sprintf("resistance %d, spies %d", won, lost), rules.Strong)}}
	if !p.v.Finished {
		sec.Facts = append(sec.Facts, rules.Fact{Label: "Rejected proposals this mission",
			Value: rules.Text(fmt.Sprintf("%d of %d (at %d the spies win)", p.v.Rejections, p.v.RejectionLimit, p.v.RejectionLimit))})
	}
	t := rules.Table{Caption: "The missions", Head: heads("Mission", "Team size", "Fails with", "Result"), RowHeads: true}
	for i := range 5 {
		row := rules.Row{Cells: []rules.Cell{rules.Text(fmt.Sprint(i + 1)), rules.Text(fmt.Sprint(size[i])), rules.Text(sabotageCount(fails[i]))}}
		switch {
		case i < len(p.v.Missions):
			mark := rules.Good
			if p.v.Missions[i] != "success" {
				mark = rules.Bad
			}
			row.Cells = append(row.Cells, rules.Marked(fmt.Sprintf("%s, %s", p.v.Missions[i], sabotageCount(p.v.Sabotages[i])), mark))
		case i+1 == p.v.Mission && !p.v.Finished:
			row.Cells = append(row.Cells, rules.Marked("in play", rules.Lead))
			row.Mark = rules.Lead
		default:
			row.Cells = append(row.Cells, rules.Marked("not played", rules.Muted))
		}
		if fails[i] > 1 {
			row.Cells[2].Mark = rules.Strong
		}
		t.Rows = append(t.Rows, row)
	}
	sec.Tables = []rules.Table{t}
	sec.Pictures = []rules.Picture{{Format: "svg", Data: p.track(size, fails), Alt: p.trackAlt(size, fails)}}
	return sec
}

func (p presenter) trackAlt(size, fails [5]int) string {
	var parts []string
	for i := range 5 {
		what := "not played"
		switch {
		case i < len(p.v.Missions):
			what = fmt.Sprintf("%s with %s", p.v.Missions[i], sabotageCount(p.v.Sabotages[i]))
		case i+1 == p.v.Mission && !p.v.Finished:
			what = "in play"
		}
		two := ""
		if fails[i] > 1 {
			two = ", fails only with 2 sabotages"
		}
		parts = append(parts, fmt.Sprintf("mission %d, team of %d%s: %s", i+1, size[i], two, what))
	}
	return "Mission track: " + strings.Join(parts, "; ") + "."
}

// track draws the five missions as the board game's track: a disc each
// with its team size, blue for a success, red for a failure, the one in
// play ringed, the two-fail mission marked.
func (p presenter) track(size, fails [5]int) []byte {
	const w, h, r = 560.0, 136.0, 34.0
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" font-family="sans-serif" role="img">`, w, h, w, h)
	b.WriteString(`<title>Mission track</title>`)
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%.0f" height="%.0f" rx="10" fill="#f3f0e8"/>`, w, h)
	for i := range 5 {
		cx := 64 + float64(i)*108
		cy := 64.0
		fill, ink, stroke, sw := "#ffffff", "#1d232b", "#8a8f98", 2.0
		result := ""
		switch {
		case i < len(p.v.Missions):
			if p.v.Missions[i] == "success" {
				fill, stroke = "#2458a6", "#173a70"
				result = "success"
			} else {
				fill, stroke = "#b3261e", "#7a1913"
				result = "fail"
			}
			ink = "#ffffff"
		case i+1 == p.v.Mission && !p.v.Finished:
			stroke, sw = "#d08a00", 5
			result = "in play"
		}
		fmt.Fprintf(&b, `<circle cx="%.0f" cy="%.0f" r="%.0f" fill="%s" stroke="%s" stroke-width="%.0f"/>`, cx, cy, r, fill, stroke, sw)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="26" font-weight="700" text-anchor="middle" fill="%s">%d</text>`, cx, cy+6, ink, size[i])
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="10" text-anchor="middle" fill="%s">players</text>`, cx, cy+20, ink)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="12" text-anchor="middle" fill="#1d232b">Mission %d</text>`, cx, 14.0+2, i+1)
		if fails[i] > 1 {
			fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="11" font-weight="700" text-anchor="middle" fill="#7a1913">2 fails needed</text>`, cx, cy+r+17)
		}
		if result != "" {
			line := result
			if i < len(p.v.Sabotages) {
				line = fmt.Sprintf("%s · %s", result, sabotageCount(p.v.Sabotages[i]))
			}
			y := cy + r + 17
			if fails[i] > 1 {
				y += 15
			}
			fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="11" text-anchor="middle" fill="#1d232b">%s</text>`, cx, y, line)
		}
	}
	b.WriteString(`</svg>`)
	return []byte(b.String())
}

func heads(hs ...string) []rules.Cell {
	out := make([]rules.Cell, len(hs))
	for i, h := range hs {
		out[i] = rules.Text(h)
	}
	return out
}

// now is the proposal in progress, or how the game ended.
func (p presenter) now() rules.Section {
	v := p.v
	if v.Finished {
		winner := rules.Marked("nobody: the GM ended the game", rules.Muted)
		switch v.WinnerSide {
		case "spies":
			winner = rules.Marked("the spies", rules.Strong)
		case "resistance":
			winner = rules.Marked("the resistance", rules.Strong)
		}
		return rules.Section{Title: "The end", Facts: []rules.Fact{{Label: "Winner", Value: winner},
			{Label: "Missions played", Value: rules.Text(fmt.Sprint(len(v.Missions)))}}}
	}
	size, fails := p.sizes()
	sec := rules.Section{Title: fmt.Sprintf("Mission %d, proposal %d", v.Mission, v.Proposal)}
	f := []rules.Fact{{Label: "Leader", Value: rules.Who(p.name(v.Leader))},
		{Label: "Team size", Value: rules.Text(fmt.Sprintf("%d (it fails with %s)", size[v.Mission-1], sabotageCount(fails[v.Mission-1])))}}
	if v.Team == nil {
		f = append(f, rules.Fact{Label: "Team", Value: rules.Marked("not proposed yet: waiting for the leader", rules.Muted)})
	} else {
		waiting := map[string]bool{}
		for _, id := range v.Waiting {
			waiting[id] = true
		}
		var voted []string
		for _, id := range v.Players {
			if !waiting[id] {
				voted = append(voted, id)
			}
		}
		f = append(f, rules.Fact{Label: "Team", Value: rules.Who(p.names(v.Team)...)},
			rules.Fact{Label: "Have voted", Value: rules.Who(p.names(voted)...)},
			rules.Fact{Label: "Still to vote", Value: rules.Who(p.names(v.Waiting)...)})
	}
	if len(v.Dealt) > 0 {
		f = append(f, rules.Fact{Label: "Cards to hand out", Value: rules.Cell{Text: strings.Join(v.Dealt, " and ") + ", each to another player, by ", Names: []string{p.name(v.Dealer)}}})
	}
	for _, id := range v.Players {
		for _, c := range v.Pending[id] {
			f = append(f, rules.Fact{Label: "Owes a choice", Value: rules.Cell{Text: c + ": ", Names: []string{p.name(id)}}})
		}
	}
	if len(v.DoubleVotes) > 0 {
		f = append(f, rules.Fact{Label: "Double Vote cards unused", Value: rules.Who(p.names(v.DoubleVotes)...)})
	}
	sec.Facts = f
	sec.Notes = []string{"How each player voted is told when the proposal closes; a vote by PM stands over one in the thread."}
	return sec
}

// leaders is the leader order with the current leader.
func (p presenter) leaders() rules.Section {
	t := rules.Table{Caption: "Leader order", Head: heads("Turn", "Player", ""), RowHeads: true}
	for i, id := range p.v.LeaderOrder {
		row := rules.Row{Cells: []rules.Cell{rules.Text(fmt.Sprint(i + 1)), rules.Who(p.name(id)), {}}}
		if id == p.v.Leader && !p.v.Finished {
			row.Mark = rules.Lead
			row.Cells[2] = rules.Marked("leads now", rules.Lead)
		}
		t.Rows = append(t.Rows, row)
	}
	return rules.Section{Title: "Leader order", Intro: "Leadership passes down this list after each proposal and starts again at the top.", Tables: []rules.Table{t}}
}

// closed is one proposal as its tally made it public.
type closed struct {
	Mission, Proposal int
	Leader            string
	Team              []string // nil: the leader proposed no team
	Votes             map[string]Vote
	Doubled           map[string]bool
	Approved          bool
	Result            string // the mission's, when approved
	Sabotages         int
	Rejections, Limit int // after the close
}

// closedProposals reads each resolution in the history: the proposal as
// it stood when it closed, and what came of it.
func closedProposals(h []rules.Moment) []closed {
	var out []closed
	for _, m := range h {
		if m.Command != nil || m.Ended {
			continue
		}
		b, ok1 := m.Before.(*State)
		a, ok2 := m.After.(*State)
		if !ok1 || !ok2 || b.Finished {
			continue
		}
		// A rejection stays in its mission, so the count after it is the
		// mission's (an approval resets it, and is not shown with one).
		c := closed{Mission: b.Mission, Proposal: b.Proposal, Leader: b.Leader, Team: b.Team,
			Votes: b.Votes, Doubled: b.Doubled, Rejections: a.Rejections, Limit: a.RejectionLimit}
		if len(a.Missions) > len(b.Missions) {
			c.Approved = true
			c.Result, c.Sabotages = a.Missions[len(b.Missions)], a.Sabotages[len(b.Missions)]
		}
		out = append(out, c)
	}
	return out
}

// proposals is the grid: one row per proposal, one column per player.
func (p presenter) proposals() rules.Section {
	sec := rules.Section{Title: "Proposals and votes",
		Intro: "Every proposal so far: who led, who was on the team (boxed), how each player voted, and what came of it."}
	players := p.v.Players
	head := heads("Proposal", "Leader")
	for _, id := range players {
		head = append(head, rules.Who(p.name(id)))
	}
	head = append(head, rules.Text("Outcome"))
	t := rules.Table{Caption: "Proposals and votes", Head: head, RowHeads: true}
	for _, c := range p.past {
		row := rules.Row{Cells: []rules.Cell{rules.Text(fmt.Sprintf("%d.%d", c.Mission, c.Proposal)), rules.Who(p.name(c.Leader))}}
		for _, id := range players {
			row.Cells = append(row.Cells, voteCell(c, id))
		}
		var out rules.Cell
		switch {
		case c.Team == nil:
			out = rules.Marked(fmt.Sprintf("no team proposed (rejected proposals: %d of %d)", c.Rejections, c.Limit), rules.Bad)
		case c.Approved && c.Result == "success":
			out = rules.Marked(fmt.Sprintf("approved: mission succeeded, %s", sabotageCount(c.Sabotages)), rules.Good)
		case c.Approved:
			out = rules.Marked(fmt.Sprintf("approved: mission failed, %s", sabotageCount(c.Sabotages)), rules.Bad)
		default:
			out = rules.Marked(fmt.Sprintf("rejected (%d of %d)", c.Rejections, c.Limit), rules.Bad)
		}
		row.Cells = append(row.Cells, out)
		t.Rows = append(t.Rows, row)
	}
	if v := p.v; !v.Finished {
		row := rules.Row{Mark: rules.Lead, Cells: []rules.Cell{rules.Text(fmt.Sprintf("%d.%d", v.Mission, v.Proposal)), rules.Who(p.name(v.Leader))}}
		waiting := map[string]bool{}
		for _, id := range v.Waiting {
			waiting[id] = true
		}
		for _, id := range players {
			c := rules.Cell{Text: "", Alt: "has not voted", Mark: rules.Muted}
			if v.Team != nil && !waiting[id] {
				c = rules.Cell{Text: "•", Alt: "has voted", Mark: rules.Muted}
			}
			c.Boxed = contains(v.Team, id)
			if c.Boxed {
				c.Alt += ", on the team"
			}
			row.Cells = append(row.Cells, c)
		}
		status := "waiting for the leader's team"
		if v.Team != nil {
			status = "voting"
		}
		row.Cells = append(row.Cells, rules.Marked(status, rules.Lead))
		t.Rows = append(t.Rows, row)
	}
	sec.Tables = []rules.Table{t}
	sec.Notes = []string{"✓ approve, ✗ reject, ✓✓ or ✗✗ a vote that counted double, – no vote; a box: on the team; • has voted on the open proposal (how is told when it closes)."}
	if len(p.past) == 0 && p.v.Proposal == 1 && p.v.Mission == 1 {
		sec.Notes = append(sec.Notes, "No proposal has closed yet.")
	}
	return sec
}

func voteCell(c closed, id string) rules.Cell {
	cell := rules.Cell{Text: "–", Alt: "no vote", Mark: rules.Muted}
	if vote, ok := c.Votes[id]; ok && c.Team != nil {
		cell = rules.Cell{Text: "✓", Alt: "approve", Mark: rules.Good}
		if !vote.Approve {
			cell = rules.Cell{Text: "✗", Alt: "reject", Mark: rules.Bad}
		}
		if c.Doubled[id] {
			cell.Text += cell.Text
			cell.Alt += ", counted double"
		}
	}
	if contains(c.Team, id) {
		cell.Boxed = true
		cell.Alt += ", on the team"
	}
	return cell
}

// roles is every role, revealed at the end.
func (p presenter) roles() rules.Section {
	t := rules.Table{Caption: "Roles", Head: heads("Player", "Role"), RowHeads: true}
	for _, id := range p.v.Players {
		role, mark := "resistance", rules.Good
		if p.v.Roles[id] == Spy {
			role, mark = "spy", rules.Bad
		}
		t.Rows = append(t.Rows, rules.Row{Cells: []rules.Cell{rules.Who(p.name(id)), rules.Marked(role, mark)}})
	}
	return rules.Section{Title: "Roles", Intro: "Revealed at the end of the game.", Tables: []rules.Table{t}}
}

// cardLog is the plot cards as the thread saw them: every GIVE, every
// play posted in the thread, and what each player holds by that count.
type cardLog struct {
	events []cardEvent
	held   map[string][]string
}

type cardEvent struct {
	mission      int
	who, to, on  string // slot ids
	card, action string // action: "given to", "played", "played on", "names"
}

// kept says whether a card stays in its receiver's hand until played (the
// others act when given).
func kept(card string) bool {
	switch card {
	case Successor, Overheard, OpenUp, Confidence:
		return false
	}
	return true
}

// publicCards reads the thread's card commands from the history. A card
// played by PM (Keeping a Close Eye on You may be) is not in it: the
// thread was not told, so it still counts as held.
func publicCards(h []rules.Moment) cardLog {
	l := cardLog{held: map[string][]string{}}
	outstanding := map[string][]string{} // public plays that return if the team does not go
	for _, m := range h {
		b, ok1 := m.Before.(*State)
		a, ok2 := m.After.(*State)
		if !ok1 || !ok2 {
			continue
		}
		if m.Command == nil {
			if !m.Ended && len(a.Missions) == len(b.Missions) {
				// Not approved: targeted plays go back to their holders.
				for who, cs := range outstanding {
					l.held[who] = append(l.held[who], cs...)
				}
			}
			outstanding = map[string][]string{}
			continue
		}
		c := m.Command
		pub := c.Src.Channel == rules.Public
		arg := func(i int) string {
			if i < len(c.Args) {
				return c.Args[i]
			}
			return ""
		}
		who := c.Src.Player
		switch c.Kind {
		case KindGive:
			to, err := b.Seats.Match(arg(1))
			if err != nil {
				continue
			}
			l.events = append(l.events, cardEvent{mission: b.Mission, who: who, to: to, card: arg(0), action: "given to"})
			if kept(arg(0)) {
				l.held[to] = append(l.held[to], arg(0))
			}
		case KindPlay:
			if !pub {
				continue
			}
			e := cardEvent{mission: b.Mission, who: who, card: arg(0), action: "played"}
			if t, err := b.Seats.Match(arg(1)); err == nil && arg(1) != "" {
				e.on, e.action = t, "played on"
			}
			l.events = append(l.events, e)
			l.held[who] = remove(l.held[who], arg(0))
			if arg(0) == CloseEye || arg(0) == Spotlight {
				outstanding[who] = append(outstanding[who], arg(0))
			}
		case KindOverhear, KindOpenUp:
			if !pub {
				continue
			}
			if t, err := b.Seats.Match(arg(0)); err == nil {
				card := Overheard
				if c.Kind == KindOpenUp {
					card = OpenUp
				}
				l.events = append(l.events, cardEvent{mission: b.Mission, who: who, on: t, card: card, action: "names"})
			}
		case KindTeam:
			// A new team without a targeted play's target sends the card
			// back (announced in the thread).
			if b.Spot != nil && a.Spot == nil {
				if cs := outstanding[b.Spot.Holder]; contains(cs, Spotlight) {
					outstanding[b.Spot.Holder] = remove(cs, Spotlight)
					l.held[b.Spot.Holder] = append(l.held[b.Spot.Holder], Spotlight)
				}
			}
			for _, e := range b.Eyes {
				if !containsPlay(a.Eyes, e) {
					if cs := outstanding[e.Holder]; contains(cs, CloseEye) {
						outstanding[e.Holder] = remove(cs, CloseEye)
						l.held[e.Holder] = append(l.held[e.Holder], CloseEye)
					}
				}
			}
		}
	}
	return l
}

func containsPlay(ps []Play, p Play) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// cardsSection shows the plot cards: what each player holds as the
// thread knows it, and every card given and played there.
func (p presenter) cardsSection() (rules.Section, bool) {
	if len(p.cards.events) == 0 && len(p.v.Dealt) == 0 && len(p.v.DoubleVotes) == 0 && len(p.s.Deck) == 0 {
		return rules.Section{}, false
	}
	sec := rules.Section{Title: "Plot cards", Intro: "Cards as the thread has seen them: handed out with GIVE, played in the thread."}
	held := rules.Table{Caption: "Cards held", Head: heads("Player", "Holds"), RowHeads: true}
	for _, id := range p.v.Players {
		cs := append([]string(nil), p.cards.held[id]...)
		if contains(p.v.DoubleVotes, id) {
			cs = append(cs, DoubleVote)
		}
		cell := rules.Text(strings.Join(cs, ", "))
		if len(cs) == 0 {
			cell = rules.Marked("nothing", rules.Muted)
		}
		held.Rows = append(held.Rows, rules.Row{Cells: []rules.Cell{rules.Who(p.name(id)), cell}})
	}
	sec.Tables = append(sec.Tables, held)
	if len(p.cards.events) > 0 {
		log := rules.Table{Caption: "Cards given and played", Head: heads("Mission", "Player", "Card", "")}
		for _, e := range p.cards.events {
			what := rules.Cell{Text: e.action}
			switch {
			case e.to != "":
				what.Names = []string{p.name(e.to)}
			case e.on != "":
				what.Names = []string{p.name(e.on)}
			}
			log.Rows = append(log.Rows, rules.Row{Cells: []rules.Cell{rules.Text(fmt.Sprint(e.mission)), rules.Who(p.name(e.who)), rules.Text(e.card), what}})
		}
		sec.Tables = append(sec.Tables, log)
	}
	sec.Notes = []string{"Keeping a Close Eye on You may also be played by PM, unseen: a player may hold fewer cards than shown."}
	return sec, true
}

// ---- the GM's view

func roleWord(r string) string {
	if r == Spy {
		return "spy"
	}
	return "resistance"
}

// gmSecrets: every role and what each player has learnt.
func (p presenter) gmSecrets() rules.Section {
	t := rules.Table{Caption: "Roles and what each player knows", Head: heads("Player", "Role", "Knows"), RowHeads: true}
	for _, id := range p.v.Players {
		role := p.s.Roles[id]
		mark := rules.Good
		if role == Spy {
			mark = rules.Bad
		}
		known := rules.Cell{Mark: rules.Muted, Text: "no one"}
		k := p.s.startKnowledge(id)
		for x, r := range p.s.Known[id] {
			k[x] = r
		}
		var parts []string
		var who []string
		for _, x := range p.v.Players {
			if r, ok := k[x]; ok && x != id {
				parts = append(parts, roleWord(r))
				who = append(who, p.name(x))
			}
		}
		if len(who) > 0 {
			known = rules.Cell{}
			for i := range who {
				known.Names = append(known.Names, who[i]+" ("+parts[i]+")")
			}
		}
		t.Rows = append(t.Rows, rules.Row{Cells: []rules.Cell{rules.Who(p.name(id)), rules.Marked(roleWord(role), mark), known}})
	}
	sec := rules.Section{Title: "Roles (GM only)", GM: true, Tables: []rules.Table{t}}
	if len(p.s.Chain) > 0 {
		sec.Facts = []rules.Fact{{Label: "Spy chain", Value: rules.Cell{Text: "each spy knows the next: ", Names: p.names(p.s.Chain)}}}
	}
	return sec
}

// gmProposal: the votes and mission orders received for the open
// proposal, thread and PM alike.
func (p presenter) gmProposal() rules.Section {
	sec := rules.Section{Title: "Received for this proposal (GM only)", GM: true}
	if p.s.Finished {
		sec.Intro = "The game is over."
		return sec
	}
	t := rules.Table{Caption: "Votes and mission orders received", Head: heads("Player", "Vote", "Mission order", "Card plays"), RowHeads: true}
	for _, id := range p.v.Players {
		vote := rules.Marked("none yet", rules.Muted)
		if vt, ok := p.s.Votes[id]; ok {
			how := "in the thread"
			if vt.PM {
				how = "by PM"
			}
			vote = rules.Marked("approve, "+how, rules.Good)
			if !vt.Approve {
				vote = rules.Marked("reject, "+how, rules.Bad)
			}
			if p.s.Doubled[id] {
				vote.Text += ", counted double"
			}
		}
		order := rules.Marked("not on the team", rules.Muted)
		if contains(p.s.Team, id) {
			switch o := p.s.Orders[id]; o {
			case "":
				order = rules.Marked("none yet (counts as "+map[bool]string{true: "sabotage", false: "support"}[p.s.Roles[id] == Spy]+")", rules.Muted)
			case "sabotage":
				order = rules.Marked(o, rules.Bad)
			default:
				order = rules.Marked(o, rules.Good)
			}
		}
		plays := rules.Cell{}
		for _, e := range p.s.Eyes {
			if e.Holder == id {
				plays.Text = CloseEye + " on "
				plays.Names = append(plays.Names, p.name(e.Target))
			}
		}
		if p.s.Spot != nil && p.s.Spot.Holder == id {
			plays.Text = Spotlight + " on "
			plays.Names = append(plays.Names, p.name(p.s.Spot.Target))
		}
		t.Rows = append(t.Rows, rules.Row{Cells: []rules.Cell{rules.Who(p.name(id)), vote, order, plays}})
	}
	sec.Tables = []rules.Table{t}
	return sec
}

// gmHands: every hand as it is, cards played by PM included, and the
// deck still to deal.
func (p presenter) gmHands(h []rules.Moment) (rules.Section, bool) {
	if len(p.s.Hands) == 0 && len(p.s.Deck) == 0 && len(p.s.DoubleVotes) == 0 && len(p.s.Dealt) == 0 {
		return rules.Section{}, false
	}
	t := rules.Table{Caption: "Hands", Head: heads("Player", "Holds"), RowHeads: true}
	for _, id := range p.v.Players {
		cs := append([]string(nil), p.s.Hands[id]...)
		if p.s.DoubleVotes[id] {
			cs = append(cs, DoubleVote)
		}
		cell := rules.Text(strings.Join(cs, ", "))
		if len(cs) == 0 {
			cell = rules.Marked("nothing", rules.Muted)
		}
		t.Rows = append(t.Rows, rules.Row{Cells: []rules.Cell{rules.Who(p.name(id)), cell}})
	}
	sec := rules.Section{Title: "Hands (GM only)", GM: true, Tables: []rules.Table{t}}
	deck := rules.Marked("empty", rules.Muted)
	if len(p.s.Deck) > 0 {
		deck = rules.Text(strings.Join(p.s.Deck, ", "))
	}
	sec.Facts = []rules.Fact{{Label: "Deck, in dealing order", Value: deck}}
	pm := rules.Table{Caption: "Cards played by PM", Head: heads("Mission", "Player", "Card", "On")}
	for _, m := range h {
		c := m.Command
		if c == nil || c.Src.Channel != rules.Private || c.Kind != KindPlay || len(c.Args) == 0 {
			continue
		}
		b, ok := m.Before.(*State)
		if !ok {
			continue
		}
		on := rules.Cell{}
		if len(c.Args) > 1 {
			if t, err := b.Seats.Match(c.Args[1]); err == nil {
				on = rules.Who(p.name(t))
			}
		}
		pm.Rows = append(pm.Rows, rules.Row{Cells: []rules.Cell{rules.Text(fmt.Sprint(b.Mission)), rules.Who(p.name(c.Src.Player)), rules.Text(c.Args[0]), on}})
	}
	if len(pm.Rows) > 0 {
		sec.Tables = append(sec.Tables, pm)
	}
	return sec, true
}
