package resistance

import (
	"errors"
	"fmt"
	"strings"

	"github.com/forumgm/forumgm/rules"
)

// Apply implements rules.Game.
func (g Game) Apply(st rules.State, c rules.Command) (rules.State, []rules.Event, error) {
	s := g.clone(st)
	p := c.Src.Player
	if s.Finished {
		return st, nil, errors.New("the game is over")
	}
	if !s.Seats.Has(p) {
		return st, nil, fmt.Errorf("%s is not a player in this game", p)
	}
	pub := c.Src.Channel == rules.Public
	arg := func(i int) string {
		if i < len(c.Args) {
			return c.Args[i]
		}
		return ""
	}
	var ev []rules.Event
	var err error
	switch c.Kind {
	case KindTeam:
		ev, err = s.propose(p, arg(0))
	case KindVote:
		err = s.vote(p, arg(0) == "approve", pub)
	case KindOrder:
		err = s.order(p, arg(0))
	case KindGive:
		ev, err = s.give(p, arg(0), arg(1), pub)
	case KindPlay:
		ev, err = s.play(p, arg(0), arg(1), pub)
	case KindOverhear:
		ev, err = s.overhear(p, arg(0))
	case KindOpenUp:
		ev, err = s.openUp(p, arg(0))
	default:
		err = fmt.Errorf("unknown command %q", c.Kind)
	}
	if err != nil {
		// Public notices (invalid proposals) are still delivered.
		return st, ev, err
	}
	return s, ev, nil
}

// propose handles TEAM. Every invalid proposal gets a short public notice.
func (s *State) propose(p, names string) ([]rules.Event, error) {
	fail := func(f string, a ...any) ([]rules.Event, error) {
		msg := fmt.Sprintf(f, a...)
		return []rules.Event{rules.PublicEvent("notice", fmt.Sprintf("Proposal by %s not accepted: %s.", s.Seats.Name(p), msg))}, errors.New(msg)
	}
	if p != s.Leader {
		return fail("only the leader, %s, proposes the team", s.Seats.Name(s.Leader))
	}
	if len(s.Dealt) > 0 {
		return fail("the mission's cards must be handed out first (%s)", strings.Join(s.Dealt, ", "))
	}
	if len(s.Votes) > 0 {
		return fail("the team is locked once the first vote is cast")
	}
	ids, err := s.Seats.MatchList(names)
	if err != nil {
		return fail("%s", rules.Esc(err.Error()))
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			return fail("%s is named twice", s.Seats.Name(id))
		}
		seen[id] = true
	}
	if len(ids) != s.teamSize() {
		return fail("mission %d needs exactly %d players, not %d", s.Mission, s.teamSize(), len(ids))
	}
	replaced := s.Team != nil
	s.Team = ids
	var ev []rules.Event
	// Orders and targeted plays belong to the team members; a replacement
	// drops those of players no longer on it.
	for id := range s.Orders {
		if !seen[id] {
			delete(s.Orders, id)
		}
	}
	var eyes []Play
	for _, e := range s.Eyes {
		if seen[e.Target] {
			eyes = append(eyes, e)
			continue
		}
		s.Hands[e.Holder] = append(s.Hands[e.Holder], CloseEye)
		ev = append(ev, rules.PrivateEvent(e.Holder, "card", fmt.Sprintf("%s is not on the new team: your %s card returns to your hand.", s.Seats.Name(e.Target), CloseEye)))
	}
	s.Eyes = eyes
	if s.Spot != nil && !seen[s.Spot.Target] {
		s.Hands[s.Spot.Holder] = append(s.Hands[s.Spot.Holder], Spotlight)
		ev = append(ev, rules.PublicEvent("card", fmt.Sprintf("%s is not on the new team: %s returns to %s's hand.", s.Seats.Name(s.Spot.Target), Spotlight, s.Seats.Name(s.Spot.Holder))))
		s.Spot = nil
	}
	verb := "proposes"
	if replaced {
		verb = "replaces the proposal with"
	}
	ev = append([]rules.Event{rules.PublicEvent("proposal", fmt.Sprintf("%s %s the team: [b]%s[/b] (mission %d, proposal %d). Vote [b]APPROVE[/b] or [b]REJECT[/b]; team members send SUPPORT or SABOTAGE by PM.",
		s.Seats.Name(p), verb, s.Seats.Names(ids), s.Mission, s.Proposal))}, ev...)
	return ev, nil
}

func (s *State) vote(p string, approve, pub bool) error {
	if s.Team == nil {
		return errors.New("no team has been proposed yet")
	}
	if old, ok := s.Votes[p]; ok && old.PM && pub {
		return errors.New(reasonPMStands)
	}
	s.Votes[p] = Vote{Approve: approve, PM: !pub}
	return nil
}

func (s *State) order(p, o string) error {
	if s.Team == nil {
		return errors.New("no team has been proposed yet: send your order once you are on a proposed team")
	}
	if !s.onTeam(p) {
		return errors.New("you are not on the proposed team")
	}
	if o == "sabotage" && s.Roles[p] != Spy {
		return errors.New("a resistance member cannot sabotage: your order counts as SUPPORT")
	}
	s.Orders[p] = o
	return nil
}

func (s *State) give(p, card, name string, pub bool) ([]rules.Event, error) {
	if !pub {
		return nil, errors.New("cards are handed out with a bold GIVE command in the thread, not by PM")
	}
	if p != s.Dealer || len(s.Dealt) == 0 {
		return nil, errors.New("you have no cards to hand out")
	}
	if !contains(s.Dealt, card) {
		return nil, fmt.Errorf("you were not dealt %s (still to give: %s)", card, strings.Join(s.Dealt, ", "))
	}
	to, err := s.Seats.Match(name)
	if err != nil {
		return nil, err
	}
	if to == p {
		return nil, errors.New("you cannot keep a card: give it to another player")
	}
	s.Dealt = remove(s.Dealt, card)
	ev := []rules.Event{rules.PublicEvent("give", fmt.Sprintf("%s gives [b]%s[/b] to %s.", s.Seats.Name(p), card, s.Seats.Name(to)))}
	switch card {
	case Successor:
		s.Nominee = to
		ev = append(ev, rules.PublicEvent("card", fmt.Sprintf("%s will lead the first proposal of the next mission.", s.Seats.Name(to))))
	case Overheard:
		a, b := s.adjacent(to)
		s.Pending[to] = append(s.Pending[to], Overheard)
		ev = append(ev, rules.PublicEvent("card", fmt.Sprintf("%s must now name a player next to them in the leader order (%s or %s) with [b]OVERHEAR name[/b] (in the thread or by PM), and will learn that player's role by PM.",
			s.Seats.Name(to), s.Seats.Name(a), s.Seats.Name(b))))
	case OpenUp:
		s.Pending[to] = append(s.Pending[to], OpenUp)
		ev = append(ev, rules.PublicEvent("card", fmt.Sprintf("%s must now name one other player with [b]OPEN UP TO name[/b] (in the thread or by PM); that player will learn %s's role by PM.",
			s.Seats.Name(to), s.Seats.Name(to))))
	case Confidence:
		ev = append(ev, s.learn(to, p, Confidence))
	default:
		s.Hands[to] = append(s.Hands[to], card)
	}
	if len(s.Dealt) == 0 {
		ev = append(ev, rules.PublicEvent("card", fmt.Sprintf("All cards are handed out: %s may propose the team.", s.Seats.Name(s.Leader))))
	}
	return ev, nil
}

// learn tells viewer the role of target by PM and records it.
func (s *State) learn(viewer, target, card string) rules.Event {
	if s.Known[viewer] == nil {
		s.Known[viewer] = map[string]string{}
	}
	s.Known[viewer][target] = s.Roles[target]
	return rules.PrivateEvent(viewer, "reveal", fmt.Sprintf("%s: %s is %s.", card, s.Seats.Name(target), roleText(s.Roles[target])))
}

// adjacent returns the players before and after id in the leader order.
func (s *State) adjacent(id string) (string, string) { return neighbours(s.Order, id) }

func (s *State) hasCard(p, card string) bool { return contains(s.Hands[p], card) }

func (s *State) spend(p, card string) { s.Hands[p] = remove(s.Hands[p], card) }

func (s *State) play(p, card, name string, pub bool) ([]rules.Event, error) {
	publicOnly := func() error {
		if !pub {
			return fmt.Errorf("%s must be declared in the thread, in bold", card)
		}
		return nil
	}
	switch card {
	case Successor, Overheard, Confidence, OpenUp:
		return nil, fmt.Errorf("%s takes effect when it is given; it is not played", card)
	case DoubleVote:
		if err := publicOnly(); err != nil {
			return nil, err
		}
		if !s.DoubleVotes[p] {
			return nil, errors.New("you have no Double Vote card left")
		}
	default:
		if !s.hasCard(p, card) {
			return nil, fmt.Errorf("you do not hold %s", card)
		}
	}
	switch card {
	case DoubleVote, Speech:
		if err := publicOnly(); err != nil {
			return nil, err
		}
		if s.Team == nil {
			return nil, fmt.Errorf("%s is played while a team is up for votes; none is yet", card)
		}
		if s.Doubled[p] {
			return nil, errors.New("your vote on this team already counts double")
		}
		s.Doubled[p] = true
		if card == DoubleVote {
			delete(s.DoubleVotes, p)
		} else {
			s.spend(p, card)
		}
		return []rules.Event{rules.PublicEvent("card", fmt.Sprintf("%s plays [b]%s[/b]: their vote on this team counts double.", s.Seats.Name(p), card))}, nil
	case StrongLeader:
		if err := publicOnly(); err != nil {
			return nil, err
		}
		return s.strongLeader(p)
	case CloseEye, Spotlight:
		if card == Spotlight {
			if err := publicOnly(); err != nil {
				return nil, err
			}
		}
		if s.Team == nil {
			return nil, fmt.Errorf("%s names a member of a proposed team; none is proposed yet", card)
		}
		if name == "" {
			return nil, fmt.Errorf("name a team member: PLAY %s ON name", card)
		}
		t, err := s.Seats.Match(name)
		if err != nil {
			return nil, err
		}
		if !s.onTeam(t) {
			return nil, fmt.Errorf("%s is not on the proposed team", s.Seats.Display(t))
		}
		s.spend(p, card)
		if card == CloseEye {
			s.Eyes = append(s.Eyes, Play{Holder: p, Target: t})
			if pub {
				return []rules.Event{rules.PublicEvent("card", fmt.Sprintf("%s plays [b]%s[/b] on %s.", s.Seats.Name(p), card, s.Seats.Name(t)))}, nil
			}
			return []rules.Event{rules.PrivateEvent(p, "card", fmt.Sprintf("If this team goes ahead you will learn %s's mission order.", s.Seats.Name(t)))}, nil
		}
		if s.Spot != nil {
			s.Hands[p] = append(s.Hands[p], card)
			return nil, errors.New("this team is already in the spotlight")
		}
		s.Spot = &Play{Holder: p, Target: t}
		return []rules.Event{rules.PublicEvent("card", fmt.Sprintf("%s plays [b]%s[/b] on %s: if this team goes ahead, %s's mission order will be revealed.", s.Seats.Name(p), card, s.Seats.Name(t), s.Seats.Name(t)))}, nil
	}
	return nil, fmt.Errorf("%s cannot be played", card)
}

// strongLeader: while a team is up for votes it claims the next proposal;
// while the bot waits for a proposal that is not the first of its mission it
// takes that proposal over at once.
func (s *State) strongLeader(p string) ([]rules.Event, error) {
	if s.StrongNext != "" {
		//lint:ignore ST1005 a reason shown to players; it starts with the card's name
		return nil, errors.New("Strong Leader has already been declared")
	}
	if s.Team != nil {
		s.StrongNext = p
		s.spend(p, StrongLeader)
		return []rules.Event{rules.PublicEvent("card", fmt.Sprintf("%s declares [b]%s[/b] and will lead the next proposal.", s.Seats.Name(p), StrongLeader))}, nil
	}
	if s.Proposal == 1 {
		return nil, errors.New("the first proposal of a mission cannot be taken over (its cards are already dealt); declare Strong Leader while a team is up for votes to lead the next one")
	}
	if p == s.Leader {
		return nil, errors.New("you are already the leader")
	}
	s.spend(p, StrongLeader)
	s.Override = p
	s.Leader = p
	return []rules.Event{rules.PublicEvent("card", fmt.Sprintf("%s declares [b]%s[/b] and takes over this proposal from %s, who leads the one after.", s.Seats.Name(p), StrongLeader, s.Seats.Name(s.Order[s.Turn])))}, nil
}

func (s *State) overhear(p, name string) ([]rules.Event, error) {
	if !contains(s.Pending[p], Overheard) {
		return nil, fmt.Errorf("you have no %s choice to make", Overheard)
	}
	t, err := s.Seats.Match(name)
	if err != nil {
		return nil, err
	}
	a, b := s.adjacent(p)
	if t != a && t != b {
		return nil, fmt.Errorf("%s is not next to you in the leader order (%s or %s)", s.Seats.Display(t), s.Seats.Display(a), s.Seats.Display(b))
	}
	s.Pending[p] = remove(s.Pending[p], Overheard)
	return []rules.Event{s.learn(p, t, Overheard)}, nil
}

func (s *State) openUp(p, name string) ([]rules.Event, error) {
	if !contains(s.Pending[p], OpenUp) {
		return nil, fmt.Errorf("you have no %s choice to make", OpenUp)
	}
	t, err := s.Seats.Match(name)
	if err != nil {
		return nil, err
	}
	if t == p {
		return nil, errors.New("name another player")
	}
	s.Pending[p] = remove(s.Pending[p], OpenUp)
	return []rules.Event{
		s.learn(t, p, OpenUp),
		rules.PrivateEvent(p, "card", fmt.Sprintf("%s: your role has been revealed to %s.", OpenUp, s.Seats.Name(t))),
	}, nil
}
