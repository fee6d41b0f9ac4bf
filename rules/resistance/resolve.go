package resistance

import (
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// Due implements rules.Game: every player has voted on a proposed team, or
// the phase's time limit has passed.
func (Game) Due(st rules.State, now time.Time) bool {
	s := st.(*State)
	if s.Finished {
		return false
	}
	if s.Team != nil && len(s.Votes) == s.n() {
		return true
	}
	return !s.Deadline.IsZero() && !now.Before(s.Deadline)
}

// SetDeadline implements rules.Game.
func (g Game) SetDeadline(st rules.State, t time.Time) rules.State {
	s := g.clone(st)
	s.Deadline = t
	return s
}

// Resolve implements rules.Game: it closes the open proposal (or the wait
// for one) at now.
func (g Game) Resolve(st rules.State, now time.Time) (rules.State, []rules.Event) {
	s := g.clone(st)
	if s.Finished {
		return s, nil
	}
	var ev []rules.Event
	if s.Team == nil {
		return s, s.noProposal(now)
	}
	missing := s.notVoted()
	s.Missing = missing
	approveW, rejectW := 0, 0
	var yes, no []string
	for _, id := range s.Seats.IDs() {
		v, ok := s.Votes[id]
		w := 1
		if s.Doubled[id] {
			w = 2
		}
		name := s.Seats.Name(id)
		if w == 2 {
			name += " (x2)"
		}
		switch {
		case ok && v.Approve:
			approveW += w
			yes = append(yes, name)
		case ok, s.MissingVote == "reject":
			rejectW += w
			if !ok {
				name += " (no vote)"
			}
			no = append(no, name)
		}
	}
	approved := approveW > rejectW
	var b strings.Builder
	fmt.Fprintf(&b, "[b]Votes on %s's team[/b] (%s), mission %d, proposal %d:\n", s.Seats.Name(s.Leader), s.Seats.Names(s.Team), s.Mission, s.Proposal)
	fmt.Fprintf(&b, "APPROVE (%d): %s\n", approveW, listOrNone(yes))
	fmt.Fprintf(&b, "REJECT (%d): %s\n", rejectW, listOrNone(no))
	if len(missing) > 0 {
		how := "not counted"
		if s.MissingVote == "reject" {
			how = "counted as REJECT"
		}
		fmt.Fprintf(&b, "No vote from: %s (%s).\n", s.Seats.Names(missing), how)
	}
	if approved {
		b.WriteString("The team is [b]APPROVED[/b].")
	} else {
		b.WriteString("The team is [b]REJECTED[/b].")
	}
	ev = append(ev, rules.PublicEvent("tally", b.String()))
	if !approved {
		// Targeted plays on a team that never went out return to the hand.
		for _, e := range s.Eyes {
			s.Hands[e.Holder] = append(s.Hands[e.Holder], CloseEye)
			ev = append(ev, rules.PrivateEvent(e.Holder, "card", fmt.Sprintf("The team was rejected: your %s card returns to your hand.", CloseEye)))
		}
		if s.Spot != nil {
			s.Hands[s.Spot.Holder] = append(s.Hands[s.Spot.Holder], Spotlight)
			ev = append(ev, rules.PublicEvent("card", fmt.Sprintf("The team was rejected: %s returns to %s's hand.", Spotlight, s.Seats.Name(s.Spot.Holder))))
		}
		ev = append(ev, s.reject(now)...)
		return s, ev
	}
	ev = append(ev, s.mission(now)...)
	return s, ev
}

// noProposal closes a wait in which the leader posted no valid team by the
// time limit. Nothing was proposed, so by default nothing was rejected: the
// turn passes on (a stand-in's back to the player he displaced) and the
// rejection count stays, so a spy leading the proposal that would reach the
// limit cannot win by silence. With missing_proposal: reject the silence
// counts as a rejected proposal, as it did before the option. Either way the
// leader is reported missing and cards not yet given are discarded.
func (s *State) noProposal(now time.Time) []rules.Event {
	silent := s.Seats.Name(s.Leader)
	if s.Override != "" {
		silent += fmt.Sprintf(", leading in %s's place,", s.Seats.Name(s.Order[s.Turn]))
	}
	s.Missing = []string{s.Leader}
	discarded := ""
	if len(s.Dealt) > 0 {
		discarded = fmt.Sprintf(" The cards not handed out (%s) are discarded.", strings.Join(s.Dealt, ", "))
		s.Dealt = nil
	}
	noTeam := "\nNo team from: " + s.Seats.Name(s.Leader) + "."
	if s.MissingProposal == "reject" {
		msg := fmt.Sprintf("Time is up and %s proposed no team: this counts as a rejected proposal.", silent) + discarded + noTeam
		return append([]rules.Event{rules.PublicEvent("missing", msg)}, s.reject(now)...)
	}
	// The proposal number still moves on: each wait is a phase of its own.
	s.Proposal++
	next := s.advance(now, false)
	msg := fmt.Sprintf("Time is up and %s proposed no team: the turn passes without a proposal, and the rejection count stays at %d of %d.%s %s leads the next proposal.%s",
		silent, s.Rejections, s.RejectionLimit, discarded, s.Seats.Name(s.Leader), noTeam)
	return append([]rules.Event{rules.PublicEvent("missing", msg)}, next...)
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "nobody"
	}
	return strings.Join(xs, ", ")
}

// reject counts a rejected proposal and opens the next one, unless the
// rejection limit gives the game to the spies.
func (s *State) reject(now time.Time) []rules.Event {
	s.Rejections++
	if s.Rejections >= s.RejectionLimit {
		ev := []rules.Event{rules.PublicEvent("result", fmt.Sprintf("That is rejected proposal %d of %d in mission %d.", s.Rejections, s.RejectionLimit, s.Mission))}
		return append(ev, s.finish(Spy, "the rejection limit was reached")...)
	}
	s.Proposal++
	return s.advance(now, false)
}

// mission runs the approved team's mission.
func (s *State) mission(now time.Time) []rules.Event {
	sab := 0
	order := map[string]string{}
	for _, id := range s.Team {
		o := s.Orders[id]
		if o == "" {
			o = map[bool]string{true: "sabotage", false: "support"}[s.Roles[id] == Spy]
		}
		order[id] = o
		if o == "sabotage" {
			sab++
		}
	}
	ok := sab < s.failsAt()
	res := map[bool]string{true: "success", false: "fail"}[ok]
	s.Missions = append(s.Missions, res)
	s.Sabotages = append(s.Sabotages, sab)
	var ev []rules.Event
	plural := "s"
	if sab == 1 {
		plural = ""
	}
	text := fmt.Sprintf("[b]Mission %d: %s[/b] — %d sabotage%s.", s.Mission, strings.ToUpper(res), sab, plural)
	if s.Spot != nil {
		text += fmt.Sprintf("\nIn The Spotlight: %s sent %s.", s.Seats.Name(s.Spot.Target), strings.ToUpper(order[s.Spot.Target]))
	}
	succ, fails := 0, 0
	for _, m := range s.Missions {
		if m == "success" {
			succ++
		} else {
			fails++
		}
	}
	text += fmt.Sprintf("\nMissions so far: %d success, %d fail.", succ, fails)
	ev = append(ev, rules.PublicEvent("result", text))
	for _, e := range s.Eyes {
		word := map[string]string{"support": "SUPPORTED", "sabotage": "SABOTAGED"}[order[e.Target]]
		ev = append(ev, rules.PrivateEvent(e.Holder, "reveal", fmt.Sprintf("%s: on mission %d, %s %s.", CloseEye, s.Mission, s.Seats.Name(e.Target), word)))
	}
	ev = append(ev, s.settlePending()...)
	switch {
	case succ >= 3:
		return append(ev, s.finish(Resistance, "three missions succeeded")...)
	case fails >= 3:
		return append(ev, s.finish(Spy, "three missions failed")...)
	}
	s.Mission++
	s.Proposal = 1
	s.Rejections = 0
	return append(ev, s.advance(now, true)...)
}

// settlePending makes the Overheard / Open Up choices a receiver still owes
// when the mission resolves: the bot names the next player after them in the
// leader order.
func (s *State) settlePending() []rules.Event {
	var ev []rules.Event
	for _, p := range sortedKeys(s.Pending) {
		for _, card := range s.Pending[p] {
			_, next := s.adjacent(p)
			ev = append(ev, rules.PublicEvent("card", fmt.Sprintf("%s made no %s choice before the mission resolved; the bot names %s, next in the leader order.", s.Seats.Name(p), card, s.Seats.Name(next))))
			if card == Overheard {
				ev = append(ev, s.learn(p, next, Overheard))
			} else {
				ev = append(ev, s.learn(next, p, OpenUp), rules.PrivateEvent(p, "card", fmt.Sprintf("%s: your role has been revealed to %s.", OpenUp, s.Seats.Name(next))))
			}
		}
	}
	s.Pending = map[string][]string{}
	return ev
}

// advance passes leadership and opens the next proposal. A leader who took
// someone's turn (Strong Leader, Successor Nomination) hands it back to that
// player; otherwise the turn moves on in the leader order.
func (s *State) advance(now time.Time, newMission bool) []rules.Event {
	var ev []rules.Event
	if s.Override == "" {
		s.Turn = (s.Turn + 1) % s.n()
	}
	s.Override = ""
	switch {
	case s.StrongNext != "":
		s.Override = s.StrongNext
		s.StrongNext = ""
		if newMission && s.Nominee != "" {
			ev = append(ev, rules.PublicEvent("card", fmt.Sprintf("Strong Leader wins over Successor Nomination: %s's nomination is spent.", s.Seats.Name(s.Nominee))))
			s.Nominee = ""
		}
	case newMission && s.Nominee != "":
		s.Override = s.Nominee
		s.Nominee = ""
	}
	if s.Override == s.Order[s.Turn] {
		s.Override = "" // it was their turn anyway
	}
	s.Leader = s.Order[s.Turn]
	if s.Override != "" {
		s.Leader = s.Override
	}
	s.Team = nil
	s.Votes = map[string]Vote{}
	s.Orders = map[string]string{}
	s.Doubled = map[string]bool{}
	s.Eyes = nil
	s.Spot = nil
	s.Opened = now
	s.Deadline = s.deadlineFrom(now)
	return append(ev, s.openProposal(newMission)...)
}

// finish ends the game with a winning side and reveals every role.
func (s *State) finish(side, why string) []rules.Event {
	s.Finished = true
	s.Winner = side
	s.Deadline = time.Time{}
	s.Pending = map[string][]string{}
	name := map[string]string{Spy: "THE SPIES WIN", Resistance: "THE RESISTANCE WINS"}[side]
	return []rules.Event{rules.PublicEvent("end", fmt.Sprintf("[b]%s[/b]: %s.\n%s", name, why, s.rolesText()))}
}

func (s *State) rolesText() string {
	var b strings.Builder
	b.WriteString("Roles:")
	for _, id := range s.Seats.IDs() {
		role := "Resistance"
		if s.Roles[id] == Spy {
			role = "Spy"
		}
		fmt.Fprintf(&b, "\n%s — %s", s.Seats.Name(id), role)
	}
	if len(s.Chain) > 0 {
		fmt.Fprintf(&b, "\nSpy chain: %s → %s", strings.Join(names(s.Seats, s.Chain), " → "), s.Seats.Name(s.Chain[0]))
	}
	return b.String()
}

func names(r *rules.Roster, ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = r.Name(id)
	}
	return out
}

// End implements rules.Game: the GM ends the game with no winning side; the
// roles are revealed.
func (g Game) End(st rules.State, now time.Time) (rules.State, []rules.Event) {
	s := g.clone(st)
	if s.Finished {
		return s, nil
	}
	s.Finished = true
	s.Winner = ""
	s.Deadline = time.Time{}
	s.Pending = map[string][]string{}
	return s, []rules.Event{rules.PublicEvent("end", "[b]The game has been ended by the GM[/b] with no winner.\n"+s.rolesText())}
}

// Status implements rules.Game.
func (Game) Status(st rules.State) rules.Status {
	s := st.(*State)
	out := rules.Status{
		Phase:    fmt.Sprintf("m%d-p%d", s.Mission, s.Proposal),
		Title:    fmt.Sprintf("Mission %d, proposal %d", s.Mission, s.Proposal),
		Deadline: s.Deadline,
		Finished: s.Finished,
		Out:      []string{},
		Winners:  []string{},
		Waiting:  []string{},
		Acted:    []string{},
		Extra: map[string]any{
			"missions":  append([]string{}, s.Missions...),
			"sabotages": append([]int{}, s.Sabotages...),
		},
	}
	if s.Finished {
		out.Phase, out.Title = "end", "Game over"
		if s.Winner != "" {
			out.Winners = s.side(s.Winner)
			out.Extra["winner_side"] = map[string]string{Spy: "spies", Resistance: "resistance"}[s.Winner]
		}
	} else if s.Team == nil {
		out.Waiting = []string{s.Leader}
	} else {
		out.Waiting = s.notVoted()
		out.Acted = s.voted()
	}
	if len(s.Missing) > 0 {
		out.Extra["missing"] = append([]string{}, s.Missing...)
	}
	return out
}
