package nations

import (
	"fmt"
	"sort"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// The table of nations.md, before civilisation bonuses.
const (
	StealFromInvader  = 10 // the target was invading someone
	StealByGuesser    = 12 // the target defended and guessed this invader (the target steals)
	StealFromDefender = 6  // the target defended but guessed someone else, or no one
	StealFromProsper  = 25 // the target prospered (and generates nothing)
	StealFromIdle     = 10 // the target did nothing
	ProsperGain       = 22 // prospering with no invader

	FireBonus  = 2 // on every steal Fire makes by invading
	WaterBonus = 4 // when Water prospers uninvaded
	EarthBonus = 2 // when Earth guesses its invader
)

// Cases of one invasion, named by what the target did.
const (
	CaseInvading   = "invading"
	CaseGuessed    = "guessed"
	CaseDefending  = "defending"
	CaseProsperity = "prospering"
	CaseIdle       = "idle"
)

// Steal is one invasion's outcome: To takes Amount from From (Bonus of it
// from a civilisation). In CaseGuessed the target steals from the invader.
type Steal struct {
	Invader string `json:"invader"`
	Target  string `json:"target"`
	Case    string `json:"case"`
	From    string `json:"from"`
	To      string `json:"to"`
	Amount  int    `json:"amount"`
	Bonus   int    `json:"bonus,omitempty"`
}

// Result is one resolved round, as the public report shows it.
type Result struct {
	Round      int               `json:"round"`
	Orders     map[string]Order  `json:"orders"` // every player still in; kind "none" = did nothing
	Civ        map[string]string `json:"civ"`
	Steals     []Steal           `json:"steals"`
	Generated  map[string]int    `json:"generated"` // VP made by prospering uninvaded
	Before     map[string]int    `json:"before"`
	After      map[string]int    `json:"after"`
	Eliminated []string          `json:"eliminated"`
	Published  time.Time         `json:"published"` // when the report is posted
}

// ResolveOrders applies the table to one round: players are those still in
// (in roster order), vp their VP as the round began, civ their
// civilisations, orders their standing orders (absent = did nothing). It is
// pure and is what the tests check the table against.
func ResolveOrders(players []string, vp map[string]int, civ map[string]string, orders map[string]Order) Result {
	res := Result{
		Orders: map[string]Order{}, Civ: map[string]string{}, Steals: []Steal{},
		Generated: map[string]int{}, Before: map[string]int{}, After: map[string]int{},
		Eliminated: []string{},
	}
	civOf := func(id string) string {
		if c := civ[id]; c != "" {
			return c
		}
		return Air
	}
	for _, id := range players {
		o, ok := orders[id]
		if !ok {
			o = Order{Kind: kindNone}
		}
		res.Orders[id] = o
		res.Civ[id] = civOf(id)
		res.Before[id] = vp[id]
	}
	invaded := map[string]bool{}
	for _, a := range players {
		o := res.Orders[a]
		if o.Kind != KindInvade {
			continue
		}
		t := o.Target
		tOrd := res.Orders[t]
		fire := 0
		if civOf(a) == Fire {
			fire = FireBonus
		}
		st := Steal{Invader: a, Target: t, From: t, To: a, Bonus: fire}
		switch {
		case tOrd.Kind == KindInvade:
			st.Case, st.Amount = CaseInvading, StealFromInvader+fire
		case tOrd.Kind == KindDefend && tOrd.Target == a:
			st.Case, st.From, st.To, st.Bonus = CaseGuessed, a, t, 0
			st.Amount = StealByGuesser
			if civOf(t) == Earth {
				st.Amount += EarthBonus
				st.Bonus = EarthBonus
			}
		case tOrd.Kind == KindDefend:
			st.Case, st.Amount = CaseDefending, StealFromDefender+fire
		case tOrd.Kind == KindProsper:
			st.Case, st.Amount = CaseProsperity, StealFromProsper+fire
		default:
			st.Case, st.Amount = CaseIdle, StealFromIdle+fire
		}
		invaded[t] = true
		res.Steals = append(res.Steals, st)
	}
	delta := map[string]int{}
	for _, st := range res.Steals {
		delta[st.To] += st.Amount
		delta[st.From] -= st.Amount
	}
	for _, id := range players {
		if res.Orders[id].Kind == KindProsper && !invaded[id] {
			g := ProsperGain
			if civOf(id) == Water {
				g += WaterBonus
			}
			res.Generated[id] = g
			delta[id] += g
		}
	}
	for _, id := range players {
		// Steals are paid in full to the stealer; only the loser's total
		// is floored at 0 (the source's "VPs appear out of thin air").
		after := max(vp[id]+delta[id], 0)
		res.After[id] = after
		if after == 0 {
			res.Eliminated = append(res.Eliminated, id)
		}
	}
	return res
}

// Resolve implements rules.Game: it closes the current round at now, opens
// the next one after the break (its report is held back until then), or
// ends the game after the last round.
func (Game) Resolve(st rules.State, now time.Time) (rules.State, []rules.Event) {
	s := st.(*State)
	if s.Finished {
		return s, nil
	}
	ns := s.clone()
	res := ResolveOrders(s.AliveIDs(), s.VP, s.Civ, s.Orders)
	res.Round = s.Round
	for id, v := range res.After {
		ns.VP[id] = v
	}
	for _, st := range res.Steals {
		t := ns.Tallies[st.To]
		if st.Case == CaseGuessed {
			t.Guessed++
		} else {
			t.Stolen += st.Amount
		}
		ns.Tallies[st.To] = t
	}
	for id, g := range res.Generated {
		t := ns.Tallies[id]
		t.Generated += g
		ns.Tallies[id] = t
	}
	for _, id := range res.Eliminated {
		ns.OutRound[id] = s.Round
	}
	ns.Orders = map[string]Order{}
	// The game ends after the last round, or as soon as fewer than two
	// nations remain (nobody left to invade).
	last := s.Round >= s.Settings.Rounds || len(ns.AliveIDs()) < 2
	var notBefore time.Time
	var evs []rules.Event
	if last {
		ns.Finished = true
		ns.EndedAt = s.Round
		ns.Next = map[string]Order{}
		res.Published = now
	} else {
		ns.Round++
		ns.Opens = now.Add(minutes(s.Settings.BreakMinutes))
		ns.Deadline = ns.Opens.Add(minutes(s.Settings.RoundMinutes))
		notBefore = ns.Opens
		res.Published = ns.Opens
		// Orders made after the deadline but applied before it resolved:
		// they stand for the new round unless someone involved is now out.
		for _, id := range ns.Seats.IDs() {
			o, ok := s.Next[id]
			if !ok || !ns.Alive(id) {
				continue
			}
			if o.Target != "" && !ns.Alive(o.Target) {
				evs = append(evs, rules.Event{To: id, Kind: "order-dropped", NotBefore: notBefore,
					Text: fmt.Sprintf("Your order for round %d (%s) no longer counts: %s is out of the game. Send a new one.",
						ns.Round, describeOrder(s, o), ns.Seats.Name(o.Target))})
				continue
			}
			ns.Orders[id] = o
		}
		ns.Next = map[string]Order{}
	}
	ns.History = append(ns.History, res)
	evs = append([]rules.Event{{Kind: "round-report", Text: reportText(ns, res), NotBefore: notBefore}}, evs...)
	for _, id := range res.Eliminated {
		evs = append(evs, rules.Event{To: id, Kind: "eliminated", NotBefore: notBefore,
			Text: fmt.Sprintf("Your nation has fallen: 0 VP after round %d. You are out of the game.", res.Round)})
	}
	if last {
		evs = append(evs, rules.PublicEvent("final", finalText(ns)))
	}
	return ns, evs
}

// End implements rules.Game: the GM stops the game now. The current round's
// orders are not resolved; the final scoreboard and awards are posted.
func (Game) End(st rules.State, now time.Time) (rules.State, []rules.Event) {
	s := st.(*State)
	if s.Finished {
		return s, nil
	}
	ns := s.clone()
	ns.Finished = true
	ns.EndedAt = s.Round - 1
	ns.Orders = map[string]Order{}
	ns.Next = map[string]Order{}
	return ns, []rules.Event{rules.PublicEvent("final", finalText(ns))}
}

// bestOf lists the players with the highest positive value (ties share); a
// best value of 0 gives nobody anything.
func bestOf(s *State, val func(id string) int) []string {
	best := 0
	out := []string{}
	for _, id := range s.Seats.IDs() {
		v := val(id)
		switch {
		case v <= 0 || v < best:
		case v > best:
			best, out = v, []string{id}
		default:
			out = append(out, id)
		}
	}
	return out
}

// awardValue is what an award is counted by.
func awardValue(s *State, key string) func(string) int {
	switch key {
	case AwardWinner:
		return func(id string) int { return s.VP[id] }
	case AwardConqueror:
		return func(id string) int { return s.Tallies[id].Stolen }
	case AwardFortress:
		return func(id string) int { return s.Tallies[id].Guessed }
	case AwardBreadbasket:
		return func(id string) int { return s.Tallies[id].Generated }
	}
	return func(string) int { return 0 }
}

// awardHolders lists who gets an award (empty: not awarded).
func awardHolders(s *State, key string) []string { return bestOf(s, awardValue(s, key)) }

// ranking is the players by VP, highest first (roster order breaks ties).
func ranking(s *State) []string {
	ids := s.Seats.IDs()
	sort.SliceStable(ids, func(i, j int) bool { return s.VP[ids[i]] > s.VP[ids[j]] })
	return ids
}
