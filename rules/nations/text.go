package nations

import (
	"fmt"
	"strings"

	"github.com/forumgm/forumgm/rules"
)

func openingText(s *State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[b]Nations begins[/b]: %d nations, %d VP each, %s.\n", len(s.Seats.Slots), StartVP, rules.Plural(s.Settings.Rounds, "round"))
	b.WriteString("Pick your civilisation here in the thread, in bold, before round 1 closes: [b]CIV: Fire[/b], Water, Earth or Air. ")
	b.WriteString("Fire steals 2 more whenever it steals by invading; Water makes 4 more when it prospers uninvaded; ")
	b.WriteString("Earth steals 2 more when it guesses its invader; Air has no bonus. Whoever picks nothing is Air.\n")
	b.WriteString("Each round send ONE order by PM to the GM (orders in the thread do not count): ")
	b.WriteString("INVADE name, DEFEND name (defend and guess your invader), DEFEND (no guess), or PROSPER. The latest order counts.\n")
	b.WriteString("[b]Round 1[/b] is open: orders by the deadline below.")
	return b.String()
}

func (s *State) civName(id string, res Result) string {
	c := res.Civ[id]
	if c == "" {
		c = s.CivOf(id)
	}
	return c + " Nation"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// reportText is the public report of one round.
func reportText(s *State, res Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[b]Round %d of %d: results[/b]\n\n[b]Orders[/b]\n", res.Round, s.Settings.Rounds)
	for _, id := range s.Seats.IDs() {
		o, ok := res.Orders[id]
		if !ok {
			continue // already out
		}
		did := "did nothing"
		switch o.Kind {
		case KindInvade:
			did = "invaded " + s.Seats.Name(o.Target)
		case KindDefend:
			if o.Target == "" {
				did = "defended, with no guess"
			} else {
				did = "defended, guessing " + s.Seats.Name(o.Target)
			}
		case KindProsper:
			did = "prospered"
		}
		fmt.Fprintf(&b, "%s (%s): %s\n", s.Seats.Name(id), s.civName(id, res), did)
	}
	b.WriteString("\n[b]What happened[/b]\n")
	lines := 0
	for _, st := range res.Steals {
		a, t := s.Seats.Name(st.Invader), s.Seats.Name(st.Target)
		bonus := func(civ string) string {
			if st.Bonus == 0 {
				return ""
			}
			return fmt.Sprintf(" (%s +%d)", civ, st.Bonus)
		}
		switch st.Case {
		case CaseInvading:
			fmt.Fprintf(&b, "%s invaded %s, who was invading too: %s stole %d VP%s from %s.\n", a, t, a, st.Amount, bonus("Fire"), t)
		case CaseGuessed:
			fmt.Fprintf(&b, "%s invaded %s, who defended and guessed right: %s stole %d VP%s from %s instead.\n", a, t, t, st.Amount, bonus("Earth"), a)
		case CaseDefending:
			fmt.Fprintf(&b, "%s invaded %s, who defended without guessing %s: %s stole %d VP%s from %s.\n", a, t, a, a, st.Amount, bonus("Fire"), t)
		case CaseProsperity:
			fmt.Fprintf(&b, "%s invaded %s, who was prospering: %s stole %d VP%s from %s, and %s generated nothing.\n", a, t, a, st.Amount, bonus("Fire"), t, t)
		default:
			fmt.Fprintf(&b, "%s invaded %s, who did nothing: %s stole %d VP%s from %s.\n", a, t, a, st.Amount, bonus("Fire"), t)
		}
		lines++
	}
	for _, id := range s.Seats.IDs() {
		if g, ok := res.Generated[id]; ok {
			extra := ""
			if g > ProsperGain {
				extra = fmt.Sprintf(" (Water +%d)", g-ProsperGain)
			}
			fmt.Fprintf(&b, "%s prospered undisturbed: +%d VP%s.\n", s.Seats.Name(id), g, extra)
			lines++
		}
	}
	for _, id := range s.Seats.IDs() {
		if _, ok := res.After[id]; !ok {
			continue
		}
		lost := 0
		for _, st := range res.Steals {
			if st.From == id {
				lost += st.Amount
			}
		}
		if lost > 0 && res.After[id] == 0 {
			fmt.Fprintf(&b, "%s could not pay all %d VP; the rest appeared out of thin air.\n", s.Seats.Name(id), lost)
		}
	}
	if lines == 0 {
		b.WriteString("Nobody invaded and nobody prospered.\n")
	}
	b.WriteString("\n[b]VP[/b]\n")
	for _, id := range s.Seats.IDs() {
		after, ok := res.After[id]
		if !ok {
			fmt.Fprintf(&b, "%s: 0 (out since round %d)\n", s.Seats.Name(id), s.OutRound[id])
			continue
		}
		fmt.Fprintf(&b, "%s: %d (%+d)\n", s.Seats.Name(id), after, after-res.Before[id])
	}
	if len(res.Eliminated) > 0 {
		fmt.Fprintf(&b, "\n[b]Eliminated this round[/b]: %s (0 VP).\n", s.Seats.Names(res.Eliminated))
	}
	if out := s.OutIDs(); len(out) > 0 {
		fmt.Fprintf(&b, "[b]Out[/b]: %s\n", s.Seats.Names(out))
	}
	if !s.Finished {
		fmt.Fprintf(&b, "\n[b]Round %d of %d[/b] is open: send your order by PM before the deadline below.", s.Round, s.Settings.Rounds)
	}
	return strings.TrimRight(b.String(), "\n")
}

// finalText is the closing scoreboard and the awards.
func finalText(s *State) string {
	var b strings.Builder
	switch {
	case s.EndedAt >= s.Settings.Rounds:
		fmt.Fprintf(&b, "[b]Final scoreboard[/b] after %s\n", rules.Plural(s.EndedAt, "round"))
	case s.EndedAt == s.Round && len(s.AliveIDs()) < 2:
		fmt.Fprintf(&b, "[b]Final scoreboard[/b]: fewer than two nations remain after round %d, so the game is over\n", s.EndedAt)
	default:
		fmt.Fprintf(&b, "[b]Final scoreboard[/b]: the GM ended the game after %d of %s\n", s.EndedAt, rules.Plural(s.Settings.Rounds, "round"))
	}
	rank, prev := 0, -1
	for i, id := range ranking(s) {
		if s.VP[id] != prev {
			rank, prev = i+1, s.VP[id]
		}
		out := ""
		if r, ok := s.OutRound[id]; ok {
			out = fmt.Sprintf(", out in round %d", r)
		}
		fmt.Fprintf(&b, "%d. %s (%s Nation): %d VP%s\n", rank, s.Seats.Name(id), s.CivOf(id), s.VP[id], out)
	}
	if len(s.Settings.Awards) > 0 {
		b.WriteString("\n[b]Awards[/b]\n")
	}
	for _, a := range s.Settings.Awards {
		who := awardHolders(s, a.Key)
		if len(who) == 0 {
			fmt.Fprintf(&b, "%s: not awarded (%s)\n", a.Title, map[string]string{
				AwardWinner:      "nobody has any VP",
				AwardConqueror:   "nobody stole anything by invading",
				AwardFortress:    "nobody guessed an invader",
				AwardBreadbasket: "nobody prospered undisturbed",
			}[a.Key])
			continue
		}
		v := awardValue(s, a.Key)(who[0])
		what := map[string]string{
			AwardWinner:      fmt.Sprintf("%d VP", v),
			AwardConqueror:   fmt.Sprintf("%d VP stolen by invading", v),
			AwardFortress:    fmt.Sprintf("%d %s guessed", v, plural(v, "invader", "invaders")),
			AwardBreadbasket: fmt.Sprintf("%d VP generated by prospering", v),
		}[a.Key]
		fmt.Fprintf(&b, "%s: %s (%s)\n", a.Title, s.Seats.Names(who), what)
	}
	return strings.TrimRight(b.String(), "\n")
}
