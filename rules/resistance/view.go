package resistance

import (
	"fmt"
	"strings"

	"github.com/forumgm/forumgm/rules"
)

// View is what one viewer may see. The public part is the same for
// everyone; the private part is empty for rules.Everyone. Names are slot ids.
type View struct {
	Viewer         string              `json:"viewer,omitempty"`
	Players        []string            `json:"players"`
	LeaderOrder    []string            `json:"leader_order"`
	Mission        int                 `json:"mission"`
	Proposal       int                 `json:"proposal"`
	TeamSize       int                 `json:"team_size"`
	FailsAt        int                 `json:"fails_at"` // sabotages that fail this mission
	Rejections     int                 `json:"rejections"`
	RejectionLimit int                 `json:"rejection_limit"`
	Leader         string              `json:"leader"`
	Team           []string            `json:"team,omitempty"`
	Locked         bool                `json:"locked"` // a vote has been cast on the team
	Waiting        []string            `json:"waiting"`
	Dealer         string              `json:"dealer,omitempty"`
	Dealt          []string            `json:"dealt,omitempty"` // cards still to be given
	DoubleVotes    []string            `json:"double_votes,omitempty"`
	Pending        map[string][]string `json:"pending,omitempty"` // choices owed (public: the GIVE was)
	Missions       []string            `json:"missions"`
	Sabotages      []int               `json:"sabotages"`
	Finished       bool                `json:"finished"`
	WinnerSide     string              `json:"winner_side,omitempty"`
	Roles          map[string]string   `json:"roles,omitempty"` // everyone's, once the game is over

	// Private to the viewer.
	Role       string            `json:"role,omitempty"`
	Known      map[string]string `json:"known,omitempty"` // roles the viewer knows (own included)
	Hand       []string          `json:"hand,omitempty"`
	DoubleVote bool              `json:"double_vote,omitempty"`
	MyVote     string            `json:"my_vote,omitempty"` // approve|reject
	MyVotePM   bool              `json:"my_vote_pm,omitempty"`
	MyOrder    string            `json:"my_order,omitempty"`
	Doubled    bool              `json:"doubled,omitempty"`
}

// View implements rules.Game.
func (Game) View(st rules.State, viewer string) any {
	s := st.(*State)
	v := View{
		Viewer:         viewer,
		Players:        s.Seats.IDs(),
		LeaderOrder:    append([]string{}, s.Order...),
		Mission:        s.Mission,
		Proposal:       s.Proposal,
		TeamSize:       s.teamSize(),
		FailsAt:        s.failsAt(),
		Rejections:     s.Rejections,
		RejectionLimit: s.RejectionLimit,
		Leader:         s.Leader,
		Team:           append([]string(nil), s.Team...),
		Locked:         len(s.Votes) > 0,
		Waiting:        Game{}.Status(s).Waiting,
		Dealer:         s.Dealer,
		Dealt:          append([]string(nil), s.Dealt...),
		Missions:       append([]string{}, s.Missions...),
		Sabotages:      append([]int{}, s.Sabotages...),
		Finished:       s.Finished,
		Pending:        map[string][]string{},
	}
	if len(s.Dealt) == 0 {
		v.Dealer = ""
	}
	for _, id := range s.Seats.IDs() {
		if s.DoubleVotes[id] {
			v.DoubleVotes = append(v.DoubleVotes, id)
		}
	}
	for id, p := range s.Pending {
		if len(p) > 0 {
			v.Pending[id] = append([]string(nil), p...)
		}
	}
	if s.Finished {
		v.WinnerSide = map[string]string{Spy: "spies", Resistance: "resistance"}[s.Winner]
		v.Roles = map[string]string{}
		for id, r := range s.Roles {
			v.Roles[id] = r
		}
	}
	if !s.Seats.Has(viewer) {
		return v
	}
	v.Role = s.Roles[viewer]
	v.Known = s.startKnowledge(viewer)
	for id, r := range s.Known[viewer] {
		v.Known[id] = r
	}
	v.Hand = append([]string(nil), s.Hands[viewer]...)
	v.DoubleVote = s.DoubleVotes[viewer]
	if vote, ok := s.Votes[viewer]; ok {
		v.MyVote = map[bool]string{true: "approve", false: "reject"}[vote.Approve]
		v.MyVotePM = vote.PM
	}
	v.MyOrder = s.Orders[viewer]
	v.Doubled = s.Doubled[viewer]
	return v
}

// Bot implements rules.Bot: a simulated player acting on its View only.
// About one move in ten is bad on purpose (wrong team size, unknown name,
// SABOTAGE in the thread, a vote inside a quote).
func (g Game) Bot(st rules.State, player string, r *rules.Rand) []rules.Move {
	v := g.View(st, player).(View)
	if v.Finished || v.Role == "" {
		return nil
	}
	b := &botTurn{v: v, player: player, r: r}
	b.owedChoices()
	switch {
	case v.Leader == player && v.Team == nil:
		b.lead()
	case v.Team != nil:
		// Cards first, so a Passionate Speech counts on this vote.
		b.playCards()
		b.sendOrder()
		b.vote()
	}
	return moves(b.pub, b.pm)
}

// botTurn is one simulated player's turn: what it sees, its dice, and the
// thread commands and PM lines chosen so far. The dice are thrown in a fixed
// order, so a seed replays the same game.
type botTurn struct {
	v       View
	player  string
	r       *rules.Rand
	pub, pm []string
}

func (b *botTurn) bad() bool { return b.r.IntN(10) == 0 }

func (b *botTurn) pick(xs []string) string { return xs[b.r.IntN(len(xs))] }

func (b *botTurn) others() []string { return remove(b.v.Players, b.player) }

// owedChoices makes the choices the player owes from immediate cards.
func (b *botTurn) owedChoices() {
	for _, c := range b.v.Pending[b.player] {
		switch c {
		case Overheard:
			before, after := neighbours(b.v.LeaderOrder, b.player)
			b.pm = append(b.pm, "OVERHEAR "+b.pick([]string{before, after}))
		case OpenUp:
			b.pm = append(b.pm, "OPEN UP TO "+b.pick(b.others()))
		}
	}
}

// neighbours returns the players before and after id in order.
func neighbours(order []string, id string) (string, string) {
	n := len(order)
	for i, x := range order {
		if x == id {
			return order[(i+n-1)%n], order[(i+1)%n]
		}
	}
	return "", ""
}

// lead hands out the dealt cards, then proposes a team, mostly with
// himself on it, now and then a bad one.
func (b *botTurn) lead() {
	for _, c := range b.v.Dealt {
		b.pub = append(b.pub, fmt.Sprintf("GIVE %s TO %s", c, b.pick(b.others())))
	}
	team := rules.Shuffled(b.r, b.v.Players)[:b.v.TeamSize]
	if !contains(team, b.player) && b.r.IntN(3) > 0 {
		team[0] = b.player
	}
	switch {
	case b.bad() && b.r.IntN(2) == 0:
		team = team[:len(team)-1] // wrong size
	case b.bad():
		team[len(team)-1] = "Nobody Atall" // unknown name
	}
	b.pub = append(b.pub, "TEAM: "+strings.Join(team, ", "))
}

// playCards plays, two times in three, each card held that can be played
// on a team up for votes, and now and then the Double Vote. Two in three:
// a card is dealt to one player a mission and a Speech has one chance per
// team, so at one in three whole games went by with no card played.
func (b *botTurn) playCards() {
	v := b.v
	for _, c := range v.Hand {
		if b.r.IntN(3) == 0 {
			continue
		}
		switch c {
		case Speech:
			if v.MyVote == "" && !v.Doubled {
				b.pub = append(b.pub, "PLAY Passionate Speech")
			}
		case StrongLeader:
			b.pub = append(b.pub, "PLAY Strong Leader")
		case CloseEye:
			b.pm = append(b.pm, "PLAY Close Eye ON "+b.pick(v.Team))
		case Spotlight:
			b.pub = append(b.pub, "PLAY In The Spotlight ON "+b.pick(v.Team))
		}
	}
	if v.DoubleVote && v.MyVote == "" && b.r.IntN(4) == 0 {
		b.pub = append(b.pub, "PLAY Double Vote")
	}
}

// sendOrder: a team member without an order sends one by PM (a spy
// sabotages half the time), now and then by mistake in the thread.
func (b *botTurn) sendOrder() {
	if !contains(b.v.Team, b.player) || b.v.MyOrder != "" {
		return
	}
	o := "SUPPORT"
	if b.v.Role == Spy && b.r.IntN(2) == 0 {
		o = "SABOTAGE"
	}
	if b.bad() {
		b.pub = append(b.pub, o) // an order in the thread: refused
	} else {
		b.pm = append(b.pm, o)
	}
}

// vote: a player who has not voted votes, in the thread, by PM, or now and
// then inside a quote, where it does not count.
func (b *botTurn) vote() {
	if b.v.MyVote != "" {
		return
	}
	vote := b.choose()
	switch {
	case b.bad():
		// A quoted vote never counts; the player votes again later.
		b.pub = append(b.pub, fmt.Sprintf("[quote=%s]I [b]%s[/b][/quote]", b.pick(b.others()), vote))
	case b.r.IntN(4) == 0:
		b.pm = append(b.pm, vote)
	default:
		b.pub = append(b.pub, "VOTE "+vote)
	}
}

// choose is the vote on the team: a spy mostly rejects a team without a
// known spy, resistance rejects one with a known spy, and otherwise one
// in four rejects.
func (b *botTurn) choose() string {
	spiesOn := 0
	for _, id := range b.v.Team {
		if b.v.Known[id] == Spy {
			spiesOn++
		}
	}
	switch {
	case b.v.Role == Spy && spiesOn == 0:
		if b.r.IntN(3) > 0 {
			return "REJECT"
		}
	case b.v.Role == Resistance && spiesOn > 0:
		return "REJECT"
	case b.r.IntN(4) == 0:
		return "REJECT"
	}
	return "APPROVE"
}

// moves wraps thread commands in bold (a segment already holding BBCode is
// kept as is) and PM lines into one PM.
func moves(pub, pm []string) []rules.Move {
	var out []rules.Move
	if len(pub) > 0 {
		parts := make([]string, len(pub))
		for i, p := range pub {
			if strings.HasPrefix(p, "[") {
				parts[i] = p
			} else {
				parts[i] = "[b]" + p + "[/b]"
			}
		}
		out = append(out, rules.Move{Text: strings.Join(parts, "\n")})
	}
	if len(pm) > 0 {
		out = append(out, rules.Move{Text: strings.Join(pm, "\n"), Private: true})
	}
	return out
}
