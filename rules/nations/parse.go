package nations

import (
	"fmt"
	"strings"

	"github.com/forumgm/forumgm/rules"
)

// Reasons shared by Parse, Apply and the tests.
const (
	reasonByPM     = "orders must be sent by PM to the GM; an order posted in the thread does not count"
	reasonCivInPM  = "pick your civilisation publicly in the thread, in bold: [b]CIV: Fire[/b] (a PM does not count)"
	reasonNotOrder = "not an order: send one of INVADE name, DEFEND name, DEFEND, PROSPER"
)

// Parse implements rules.Game. It reads the grammar and matches names;
// whether the order is allowed now (self-invasion, targets who are out, the
// civ lock) is Apply's business, so a command log replays the same way.
func (Game) Parse(st rules.State, text string, src rules.Source) rules.Parsed {
	s := st.(*State)
	words := rules.Words(text)
	if len(words) == 0 {
		return rules.Parsed{Ignored: true}
	}
	head := strings.ToUpper(strings.Trim(words[0], ",;-"))
	reject := func(r string) rules.Parsed { return rules.Parsed{Reject: r} }
	cmd := func(kind string, args ...string) rules.Parsed {
		return rules.Parsed{Cmd: &rules.Command{Kind: kind, Args: args, Text: text, Src: src}}
	}
	switch head {
	case "CIV", "CIVILISATION", "CIVILIZATION":
		if src.Channel != rules.Public {
			return reject(reasonCivInPM)
		}
		civ, err := MatchCiv(rules.Rest(text, 1))
		if err != nil {
			return reject(err.Error())
		}
		return cmd(KindCiv, civ)
	case "INVADE", "DEFEND", "PROSPER":
		if src.Channel != rules.Private {
			return reject(reasonByPM)
		}
	default:
		if src.Channel == rules.Public {
			return rules.Parsed{Ignored: true} // bold used for emphasis
		}
		return reject(reasonNotOrder)
	}
	rest := rules.Rest(text, 1)
	switch head {
	case "PROSPER":
		if rest != "" {
			return reject("PROSPER takes nothing after it")
		}
		return cmd(KindProsper)
	case "INVADE":
		if rest == "" {
			return reject("INVADE whom? Write INVADE and one player's name")
		}
		id, err := matchOne(s, rest, "you can invade only one player per round")
		if err != nil {
			return reject(err.Error())
		}
		return cmd(KindInvade, id)
	default: // DEFEND [GUESS] [name]
		if w := rules.Words(rest); len(w) > 0 {
			switch strings.ToUpper(w[0]) {
			case "GUESS", "GUESSING", "AGAINST":
				rest = rules.Rest(rest, 1)
				if rest == "" {
					return reject("DEFEND GUESS whom? Write DEFEND GUESS and a name, or DEFEND alone to defend without a guess")
				}
			}
		}
		if rest == "" {
			return cmd(KindDefend)
		}
		id, err := matchOne(s, rest, "you can guess only one invader per round")
		if err != nil {
			return reject(err.Error())
		}
		return cmd(KindDefend, id)
	}
}

func matchOne(s *State, list, many string) (string, error) {
	parts := rules.SplitList(list)
	if len(parts) > 1 {
		return "", fmt.Errorf("%s", many)
	}
	return s.Seats.Match(list)
}

// MatchCiv reads a civilisation name: a unique prefix of Fire, Water, Earth
// or Air, with or without "Nation" ("fire nation", "W").
func MatchCiv(text string) (string, error) {
	k := rules.NormName(text)
	k = strings.TrimPrefix(k, "the")
	if k != "nation" {
		k = strings.TrimSuffix(k, "nation")
	}
	if k == "" {
		return "", fmt.Errorf("which civilisation? Write CIV: Fire, Water, Earth or Air")
	}
	var hits []string
	for _, c := range Civs {
		if strings.HasPrefix(strings.ToLower(c), k) {
			hits = append(hits, c)
		}
	}
	if len(hits) != 1 {
		return "", fmt.Errorf("%q is not a civilisation: choose Fire, Water, Earth or Air", strings.TrimSpace(text))
	}
	return hits[0], nil
}

// late says whether a command was made at or after the current round's
// deadline (by the forum's timestamp): such an order is for the next round.
func (s *State) late(c rules.Command) bool {
	return !c.Src.Time.IsZero() && !c.Src.Time.Before(s.Deadline)
}

// Apply implements rules.Game.
func (Game) Apply(st rules.State, c rules.Command) (rules.State, []rules.Event, error) {
	s := st.(*State)
	p := c.Src.Player
	switch {
	case !s.Seats.Has(p):
		return s, nil, fmt.Errorf("you are not a player in this game")
	case s.Finished:
		return s, nil, fmt.Errorf("the game is over")
	case !s.Alive(p):
		return s, nil, fmt.Errorf("you are out of the game (eliminated in round %d); your orders no longer count", s.OutRound[p])
	}
	switch c.Kind {
	case KindCiv:
		if c.Src.Channel != rules.Public {
			return s, nil, fmt.Errorf("%s", reasonCivInPM)
		}
		if len(c.Args) != 1 {
			return s, nil, fmt.Errorf("which civilisation? Write CIV: Fire, Water, Earth or Air")
		}
		civ, err := MatchCiv(c.Args[0])
		if err != nil {
			return s, nil, err
		}
		if s.Round > 1 || s.late(c) {
			return s, nil, fmt.Errorf("civilisations are locked once round 1 is resolved; you stay %s Nation", s.CivOf(p))
		}
		ns := s.clone()
		ns.Civ[p] = civ
		return ns, nil, nil
	case KindInvade, KindDefend, KindProsper:
	default:
		return s, nil, fmt.Errorf("unknown command %q", c.Kind)
	}
	if c.Src.Channel != rules.Private {
		return s, nil, fmt.Errorf("%s", reasonByPM)
	}
	o := Order{Kind: c.Kind}
	switch c.Kind {
	case KindProsper:
		if len(c.Args) != 0 {
			return s, nil, fmt.Errorf("PROSPER takes nothing after it")
		}
	case KindInvade:
		if len(c.Args) != 1 {
			return s, nil, fmt.Errorf("INVADE needs exactly one player's name")
		}
		o.Target = c.Args[0]
		switch {
		case !s.Seats.Has(o.Target):
			return s, nil, fmt.Errorf("%s is not a player", rules.Esc(o.Target))
		case o.Target == p:
			return s, nil, fmt.Errorf("you cannot invade yourself")
		case !s.Alive(o.Target):
			return s, nil, fmt.Errorf("%s is out of the game and cannot be invaded", s.Seats.Name(o.Target))
		}
	case KindDefend:
		if len(c.Args) > 1 {
			return s, nil, fmt.Errorf("you can guess only one invader per round")
		}
		if len(c.Args) == 1 {
			o.Target = c.Args[0]
			switch {
			case !s.Seats.Has(o.Target):
				return s, nil, fmt.Errorf("%s is not a player", rules.Esc(o.Target))
			case o.Target == p:
				return s, nil, fmt.Errorf("you cannot guess yourself as your own invader")
			case !s.Alive(o.Target):
				return s, nil, fmt.Errorf("%s is out of the game and cannot invade you", s.Seats.Name(o.Target))
			}
		}
	}
	round := s.Round
	ns := s.clone()
	book := ns.Orders
	if s.late(c) {
		// Made in the break after this round's deadline but applied before
		// Resolve: it counts for the next round, as the rulings say.
		if s.Round >= s.Settings.Rounds {
			return s, nil, fmt.Errorf("round %d was the last round and its deadline has passed", s.Round)
		}
		round++
		book = ns.Next
	}
	text := fmt.Sprintf("Your order for round %d: %s.", round, describeOrder(s, o))
	if old, ok := book[p]; ok && old != o {
		text += fmt.Sprintf(" (It replaces: %s.)", describeOrder(s, old))
	}
	book[p] = o
	return ns, []rules.Event{rules.PrivateEvent(p, "order", text)}, nil
}

// describeOrder is an order in words, for receipts and reports.
func describeOrder(s *State, o Order) string {
	switch o.Kind {
	case KindInvade:
		return "invade " + s.Seats.Name(o.Target)
	case KindDefend:
		if o.Target == "" {
			return "defend (no guess)"
		}
		return "defend, guessing " + s.Seats.Name(o.Target)
	case KindProsper:
		return "prosper"
	}
	return "nothing"
}
