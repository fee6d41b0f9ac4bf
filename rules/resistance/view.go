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
	bad := func() bool { return r.IntN(10) == 0 }
	var pub, pm []string
	others := func() []string {
		var out []string
		for _, id := range v.Players {
			if id != player {
				out = append(out, id)
			}
		}
		return out
	}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }

	// Choices owed from immediate cards.
	for _, c := range v.Pending[player] {
		switch c {
		case Overheard:
			n := len(v.LeaderOrder)
			for i, id := range v.LeaderOrder {
				if id == player {
					adj := []string{v.LeaderOrder[(i+n-1)%n], v.LeaderOrder[(i+1)%n]}
					pm = append(pm, "OVERHEAR "+pick(adj))
				}
			}
		case OpenUp:
			pm = append(pm, "OPEN UP TO "+pick(others()))
		}
	}

	// The leader hands out the cards, then proposes.
	if v.Leader == player && v.Team == nil {
		for _, c := range v.Dealt {
			pub = append(pub, fmt.Sprintf("GIVE %s TO %s", c, pick(others())))
		}
		team := rules.Shuffled(r, v.Players)[:v.TeamSize]
		if !contains(team, player) && r.IntN(3) > 0 {
			team[0] = player
		}
		switch {
		case bad() && r.IntN(2) == 0:
			team = team[:len(team)-1] // wrong size
		case bad():
			team[len(team)-1] = "Nobody Atall" // unknown name
		}
		pub = append(pub, "TEAM: "+strings.Join(team, ", "))
		return moves(pub, pm)
	}

	if v.Team != nil {
		// Cards first, so a Passionate Speech counts on this vote.
		for _, c := range v.Hand {
			if r.IntN(3) != 0 {
				continue
			}
			switch c {
			case Speech:
				if v.MyVote == "" && !v.Doubled {
					pub = append(pub, "PLAY Passionate Speech")
				}
			case StrongLeader:
				pub = append(pub, "PLAY Strong Leader")
			case CloseEye:
				pm = append(pm, "PLAY Close Eye ON "+pick(v.Team))
			case Spotlight:
				pub = append(pub, "PLAY In The Spotlight ON "+pick(v.Team))
			}
		}
		if v.DoubleVote && v.MyVote == "" && r.IntN(4) == 0 {
			pub = append(pub, "PLAY Double Vote")
		}
		if contains(v.Team, player) && v.MyOrder == "" {
			o := "SUPPORT"
			if v.Role == Spy && r.IntN(2) == 0 {
				o = "SABOTAGE"
			}
			if bad() {
				pub = append(pub, o) // an order in the thread: refused
			} else {
				pm = append(pm, o)
			}
		}
		if v.MyVote == "" {
			vote := "APPROVE"
			spiesOn := 0
			for _, id := range v.Team {
				if v.Known[id] == Spy {
					spiesOn++
				}
			}
			switch {
			case v.Role == Spy && spiesOn == 0:
				if r.IntN(3) > 0 {
					vote = "REJECT"
				}
			case v.Role == Resistance && spiesOn > 0:
				vote = "REJECT"
			case r.IntN(4) == 0:
				vote = "REJECT"
			}
			switch {
			case bad():
				// A quoted vote never counts; the player votes again later.
				return moves(append(pub, fmt.Sprintf("[quote=%s]I [b]%s[/b][/quote]", pick(others()), vote)), pm)
			case r.IntN(4) == 0:
				pm = append(pm, vote)
			default:
				pub = append(pub, "VOTE "+vote)
			}
		}
	}
	return moves(pub, pm)
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
