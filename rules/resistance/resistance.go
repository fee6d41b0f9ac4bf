// Package resistance is the rules engine for The Resistance, forum variant
// "Spies vs. Spies", with Double Vote cards at 5–6 players and Falc's reduced
// 10-card plot deck at 7–10, as settled by the project's rulings.
// The rulings this package had to add are in RULINGS.md.
package resistance

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/forumgm/forumgm/rules"
)

func init() { rules.Register(Game{}) }

// Game implements rules.Game for The Resistance.
type Game struct{}

// Roles.
const (
	Spy        = "spy"
	Resistance = "resistance"
)

// Card names, as printed.
const (
	StrongLeader = "Strong Leader"
	Successor    = "Successor Nomination"
	Speech       = "Passionate Speech"
	CloseEye     = "Keeping a Close Eye on You"
	Overheard    = "Overheard Conversation"
	Confidence   = "Establish Confidence"
	OpenUp       = "Open Up"
	Spotlight    = "In The Spotlight"
	DoubleVote   = "Double Vote"
)

// FullDeck is Falc's reduced card set used at 7–10 players.
var FullDeck = []string{StrongLeader, Successor, Speech, Speech, CloseEye, CloseEye, Overheard, Confidence, OpenUp, Spotlight}

var cardNames = []string{StrongLeader, Successor, Speech, CloseEye, Overheard, Confidence, OpenUp, Spotlight, DoubleVote}

// spyCount and teamSizes are the rulings' tables, by player count.
var spyCount = map[int]int{5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}

var teamSizes = map[int][5]int{
	5:  {2, 3, 2, 3, 3},
	6:  {2, 3, 4, 3, 4},
	7:  {2, 3, 3, 4, 4},
	8:  {3, 4, 4, 5, 5},
	9:  {3, 4, 4, 5, 5},
	10: {3, 4, 4, 5, 5},
}

// Vote is one player's vote on the open proposal.
type Vote struct {
	Approve bool `json:"approve"`
	PM      bool `json:"pm,omitempty"` // sent by PM: a thread vote no longer changes it
}

// Play is a targeted card play waiting for the mission (Close Eye, Spotlight).
type Play struct {
	Holder string `json:"holder"`
	Target string `json:"target"`
}

// State is the whole game. Player keys are slot ids.
type State struct {
	Seats          *rules.Roster `json:"roster"` // the player slots: ids, names shown, aliases
	RejectionLimit int           `json:"rejection_limit"`
	MissingVote    string        `json:"missing_vote"`
	// MissingProposal is what a leader's silence at the time limit is:
	// "pass" (also "", a state saved before the option existed) or "reject".
	MissingProposal string  `json:"missing_proposal"`
	PhaseHours      float64 `json:"phase_hours"`

	Roles map[string]string `json:"roles"`
	Chain []string          `json:"chain,omitempty"` // spy ring when chain spies are on
	Order []string          `json:"order"`           // leader order

	Turn     int    `json:"turn"`               // index in Order of whose regular turn it is
	Override string `json:"override,omitempty"` // leader who took Order[Turn]'s turn
	Leader   string `json:"leader"`

	Mission    int `json:"mission"`    // 1-based
	Proposal   int `json:"proposal"`   // 1-based within the mission
	Rejections int `json:"rejections"` // rejected proposals in this mission

	Team    []string          `json:"team,omitempty"` // nil: no valid proposal yet
	Votes   map[string]Vote   `json:"votes"`
	Orders  map[string]string `json:"orders"`  // "support"|"sabotage", team members only
	Doubled map[string]bool   `json:"doubled"` // vote counts double on this proposal
	Eyes    []Play            `json:"eyes,omitempty"`
	Spot    *Play             `json:"spot,omitempty"`

	Deck        []string                     `json:"deck"`
	Dealer      string                       `json:"dealer,omitempty"`
	Dealt       []string                     `json:"dealt,omitempty"` // not yet given
	Hands       map[string][]string          `json:"hands"`
	DoubleVotes map[string]bool              `json:"double_votes"` // unused Double Vote cards (5–6)
	StrongNext  string                       `json:"strong_next,omitempty"`
	Nominee     string                       `json:"nominee,omitempty"` // Successor Nomination holder
	Pending     map[string][]string          `json:"pending"`           // choices owed: Overheard / Open Up
	Known       map[string]map[string]string `json:"known"`             // viewer -> player -> role learned

	Missions  []string `json:"missions"`
	Sabotages []int    `json:"sabotages"`
	Missing   []string `json:"missing,omitempty"` // who had not voted at the last time-limit close

	Finished bool      `json:"finished"`
	Winner   string    `json:"winner,omitempty"` // Spy or Resistance side, "" when ended by the GM
	Opened   time.Time `json:"opened"`
	Deadline time.Time `json:"deadline"`
}

// Roster implements rules.State.
func (s *State) Roster() *rules.Roster { return s.Seats }

func (s *State) init() {
	if s.Votes == nil {
		s.Votes = map[string]Vote{}
	}
	if s.Orders == nil {
		s.Orders = map[string]string{}
	}
	if s.Doubled == nil {
		s.Doubled = map[string]bool{}
	}
	if s.Hands == nil {
		s.Hands = map[string][]string{}
	}
	if s.DoubleVotes == nil {
		s.DoubleVotes = map[string]bool{}
	}
	if s.Pending == nil {
		s.Pending = map[string][]string{}
	}
	if s.Known == nil {
		s.Known = map[string]map[string]string{}
	}
	if s.Roles == nil {
		s.Roles = map[string]string{}
	}
	if s.Seats == nil {
		s.Seats = &rules.Roster{}
	}
}

// Name implements rules.Game.
func (Game) Name() string { return "resistance" }

// Decode implements rules.Game.
func (Game) Decode(data []byte) (rules.State, error) {
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	s.init()
	return &s, nil
}

func (g Game) clone(st rules.State) *State {
	return rules.Clone(g, st.(*State))
}

// maxRejectionLimit bounds rejection_limit: more rejected proposals in a
// row than this is no longer a game a forum would play to the end.
const maxRejectionLimit = 100

// Options known to the game, with their defaults.
var optionNames = []string{"chain_spies", "rejection_limit", "missing_vote", "missing_proposal", "phase_hours"}

// Setup implements rules.Game: the options, then the secrets (roles, the
// chain spies' ring, the leader order, the deck), each fixed by cfg.Setup or
// drawn from the seed, then the role PMs and the opening post.
func (g Game) Setup(cfg rules.Config) (rules.State, []rules.Event, error) {
	n := len(cfg.Players)
	if n < 5 || n > 10 {
		//lint:ignore ST1005 shown to the GM; it starts with the game's name
		return nil, nil, fmt.Errorf("The Resistance needs 5 to 10 players, not %d", n)
	}
	if err := cfg.Options.Check(optionNames...); err != nil {
		return nil, nil, err
	}
	r, err := rules.NewRoster(cfg.Players, cfg.Aliases)
	if err != nil {
		return nil, nil, err
	}
	s := &State{Seats: r}
	s.init()
	chain, err := s.readOptions(cfg.Options)
	if err != nil {
		return nil, nil, err
	}
	if err := s.dealRoles(cfg); err != nil {
		return nil, nil, err
	}
	if chain {
		if s.Chain, err = fixedOrDrawn(cfg, r, "chain", s.side(Spy), "every spy"); err != nil {
			return nil, nil, err
		}
	}
	if s.Order, err = fixedOrDrawn(cfg, r, "leader_order", r.IDs(), "every player"); err != nil {
		return nil, nil, err
	}
	if err := s.dealCards(cfg); err != nil {
		return nil, nil, err
	}

	s.Mission, s.Proposal = 1, 1
	s.Leader = s.Order[0]
	s.Opened = cfg.Start
	s.Deadline = s.deadlineFrom(cfg.Start)

	var ev []rules.Event
	for _, id := range r.IDs() {
		ev = append(ev, rules.PrivateEvent(id, "role", s.rolePM(id)))
	}
	ev = append(ev, rules.PublicEvent("opening", s.openingText(chain)))
	ev = append(ev, s.openProposal(true)...)
	return s, ev, nil
}

// readOptions checks and keeps the GM's options; it says whether chain
// spies are on, which auto decides by the player count.
func (s *State) readOptions(o rules.Options) (chain bool, err error) {
	if s.RejectionLimit, err = o.IntIn("rejection_limit", 5, 1, maxRejectionLimit); err != nil {
		return false, err
	}
	s.MissingVote = o.String("missing_vote", "abstain")
	if s.MissingVote != "abstain" && s.MissingVote != "reject" {
		return false, fmt.Errorf("option missing_vote must be abstain or reject, not %q", s.MissingVote)
	}
	s.MissingProposal = o.String("missing_proposal", "pass")
	if s.MissingProposal != "pass" && s.MissingProposal != "reject" {
		return false, fmt.Errorf("option missing_proposal must be pass or reject, not %q", s.MissingProposal)
	}
	if s.PhaseHours, err = o.Span("phase_hours", 48, time.Hour, false); err != nil {
		return false, err
	}
	switch c := o.String("chain_spies", "auto"); c {
	case "auto":
		return len(s.Seats.IDs()) == 10, nil
	case "on", "off":
		return c == "on", nil
	default:
		return false, fmt.Errorf("option chain_spies must be auto, on or off, not %q", c)
	}
}

// dealRoles gives every player a role: those of cfg.Setup's roles, or the
// table's number of spies drawn from the seed.
func (s *State) dealRoles(cfg rules.Config) error {
	ids := s.Seats.IDs()
	raw, ok := cfg.Setup["roles"]
	if !ok {
		for i, id := range rules.Shuffled(rules.NewRand(cfg.Seed, "roles"), ids) {
			s.Roles[id] = map[bool]string{true: Spy, false: Resistance}[i < spyCount[len(ids)]]
		}
		return nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("setup roles must map each player to spy or resistance")
	}
	for name, v := range m {
		id, role, err := s.fixedRole(name, v)
		if err != nil {
			return err
		}
		s.Roles[id] = role
	}
	return s.checkRoles()
}

// fixedRole reads one entry of cfg.Setup's roles.
func (s *State) fixedRole(name string, v any) (id, role string, err error) {
	if id, err = s.Seats.Match(name); err != nil {
		return "", "", fmt.Errorf("setup roles: %v", err)
	}
	role = strings.ToLower(strings.TrimSpace(fmt.Sprint(v)))
	if role == "spies" {
		role = Spy
	}
	if role != Spy && role != Resistance {
		return "", "", fmt.Errorf("setup roles: %s must be spy or resistance, not %q", name, v)
	}
	return id, role, nil
}

// checkRoles: fixed roles must name every player and give the table's
// number of spies.
func (s *State) checkRoles() error {
	n, spies := len(s.Seats.IDs()), 0
	for _, id := range s.Seats.IDs() {
		switch s.Roles[id] {
		case "":
			return fmt.Errorf("setup roles: no role for %s", id)
		case Spy:
			spies++
		}
	}
	if spies != spyCount[n] {
		return fmt.Errorf("setup roles: %d players need %d spies, not %d", n, spyCount[n], spies)
	}
	return nil
}

// fixedOrDrawn is cfg.Setup's list under key, which must hold each of set
// once (what names them in the error), or else set in an order drawn from
// the seed under the same key.
func fixedOrDrawn(cfg rules.Config, r *rules.Roster, key string, set []string, what string) ([]string, error) {
	raw, ok := cfg.Setup[key]
	if !ok {
		return rules.Shuffled(rules.NewRand(cfg.Seed, key), set), nil
	}
	names, err := nameList(r, raw, key)
	if err != nil {
		return nil, err
	}
	if !sameSet(names, set) {
		return nil, fmt.Errorf("setup %s must list %s once", key, what)
	}
	return names, nil
}

// dealCards gives 5–6 players a Double Vote each, and builds the plot deck
// at 7+.
func (s *State) dealCards(cfg rules.Config) error {
	if len(s.Seats.IDs()) < 7 {
		for _, id := range s.Seats.IDs() {
			s.DoubleVotes[id] = true
		}
		return nil
	}
	deck, err := buildDeck(cfg)
	if err != nil {
		return err
	}
	s.Deck = deck
	return nil
}

// openingText is the opening post before its first proposal: sides, leader
// order, team sizes, cards, the rejection limit and how to play.
func (s *State) openingText(chain bool) string {
	n := len(s.Seats.IDs())
	var b strings.Builder
	fmt.Fprintf(&b, "[b]The Resistance: Spies vs. Spies[/b] — %d players.\n", n)
	fmt.Fprintf(&b, "Sides: %d resistance, %d spies. Roles have been sent by PM.\n", n-spyCount[n], spyCount[n])
	if chain {
		b.WriteString("Chain spies are in effect: each spy knows only one other spy.\n")
	}
	fmt.Fprintf(&b, "Leader order: %s.\n", s.Seats.Names(s.Order))
	fmt.Fprintf(&b, "Team sizes: %s", sizesText(n))
	if n >= 7 {
		b.WriteString(" (* the 4th mission fails only with 2 or more sabotages)")
	}
	b.WriteString(".\n")
	if n < 7 {
		b.WriteString("Every player holds one Double Vote card (PLAY Double Vote in the thread while a team is up for votes).\n")
	}
	fmt.Fprintf(&b, "Proposals rejected %d times in one mission give the game to the spies.\n", s.RejectionLimit)
	b.WriteString(s.howToPlay())
	return strings.TrimRight(b.String(), "\n")
}

func sizesText(n int) string {
	t := teamSizes[n]
	parts := make([]string, 5)
	for i, k := range t {
		parts[i] = fmt.Sprint(k)
		if i == 3 && n >= 7 {
			parts[i] += "*"
		}
	}
	return strings.Join(parts, "-")
}

func buildDeck(cfg rules.Config) ([]string, error) {
	left := map[string]int{}
	for _, c := range FullDeck {
		left[c]++
	}
	var deck []string
	if raw, ok := cfg.Setup["deck"]; ok {
		list, ok := anyList(raw)
		if !ok {
			return nil, fmt.Errorf("setup deck must be a list of card names")
		}
		for _, x := range list {
			c, err := matchCard(x)
			if err != nil || c == DoubleVote {
				return nil, fmt.Errorf("setup deck: %q is not a plot card", x)
			}
			if left[c] == 0 {
				return nil, fmt.Errorf("setup deck: too many %s cards", c)
			}
			left[c]--
			deck = append(deck, c)
		}
	}
	// Cards the setup did not place follow in seeded order.
	var rest []string
	for _, c := range FullDeck {
		if left[c] > 0 {
			left[c]--
			rest = append(rest, c)
		}
	}
	return append(deck, rules.Shuffled(rules.NewRand(cfg.Seed, "deck"), rest)...), nil
}

func anyList(raw any) ([]string, bool) {
	switch x := raw.(type) {
	case []string:
		return x, true
	case []any:
		out := make([]string, len(x))
		for i, v := range x {
			out[i] = fmt.Sprint(v)
		}
		return out, true
	}
	return nil, false
}

func nameList(r *rules.Roster, raw any, what string) ([]string, error) {
	list, ok := anyList(raw)
	if !ok {
		return nil, fmt.Errorf("setup %s must be a list of player names", what)
	}
	out := make([]string, len(list))
	for i, x := range list {
		id, err := r.Match(x)
		if err != nil {
			return nil, fmt.Errorf("setup %s: %v", what, err)
		}
		out[i] = id
	}
	return out, nil
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		if seen[x] != 1 {
			return false
		}
		seen[x] = 2
	}
	return true
}

func (s *State) deadlineFrom(t time.Time) time.Time {
	return t.Add(time.Duration(s.PhaseHours * float64(time.Hour)))
}

// side lists the players of one side in roster order.
func (s *State) side(role string) []string {
	var out []string
	for _, id := range s.Seats.IDs() {
		if s.Roles[id] == role {
			out = append(out, id)
		}
	}
	return out
}

func roleText(role string) string {
	if role == Spy {
		return "a SPY"
	}
	return "a member of the RESISTANCE"
}

func (s *State) rolePM(id string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s.", roleText(s.Roles[id]))
	if s.Roles[id] == Spy {
		if len(s.Chain) > 0 {
			next := s.chainNext(id)
			fmt.Fprintf(&b, "\nChain spies are in effect: the spies form a one-way ring and each knows only the next. The spy you know: %s.", s.Seats.Name(next))
		} else {
			var others []string
			for _, o := range s.side(Spy) {
				if o != id {
					others = append(others, o)
				}
			}
			fmt.Fprintf(&b, "\nThe other spies: %s.", s.Seats.Names(others))
		}
		b.WriteString("\nOn a mission you may SUPPORT or SABOTAGE (by PM); with no order you SABOTAGE.")
	} else {
		b.WriteString("\nOn a mission you SUPPORT (by PM); a resistance member cannot sabotage.")
	}
	if s.DoubleVotes[id] {
		b.WriteString("\nYou hold one Double Vote card: post [b]PLAY Double Vote[/b] in the thread while a team is up for votes and your vote on it counts twice.")
	}
	return b.String()
}

func (s *State) chainNext(id string) string {
	for i, x := range s.Chain {
		if x == id {
			return s.Chain[(i+1)%len(s.Chain)]
		}
	}
	return ""
}

// knownRoles is what a player knows of the others' roles at the start.
func (s *State) startKnowledge(id string) map[string]string {
	out := map[string]string{id: s.Roles[id]}
	if s.Roles[id] != Spy {
		return out
	}
	if len(s.Chain) > 0 {
		out[s.chainNext(id)] = Spy
		return out
	}
	for _, o := range s.side(Spy) {
		out[o] = Spy
	}
	return out
}

func (s *State) n() int { return len(s.Order) }

// TeamSize is the size of the current mission's team.
func (s *State) teamSize() int { return teamSizes[s.n()][s.Mission-1] }

// failsAt is how many sabotages fail the current mission.
func (s *State) failsAt() int {
	if s.Mission == 4 && s.n() >= 7 {
		return 2
	}
	return 1
}

func (s *State) onTeam(id string) bool { return contains(s.Team, id) }

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func remove(xs []string, x string) []string {
	for i, y := range xs {
		if y == x {
			out := append([]string(nil), xs[:i]...)
			return append(out, xs[i+1:]...)
		}
	}
	return xs
}

// openProposal announces the proposal that just opened (and deals the
// mission's cards to its first leader at 7+ players).
func (s *State) openProposal(newMission bool) []rules.Event {
	var b strings.Builder
	fmt.Fprintf(&b, "[b]Mission %d, proposal %d.[/b] Leader: %s", s.Mission, s.Proposal, s.Seats.Name(s.Leader))
	if s.Override != "" {
		fmt.Fprintf(&b, " (in place of %s, who leads the proposal after)", s.Seats.Name(s.Order[s.Turn]))
	}
	fmt.Fprintf(&b, ". Team size: %d", s.teamSize())
	if s.failsAt() == 2 {
		b.WriteString(" (this mission fails only with 2 or more sabotages)")
	}
	b.WriteString(".")
	if s.Rejections > 0 {
		fmt.Fprintf(&b, " Rejected proposals this mission: %d of %d.", s.Rejections, s.RejectionLimit)
	}
	if newMission && len(s.Deck) > 0 {
		k := min(2, len(s.Deck))
		s.Dealt = append([]string(nil), s.Deck[:k]...)
		s.Deck = append([]string(nil), s.Deck[k:]...)
		s.Dealer = s.Leader
		fmt.Fprintf(&b, "\nCards dealt to %s: %s. Each goes to another player with [b]GIVE card TO name[/b]; the team can be proposed once both are given.",
			s.Seats.Name(s.Leader), strings.Join(s.Dealt, " and "))
	}
	return []rules.Event{rules.PublicEvent("proposal-open", b.String())}
}

// SortedIDs returns ids in roster order.
func (s *State) rosterOrder(ids map[string]bool) []string {
	var out []string
	for _, id := range s.Seats.IDs() {
		if ids[id] {
			out = append(out, id)
		}
	}
	return out
}

func (s *State) voted() []string {
	m := map[string]bool{}
	for id := range s.Votes {
		m[id] = true
	}
	return s.rosterOrder(m)
}

func (s *State) notVoted() []string {
	var out []string
	for _, id := range s.Seats.IDs() {
		if _, ok := s.Votes[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// howToPlay is the opening post's guide to the commands, as the other games'
// openings have: only bold text in the thread counts, PMs line by line.
func (s *State) howToPlay() string {
	missing := "does not count either way"
	if s.MissingVote == "reject" {
		missing = "counts as REJECT"
	}
	var b strings.Builder
	b.WriteString("\n[b]How to play[/b] (only [b]bold[/b] text in the thread counts; in a PM to me every line counts):\n")
	silence := "; the rejection count does not grow"
	if s.MissingProposal == "reject" {
		silence = ", and it counts as a rejected proposal"
	}
	fmt.Fprintf(&b, "- [b]Propose[/b]: the leader posts the team in the thread, e.g. [b]TEAM: Ann, Ben[/b], with as many names as the team size. Posting a new team replaces the proposal until the first vote. A leader who has posted no team by the deadline loses the turn to the next leader%s.\n", silence)
	fmt.Fprintf(&b, "- [b]Vote[/b]: everyone votes on the proposed team in the thread with [b]APPROVE[/b] or [b]REJECT[/b] (or by PM; a vote by PM stands over one in the thread). A missing vote %s. The proposal closes once everyone has voted, or at the deadline.\n", missing)
	b.WriteString("- [b]Mission[/b]: if the team is approved, each team member sends me [b]SUPPORT[/b] or [b]SABOTAGE[/b] by PM, never in the thread. Only spies may sabotage.\n")
	b.WriteString("- [b]Cards[/b]: when plot cards are dealt to the leader of a new mission, the leader hands each to another player with [b]GIVE card TO name[/b]; play a card you hold with [b]PLAY card[/b], or [b]PLAY card ON name[/b] when it names a player. What each card does is in your PM when you get it.\n")
	b.WriteString("Every phase post ends with its deadline.\n")
	return b.String()
}
