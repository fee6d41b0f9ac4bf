package resistance

import (
	"fmt"
	"strings"

	"github.com/forumgm/forumgm/rules"
)

// Between deadlines (RULINGS.md "Counts, reminders and the vote log"): the
// count of a proposal, what a player still owes, and how the thread's
// commands read in the public vote log.

var (
	_ rules.Counter   = Game{}
	_ rules.Owing     = Game{}
	_ rules.PublicLog = Game{}
)

// reasonPMStands refuses a thread vote after a vote by PM.
const reasonPMStands = "your vote by PM stands: a vote in the thread does not change it (send a new vote by PM to change it)"

// Count implements rules.Counter: the team up for votes, the thread's votes
// as posted (each with its post), how many have voted by PM but not which
// way, who has not voted, and how many approvals carry the team. Before a
// team is posted: whom the proposal waits for.
func (Game) Count(st rules.State, in rules.CountInput) string {
	s := st.(*State)
	if s.Finished {
		return "The game is over."
	}
	r := s.Seats
	var b strings.Builder
	if s.Team == nil {
		fmt.Fprintf(&b, "No team proposed yet: the leader, %s, posts a team of %d in the thread ([b]TEAM: name, name[/b]).", r.Name(s.Leader), s.teamSize())
		if len(s.Dealt) > 0 {
			fmt.Fprintf(&b, "\nCards still to be handed out first: %s.", strings.Join(s.Dealt, " and "))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "Team proposed by %s: [b]%s[/b].\n", r.Name(s.Leader), r.Names(s.Team))

	// A player's last vote in the thread, as posted: the one that stands
	// unless he has voted by PM since (which nobody else may know).
	type posted struct {
		approve bool
		ref     string
	}
	last := map[string]posted{}
	for _, c := range in.Thread {
		if c.Kind == KindVote && c.Src.Channel == rules.Public && len(c.Args) > 0 {
			last[c.Src.Player] = posted{approve: c.Args[0] == "approve", ref: c.Src.Ref}
		}
	}
	var yes, no []string
	for _, id := range r.IDs() {
		v, ok := last[id]
		if !ok {
			continue
		}
		name := r.Name(id)
		if s.Doubled[id] {
			name += " (x2)"
		}
		link := ""
		if in.Link != nil {
			link = in.Link(v.ref)
		}
		if v.approve {
			yes = append(yes, rules.PostLink(name, link))
		} else {
			no = append(no, rules.PostLink(name, link))
		}
	}
	fmt.Fprintf(&b, "APPROVE in the thread (%d): %s\n", len(yes), listOrNone(yes))
	fmt.Fprintf(&b, "REJECT in the thread (%d): %s\n", len(no), listOrNone(no))
	pm := 0
	for _, v := range s.Votes {
		if v.PM {
			pm++
		}
	}
	switch pm {
	case 0:
		b.WriteString("By PM: no votes yet.\n")
	default:
		fmt.Fprintf(&b, "By PM: %s voted, which way stays secret until the tally (a vote by PM stands over one in the thread).\n",
			map[bool]string{true: "1 player has", false: fmt.Sprintf("%d players have", pm)}[pm == 1])
	}
	if left := s.notVoted(); len(left) > 0 {
		fmt.Fprintf(&b, "Not voted yet (%d): %s.\n", len(left), r.Names(left))
	} else {
		b.WriteString("Everyone has voted.\n")
	}
	b.WriteString(s.majority())
	return b.String()
}

// majority says how many approvals carry the team: more APPROVE than
// REJECT, with the votes that count double (Double Vote, Passionate
// Speech: announced in the thread when played).
func (s *State) majority() string {
	total := 0
	var doubled []string
	for _, id := range s.Seats.IDs() {
		total++
		if s.Doubled[id] {
			total++
			doubled = append(doubled, id)
		}
	}
	need := total/2 + 1
	double := ""
	if len(doubled) > 0 {
		double = fmt.Sprintf(" (%s counts double)", s.Seats.Names(doubled))
		if len(doubled) > 1 {
			double = fmt.Sprintf(" (%s count double)", s.Seats.Names(doubled))
		}
	}
	if s.MissingVote == "reject" {
		return fmt.Sprintf("Majority: %d APPROVE of %d votes%s; a missing vote counts as REJECT.", need, total, double)
	}
	return fmt.Sprintf("Majority: %d APPROVE of %d votes if everyone votes%s; a missing vote does not count: the team needs more APPROVE than REJECT.", need, total, double)
}

// Owed implements rules.Owing: the leader's cards and proposal, a vote on
// the team, a team member's mission order, an owed card choice. A team
// member is reminded of his order in the same words whatever his side, so
// comparing reminders tells nobody anything.
func (Game) Owed(st rules.State, p string) []string {
	s := st.(*State)
	if s.Finished || !s.Seats.Has(p) {
		return nil
	}
	r := s.Seats
	var out []string
	if p == s.Leader && s.Team == nil {
		if p == s.Dealer && len(s.Dealt) > 0 {
			out = append(out, fmt.Sprintf("hand out the cards you were dealt (%s), each to another player, in the thread: [b]GIVE card TO name[/b]", strings.Join(s.Dealt, " and ")))
		}
		out = append(out, fmt.Sprintf("propose the team of %d for mission %d in the thread: [b]TEAM: name, name[/b]", s.teamSize(), s.Mission))
	}
	if s.Team != nil {
		if _, ok := s.Votes[p]; !ok {
			whose := r.Name(s.Leader) + "'s"
			if p == s.Leader {
				whose = "your"
			}
			out = append(out, fmt.Sprintf("vote on %s team (%s): [b]APPROVE[/b] or [b]REJECT[/b] in the thread, or by PM", whose, r.Names(s.Team)))
		}
		if s.onTeam(p) && s.Orders[p] == "" {
			out = append(out, "you are on the team: send me your mission order by PM, SUPPORT or SABOTAGE")
		}
	}
	for _, c := range s.Pending[p] {
		switch c {
		case Overheard:
			a, b := s.adjacent(p)
			out = append(out, fmt.Sprintf("make your %s choice before the mission: [b]OVERHEAR name[/b] (%s or %s)", Overheard, r.Name(a), r.Name(b)))
		case OpenUp:
			out = append(out, fmt.Sprintf("make your %s choice before the mission: [b]OPEN UP TO name[/b]", OpenUp))
		}
	}
	return out
}

// Replaces implements rules.PublicLog: a later vote replaces a player's
// earlier one, a leader's later team his earlier proposal.
func (Game) Replaces(kind string) bool { return kind == KindVote || kind == KindTeam }

// PublicReason implements rules.PublicLog. Two refusals tell what only the
// player knows: that he voted by PM ("your vote by PM stands"), and that a
// card he was given has left his hand unseen (a Close Eye played by PM:
// "you do not hold …"). The log shows neither reason; he was told it.
func (Game) PublicReason(_ string, reason string) string {
	if reason == reasonPMStands || strings.HasPrefix(reason, "you do not hold ") {
		return ""
	}
	return reason
}
