// Package protest is the engine of Protest (Allan Stagg, 1999): players scan
// a hex map for hidden sites and protest where they think one is. Rules:
// the original text as settled by the project's rulings; the rulings made
// here beyond them are in RULINGS.md.
//
// Game implements rules.Game and registers itself as "protest". Pictures and
// PicturesPNG draw the map after a turn (public and GM versions). The hex
// geometry lives in the hexmap subpackage.
package protest

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/protest/hexmap"
)

// Fixed numbers of the rules.
const (
	StartPP     = 10 // each player's Prestige Points at the start
	HitPoints   = 12 // PP for a successful protest, split between its protesters
	MaxRadius   = 5  // scan radius 1..MaxRadius
	Labels      = "ABCDE"
	MaxOrgName  = 60 // runes in an organisation name
	defaultCols = 26
	defaultRows = 20
)

// Outcomes of a protest.
const (
	Hit    = "hit"    // at an unrevealed site
	Miss   = "miss"   // not adjacent to any unrevealed site: PP lost, reported
	Silent = "silent" // adjacent to an unrevealed site: nothing, reported to nobody
)

// Game is the Protest engine.
type Game struct{}

func init() { rules.Register(Game{}) }

// Name is the registry name.
func (Game) Name() string { return "protest" }

// State is the whole game. Sites is secret until the end.
type State struct {
	Seats     *rules.Roster      `json:"roster"` // the player slots: ids, names shown, aliases
	Map       hexmap.Map         `json:"map"`
	Terrain   map[string]string  `json:"terrain,omitempty"` // hex name → kind (sea, land, …); picture only
	Sites     []string           `json:"sites"`             // every site, canonical hex names
	Revealed  []Reveal           `json:"revealed"`          // in reveal order
	Turn      int                `json:"turn"`
	Deadline  time.Time          `json:"deadline"`
	TurnHours float64            `json:"turn_hours"`
	Players   map[string]*Player `json:"players"` // each player's standing and pending orders, by slot id
	History   []TurnLog          `json:"history"` // one per resolved turn
	Finished  bool               `json:"finished"`
	EndReason string             `json:"end_reason,omitempty"`
	Winners   []string           `json:"winners,omitempty"`
}

// Roster is the player slots.
func (s *State) Roster() *rules.Roster { return s.Seats }

// Player is one player's standing and this turn's pending orders.
type Player struct {
	PP      int          `json:"pp"`
	Out     bool         `json:"out,omitempty"`
	OutTurn int          `json:"out_turn,omitempty"`
	Org     string       `json:"org,omitempty"` // organisation name as given (unescaped)
	Hits    int          `json:"hits"`          // successful protests
	Scans   []ScanOrder  `json:"scans,omitempty"`
	Protest string       `json:"protest,omitempty"`
	Results []ScanResult `json:"results,omitempty"` // resolved scans, all turns
}

// ScanOrder is one pending `L n HEX`.
type ScanOrder struct {
	Label  string `json:"label"`
	Radius int    `json:"radius"`
	Hex    string `json:"hex"`
}

// ScanResult is a resolved scan.
type ScanResult struct {
	Turn   int    `json:"turn"`
	Label  string `json:"label"`
	Radius int    `json:"radius"`
	Hex    string `json:"hex"`
	Count  int    `json:"count"`
}

// Reveal is a site revealed by successful protest.
type Reveal struct {
	Hex  string   `json:"hex"`
	Turn int      `json:"turn"`
	By   []string `json:"by"`
}

// TurnLog is what happened in one resolved turn.
type TurnLog struct {
	Turn     int            `json:"turn"`
	Protests []ProtestLog   `json:"protests"`
	NewOut   []string       `json:"new_out,omitempty"`
	PP       map[string]int `json:"pp"` // every player's PP after the turn
}

// ProtestLog is one resolved protest.
type ProtestLog struct {
	Player  string `json:"player"`
	Hex     string `json:"hex"`
	Outcome string `json:"outcome"` // Hit, Miss or Silent
	Delta   int    `json:"delta"`   // PP change (+ for a hit, − for a miss)
}

// Decode reads a state written with json.Marshal.
func (Game) Decode(data []byte) (rules.State, error) {
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	if s.Seats == nil {
		return nil, fmt.Errorf("protest: state has no roster")
	}
	// Resolution trusts every stored hex to be on the map: check it here once.
	if _, err := hexmap.New(s.Map.Columns, s.Map.Rows, s.Map.Layout); err != nil {
		return nil, fmt.Errorf("protest: state map: %v", err)
	}
	var hexes []string
	hexes = append(hexes, s.Sites...)
	for _, r := range s.Revealed {
		hexes = append(hexes, r.Hex)
	}
	for _, p := range s.Players {
		hexes = append(hexes, p.Protest)
		for _, o := range p.Scans {
			hexes = append(hexes, o.Hex)
		}
	}
	for _, h := range hexes {
		if _, err := s.Map.Parse(h); h != "" && err != nil {
			return nil, fmt.Errorf("protest: state: %v", err)
		}
	}
	return &s, nil
}

// clone copies what a step may change and shares what only grows: the
// history, the reveals and each player's scan results are never changed
// once appended (and are clipped, so an append never writes into an array
// an older state still reads), the terrain never after setup. A command
// then costs the same late in a long game as early (a JSON round trip per
// command made a long game quadratic).
func (g Game) clone(st rules.State) *State {
	s := st.(*State)
	c := *s
	if s.Seats != nil {
		c.Seats = s.Seats.Copy()
	}
	c.Sites = slices.Clone(s.Sites)
	c.Revealed = slices.Clip(s.Revealed)
	c.History = slices.Clip(s.History)
	c.Winners = slices.Clone(s.Winners)
	if s.Players != nil {
		c.Players = make(map[string]*Player, len(s.Players))
		for id, p := range s.Players {
			if p == nil {
				c.Players[id] = nil
				continue
			}
			np := *p
			np.Scans = slices.Clone(p.Scans)
			np.Results = slices.Clip(p.Results)
			c.Players[id] = &np
		}
	}
	return &c
}

// maxPlayers bounds min_players and max_players (a forum thread, not a
// stadium).
const maxPlayers = 100

var knownOptions = []string{"sites", "min_players", "max_players", "turn_hours", "layout", "columns", "rows"}

// Setup builds the map, places the sites (cfg.Setup or the seed) and opens turn 1.
func (g Game) Setup(cfg rules.Config) (rules.State, []rules.Event, error) {
	o := cfg.Options
	if err := o.Check(knownOptions...); err != nil {
		return nil, nil, err
	}
	minP, err := o.IntIn("min_players", 4, 1, maxPlayers)
	if err != nil {
		return nil, nil, err
	}
	maxP, err := o.IntIn("max_players", 8, 1, maxPlayers)
	if err != nil {
		return nil, nil, err
	}
	if n := len(cfg.Players); n < minP || n > maxP {
		return nil, nil, fmt.Errorf("protest needs %d to %d players, %d signed up", minP, maxP, n)
	}
	hours, err := o.Span("turn_hours", 48, time.Hour, false)
	if err != nil {
		return nil, nil, err
	}
	roster, err := rules.NewRoster(cfg.Players, cfg.Aliases)
	if err != nil {
		return nil, nil, err
	}
	m, terrain, err := setupMap(cfg)
	if err != nil {
		return nil, nil, err
	}
	sites, err := setupSites(cfg, m)
	if err != nil {
		return nil, nil, err
	}
	s := &State{
		Seats: roster, Map: m, Terrain: terrain, Sites: sites, Revealed: []Reveal{},
		Turn: 1, TurnHours: hours, Players: map[string]*Player{}, History: []TurnLog{},
	}
	s.Deadline = cfg.Start.Add(hoursDur(hours))
	for _, id := range roster.IDs() {
		s.Players[id] = &Player{PP: StartPP}
	}
	return s, []rules.Event{rules.PublicEvent("opening", openingText(s))}, nil
}

func hoursDur(h float64) time.Duration { return time.Duration(h * float64(time.Hour)) }

// setupMap reads setup.map {columns, rows, layout, terrain}, falling back to
// the options columns, rows and layout.
func setupMap(cfg rules.Config) (hexmap.Map, map[string]string, error) {
	cols, err := cfg.Options.Int("columns", defaultCols)
	if err != nil {
		return hexmap.Map{}, nil, err
	}
	rows, err := cfg.Options.Int("rows", defaultRows)
	if err != nil {
		return hexmap.Map{}, nil, err
	}
	layoutName := cfg.Options.String("layout", string(hexmap.OddQ))
	var terrainSpec any
	if raw, ok := cfg.Setup["map"]; ok && raw != nil {
		mm, ok := raw.(map[string]any)
		if !ok {
			return hexmap.Map{}, nil, fmt.Errorf("setup map must be {columns, rows, layout}")
		}
		for k, v := range mm {
			switch k {
			case "columns":
				if cols, err = anyInt(v); err != nil {
					return hexmap.Map{}, nil, fmt.Errorf("setup map columns: %v", err)
				}
			case "rows":
				if rows, err = anyInt(v); err != nil {
					return hexmap.Map{}, nil, fmt.Errorf("setup map rows: %v", err)
				}
			case "layout":
				layoutName = fmt.Sprint(v)
			case "terrain":
				terrainSpec = v
			default:
				return hexmap.Map{}, nil, fmt.Errorf("setup map: unknown key %q (known: columns, rows, layout, terrain)", k)
			}
		}
	}
	layout, err := hexmap.ParseLayout(layoutName)
	if err != nil {
		return hexmap.Map{}, nil, err
	}
	m, err := hexmap.New(cols, rows, layout)
	if err != nil {
		return hexmap.Map{}, nil, err
	}
	terrain, err := readTerrain(m, terrainSpec)
	return m, terrain, err
}

// readTerrain reads {kind: [HEX, ...]}: e.g. {sea: [A1, A2]}. Hexes not
// listed are land.
func readTerrain(m hexmap.Map, spec any) (map[string]string, error) {
	if spec == nil {
		return nil, nil
	}
	mm, ok := spec.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("setup map terrain must be {kind: [HEX, ...]}, e.g. {sea: [A1, A2]}")
	}
	out := map[string]string{}
	for kind, v := range mm {
		hexes, err := anyStrings(v)
		if err != nil {
			return nil, fmt.Errorf("setup map terrain %s: %v", kind, err)
		}
		for _, name := range hexes {
			h, err := m.Parse(name)
			if err != nil {
				return nil, fmt.Errorf("setup map terrain %s: %v", kind, err)
			}
			if prev, dup := out[h.Name()]; dup && prev != kind {
				return nil, fmt.Errorf("setup map terrain: %s is both %s and %s", h.Name(), prev, kind)
			}
			out[h.Name()] = strings.ToLower(kind)
		}
	}
	return out, nil
}

// setupSites takes setup.sites, else draws option sites distinct hexes.
func setupSites(cfg rules.Config, m hexmap.Map) ([]string, error) {
	if raw, ok := cfg.Setup["sites"]; ok && raw != nil {
		names, err := anyStrings(raw)
		if err != nil {
			return nil, fmt.Errorf("setup sites: %v", err)
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("setup sites is empty")
		}
		seen := map[string]bool{}
		var out []string
		for _, n := range names {
			h, err := m.Parse(n)
			if err != nil {
				return nil, fmt.Errorf("setup sites: %v", err)
			}
			if seen[h.Name()] {
				return nil, fmt.Errorf("setup sites: %s is listed twice", h.Name())
			}
			seen[h.Name()] = true
			out = append(out, h.Name())
		}
		return out, nil
	}
	n, err := cfg.Options.Int("sites", 15)
	if err != nil {
		return nil, err
	}
	all := m.All()
	if n < 1 || n > len(all) {
		return nil, fmt.Errorf("option sites: %d sites do not fit a map of %d hexes", n, len(all))
	}
	r := rules.NewRand(cfg.Seed, "protest/sites")
	var out []string
	for _, h := range rules.Shuffled(r, all)[:n] {
		out = append(out, h.Name())
	}
	return out, nil
}

func anyInt(v any) (int, error) { return rules.Options{"v": v}.Int("v", 0) }

// anyStrings reads a YAML/JSON list of strings, or one comma/space separated string.
func anyStrings(v any) ([]string, error) {
	switch x := v.(type) {
	case []string:
		return x, nil
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%v is not a hex name", e)
			}
			out = append(out, s)
		}
		return out, nil
	case string:
		return strings.FieldsFunc(x, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }), nil
	}
	return nil, fmt.Errorf("want a list of hex names, got %v", v)
}

// Due: the turn's time limit has passed. There is no "everyone has acted"
// early end: a player may refine orders until the deadline.
func (Game) Due(s rules.State, now time.Time) bool {
	st := s.(*State)
	return !st.Finished && !st.Deadline.IsZero() && !now.Before(st.Deadline)
}

// SetDeadline moves the current turn's time limit.
func (g Game) SetDeadline(s rules.State, t time.Time) rules.State {
	c := g.clone(s)
	c.Deadline = t
	return c
}

// Status is the generic summary.
func (Game) Status(s rules.State) rules.Status {
	st := s.(*State)
	out := rules.Status{
		Phase:  fmt.Sprintf("turn-%d", st.Turn),
		Title:  fmt.Sprintf("Turn %d", st.Turn),
		Scores: map[string]int{},
		Out:    []string{},
		Extra:  map[string]any{},
	}
	if st.Finished {
		out.Title = fmt.Sprintf("Game over after turn %d", st.Turn)
		out.Finished = true
		out.Winners = append([]string{}, st.Winners...)
	} else {
		out.Deadline = st.Deadline
	}
	scans := map[string][]ScanReport{}
	for _, id := range st.Seats.IDs() {
		p := st.Players[id]
		out.Scores[id] = p.PP
		if p.Out {
			out.Out = append(out.Out, id)
		} else if !st.Finished {
			if len(p.Scans) > 0 || p.Protest != "" {
				out.Acted = append(out.Acted, id)
			} else {
				out.Waiting = append(out.Waiting, id)
			}
		}
		for _, r := range p.Results {
			scans[id] = append(scans[id], ScanReport{Turn: r.Turn, Label: r.Label, Count: r.Count})
		}
	}
	revealed := []string{}
	for _, r := range st.Revealed {
		revealed = append(revealed, r.Hex)
	}
	out.Extra["revealed"] = revealed
	out.Extra["scans"] = scans
	return out
}

// ScanReport is one entry of Status.Extra["scans"][player].
type ScanReport struct {
	Turn  int    `json:"turn"`
	Label string `json:"label"`
	Count int    `json:"count"`
}

// isRevealed says whether hex name h is a revealed site.
func (s *State) isRevealed(h string) bool {
	for _, r := range s.Revealed {
		if r.Hex == h {
			return true
		}
	}
	return false
}

// hidden lists the sites not yet revealed.
func (s *State) hidden() []string {
	var out []string
	for _, x := range s.Sites {
		if !s.isRevealed(x) {
			out = append(out, x)
		}
	}
	return out
}

func (s *State) hex(name string) hexmap.Hex {
	h, err := s.Map.Parse(name)
	if err != nil {
		panic("protest: stored hex " + name + " is not on the map") // state invariant
	}
	return h
}

// who is a player's display name, with the organisation when given.
func (s *State) who(id string) string {
	n := s.Seats.Name(id)
	if org := s.Players[id].Org; org != "" {
		n += " (" + rules.Esc(org) + ")"
	}
	return n
}

// standings orders players by PP, then successful protests, then sign-up order.
func (s *State) standings() []string {
	ids := s.Seats.IDs()
	sort.SliceStable(ids, func(i, j int) bool {
		a, b := s.Players[ids[i]], s.Players[ids[j]]
		if a.PP != b.PP {
			return a.PP > b.PP
		}
		return a.Hits > b.Hits
	})
	return ids
}

// winners: most PP; tie → most successful protests; tie on both → shared.
func (s *State) winners() []string {
	ids := s.standings()
	top := s.Players[ids[0]]
	var out []string
	for _, id := range ids {
		if p := s.Players[id]; p.PP == top.PP && p.Hits == top.Hits {
			out = append(out, id)
		}
	}
	return out
}

// exampleHex is a hex for the examples in the rules post that is not a
// site, so an example is never read as a hint.
func (s *State) exampleHex() string {
	sites := map[string]bool{}
	for _, x := range s.Sites {
		sites[x] = true
	}
	centre := hexmap.Hex{Col: s.Map.Columns / 2, Row: s.Map.Rows / 2}
	for n := 0; n <= s.Map.Columns+s.Map.Rows; n++ {
		for _, h := range s.Map.Within(centre, n) {
			if !sites[h.Name()] {
				return h.Name()
			}
		}
	}
	// Every hex is a site: an example off the map cannot give anything away.
	return hexmap.Hex{Col: s.Map.Columns, Row: 0}.Name()
}

func openingText(s *State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[b]Protest begins.[/b]\n")
	fmt.Fprintf(&b, "Map: %d columns (A–%s) × %d rows (1–%d), layout %s. %d secret sites are hidden on it.\n",
		s.Map.Columns, hexmap.ColumnName(s.Map.Columns-1), s.Map.Rows, s.Map.Rows, s.Map.Layout, len(s.Sites))
	fmt.Fprintf(&b, "Players, %d Prestige Points each: %s.\n", StartPP, s.Seats.Names(s.Seats.IDs()))
	b.WriteString(strings.ReplaceAll(ordersHelp, "K10", s.exampleHex()))
	if m, err := s.mapText(0); err == nil {
		b.WriteString(m + "\n")
	}
	b.WriteString("Turn 1 orders by PM before the deadline below.")
	return b.String()
}

const ordersHelp = "Orders go to me by PM, one per line: up to five scans [b]L n HEX[/b] " +
	"(label A–E, radius 1–5, e.g. A 2 K10; a later order with the same label replaces the earlier) " +
	"and one [b]PROTEST HEX[/b] (a later one replaces the earlier). Orders posted in the thread do not count. " +
	"Name your organisation with [b]NAME: Friends of the Earth[/b] (here or by PM).\n"
