// Package rules owns the game contract every game engine implements, the
// registry of games, and the helpers they share (name matching, seeded
// randomness, options, BBCode escaping). Engines are pure: no I/O, no clock,
// no global state beyond the registry filled at init.
package rules

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

// Channel says where a command came from.
type Channel string

const (
	Public  Channel = "public"  // a post in the game thread (only bold text is read)
	Private Channel = "private" // a PM to the bot (every line is read)
)

// Source is who sent a command, where and when (by the forum's timestamp).
type Source struct {
	Player  string    `json:"player"`        // the player's slot id (see Roster)
	Channel Channel   `json:"channel"`       // public post or private message
	Time    time.Time `json:"time"`          // forum timestamp of the post/PM
	Ref     string    `json:"ref,omitempty"` // forum post/PM id, for the audit log
}

// Command is one parsed order. Kind and Args are game-specific but plain data,
// so the store can keep the command log and a game can be rebuilt from it.
type Command struct {
	Kind string   `json:"kind"`
	Args []string `json:"args,omitempty"`
	Text string   `json:"text"` // the segment as the player wrote it
	Src  Source   `json:"src"`
}

// Parsed is the outcome of reading one segment (a bold run of a post, or one
// line of a PM).
type Parsed struct {
	Cmd *Command // a command to Apply, or nil
	// Ignored: public text that is not a command at all (bold used for
	// emphasis). Recorded in the audit log, nobody is told.
	Ignored bool
	// Reject: a user-facing reason why this looks like a command but cannot be
	// one (gibberish in a PM, an order posted in the thread, ...).
	Reject string
}

// Audience of an event: Everyone (the thread) or one player by slot id.
const Everyone = ""

// Event is something the bot must tell: publicly (To == Everyone) or to one
// player by PM. Text is BBCode; every player-supplied string in it must have
// gone through Esc. The poster never looks at game state, only at events.
type Event struct {
	To   string `json:"to,omitempty"`
	Kind string `json:"kind"`
	Text string `json:"text"`
	// NotBefore, when set, holds the message back until that time (e.g. a
	// round report posted when the next round opens).
	NotBefore time.Time `json:"not_before,omitzero"`
}

// PublicEvent and PrivateEvent are shorthands.
func PublicEvent(kind, text string) Event { return Event{Kind: kind, Text: text} }
func PrivateEvent(to, kind, text string) Event {
	return Event{To: to, Kind: kind, Text: text}
}

// Config is what a game is set up from.
type Config struct {
	Players []string            // forum user names, in sign-up order; they become slot ids
	Aliases map[string][]string // GM-configured extra names per player
	Options Options             // the rulings' option names
	Setup   map[string]any      // optional fixed secrets instead of the seed's draw
	Seed    int64
	Start   time.Time // when the game opens (phase deadlines count from here)
}

// Status is the generic summary of a game the moderator, the CLI and replay
// need, without knowing the game.
type Status struct {
	Phase    string         `json:"phase"`    // stable id of the current phase, e.g. "round-2", "m3-p2"
	Title    string         `json:"title"`    // for people: "Round 2 of 5"
	Deadline time.Time      `json:"deadline"` // when the phase's time limit passes (zero: none)
	Waiting  []string       `json:"waiting"`  // players whose action the phase still waits for
	Acted    []string       `json:"acted"`    // players who have acted this phase
	Finished bool           `json:"finished"`
	Winners  []string       `json:"winners"`
	Scores   map[string]int `json:"scores,omitempty"`
	Out      []string       `json:"out"`
	// Extra holds game-specific result keys for `replay --json`
	// (winner_side, missions, sabotages, revealed, scans, ...).
	Extra map[string]any `json:"extra,omitempty"`
}

// State is a game's whole state. It must round-trip through encoding/json
// (the store keeps it as JSON) and must never be mutated in place by Apply or
// Resolve: they return a new value.
type State interface {
	Roster() *Roster
}

// Move is what a simulated player would send: a public post or a PM.
type Move struct {
	Text    string // BBCode for a post (commands in [b]), plain lines for a PM
	Private bool
}

// Game is the contract of one game engine.
type Game interface {
	Name() string
	// Setup draws the secrets from cfg.Seed (or takes cfg.Setup) and returns
	// the opening state and events (role PMs, the opening post).
	Setup(cfg Config) (State, []Event, error)
	// Parse reads one segment. The player is already known (src.Player).
	Parse(s State, text string, src Source) Parsed
	// Apply applies one command. A non-nil error is a user-facing rejection;
	// the state must then be unchanged, but the events returned are still
	// delivered (e.g. a public notice about an invalid proposal).
	Apply(s State, c Command) (State, []Event, error)
	// Due says whether the phase must resolve now (time limit passed, or
	// everyone has acted).
	Due(s State, now time.Time) bool
	// Resolve closes the current phase.
	Resolve(s State, now time.Time) (State, []Event)
	// End closes the game early at the GM's word (final reveal, standings).
	End(s State, now time.Time) (State, []Event)
	// SetDeadline moves the current phase's time limit (GM extend/pause).
	SetDeadline(s State, t time.Time) State
	// Status summarises the game.
	Status(s State) Status
	// View is what one viewer may see (a player's slot id, or Everyone).
	View(s State, viewer string) any
	// Decode reads a state written with json.Marshal.
	Decode(data []byte) (State, error)
}

// The optional capabilities below are asked of a Game with a type
// assertion, so a new game implements only what it wants to offer.

// Bot is a game whose players a program can play: simplayers (and through
// it the demo and the end-to-end tests) need it.
type Bot interface {
	Game
	// Bot returns what a simulated player would send now, using only what
	// View(s, player) shows. It may return nothing. Some moves may be bad on
	// purpose (when r says so) to exercise rejections.
	Bot(s State, player string, r *Rand) []Move
}

// Demo is a game `forumgm demo` can play: simulated players and a table set
// up to finish quickly.
type Demo interface {
	Bot
	// DemoTable is the demo's setup; at speed 1 the game takes about a
	// minute, at 2 half that.
	DemoTable(speed float64) DemoTable
}

// DemoTable is what the demo sets a game up with.
type DemoTable struct {
	Title   string         // the game thread's title
	Players []string       // the simulated players' forum names
	Options Options        // as in Config
	Setup   map[string]any // as in Config (nil: drawn from the seed)
}

// Drawer is a game with a map to picture: `replay --map-out` writes what
// Draw returns after every resolution.
type Drawer interface {
	Game
	// Draw pictures s after its turn-th resolution (0: as the game opened).
	Draw(s State, turn int) ([]Picture, error)
	// Turns is how many turns of s are resolved: Draw takes 0 to Turns.
	Turns(s State) int
}

// Charter is a Drawer whose pictures are a chart over the turns rather
// than a map of each (Nations' victory points over the rounds), and whose
// turn reports may be held back. A Drawer without it: each turn's map,
// shown at once, in every turn post (and the opening), under the words
// "The map after turn N".
type Charter interface {
	Drawer
	// Caption is what a thread post says with turn's public picture: a
	// title (plain words) and a key to read it by (BBCode, names escaped),
	// since the PNG carries no text. An empty title: no post shows that
	// turn's picture (a chart with nothing on it yet).
	Caption(s State, turn int) (title, key string)
	// ShownAt is when players may first see turn's public picture: when
	// that turn's report is posted (a break holds it back). Before then the
	// public page does not serve it, or the picture would tell what the
	// thread does not yet. Each picture holds every earlier turn's, so the
	// public page shows only the latest.
	ShownAt(s State, turn int) time.Time
}

// Picture is one image of a game's map.
type Picture struct {
	GM     bool   // shows what only the GM may see (never for players)
	Format string // the file extension: "svg", "png"
	Data   []byte
	// Alt says in words what the picture shows, for a reader who cannot
	// see it (the desk's alt text).
	Alt string
}

// Presenter is a game that lays out its own views for people: the desk's
// public page and the GM's view show the sections Present returns (see
// views.go) instead of the game's raw view, which holds field names and
// slot ids rather than anything a player would read.
type Presenter interface {
	Game
	// Present lays s out for v's audience. For everyone (v.GM false) it is
	// built only from what players may see: View(s, Everyone), and from
	// v.History what the thread was told as it happened. For the GM it
	// adds, in sections marked GM, what only the GM sees.
	Present(s State, v Viewing) []Section
}

var registry = map[string]Game{}

// Register adds a game to the registry; engines call it from init.
func Register(g Game) {
	if _, dup := registry[g.Name()]; dup {
		panic("rules: game registered twice: " + g.Name())
	}
	registry[g.Name()] = g
}

// Lookup finds a registered game by name.
func Lookup(name string) (Game, error) {
	g, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown game %q (known: %v)", name, Names())
	}
	return g, nil
}

// Names lists the registered games.
func Names() []string {
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Clone deep-copies a JSON-serialisable state through the game's Decode; a
// convenient way for an engine to honour "never mutate in place".
func Clone[T State](g Game, s T) T {
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("rules: state not serialisable: %v", err))
	}
	c, err := g.Decode(b)
	if err != nil {
		panic(fmt.Sprintf("rules: state does not decode: %v", err))
	}
	return c.(T)
}
