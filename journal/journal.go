// Package journal is a game's journal: the record every rebuild of its
// state starts from. A game's state is its rules' setup from the game's
// seed, then every journal entry that stands, replayed in order (Replay).
//
// Each entry has a kind (Kind) and the one payload type of that kind
// (Command, Resolve, Deadline, Replace, End), written by New and read back
// by Decode: one encoding each, the one the store has always held (the
// kind strings and JSON shapes of existing databases' rows), so old rows
// replay as they are. The moderator appends entries in its steps
// (store.Changes) and rebuilds with Replay; the tests' oracles replay the
// same journal strictly (Strict), so any entry the moderator wrote that a
// rebuild would pass over is an error there.
package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// Kind names what an entry records. Its values are the strings the store
// keeps.
type Kind string

const (
	KindCommand  Kind = "command"  // an accepted command (Command)
	KindResolve  Kind = "resolve"  // a phase closed at the entry's time (Resolve)
	KindDeadline Kind = "deadline" // the current phase's deadline moved (Deadline)
	KindReplace  Kind = "replace"  // a player replaced by another account (Replace)
	KindEnd      Kind = "end"      // the GM ended the game at the entry's time (End)
)

// Entry is one step of a game's history as the store keeps it.
type Entry struct {
	Seq       int64 // 1, 2, … per game
	GameID    int64
	Kind      Kind
	Payload   []byte    // the kind's payload as JSON (nil for End)
	CommandID int64     // the audit log's command a KindCommand entry is for (0: none)
	Time      time.Time // when it took effect (a resolution's close, a command's message)
	Voided    bool      // its command was voided or superseded: replay passes it over
}

// Payload is an entry's content: one of Command, Resolve, Deadline,
// Replace and End.
type Payload interface{ kind() Kind }

// Command is an accepted command, as the rules applied it; its JSON is
// the rules.Command's.
type Command struct{ rules.Command }

// Resolve is the close of a phase: its name, and its title as posts wrote
// it.
type Resolve struct {
	Phase string `json:"phase"`
	Title string `json:"title"`
}

// Deadline is the current phase's deadline moved to Deadline (a GM's
// extend, an outage, the board's unit, the opening post's delay).
type Deadline struct {
	Deadline time.Time `json:"deadline"`
}

// Replace is a player's slot moved from the account Old to New.
type Replace struct {
	Old string `json:"Old"`
	New string `json:"New"`
}

// End is the GM's end of the game; it has no payload.
type End struct{}

func (Command) kind() Kind  { return KindCommand }
func (Resolve) kind() Kind  { return KindResolve }
func (Deadline) kind() Kind { return KindDeadline }
func (Replace) kind() Kind  { return KindReplace }
func (End) kind() Kind      { return KindEnd }

// KindOf is the kind of entry a payload makes.
func KindOf(p Payload) Kind { return p.kind() }

// New is the entry of game gameID that records p, taking effect at at.
func New(gameID int64, at time.Time, p Payload) Entry {
	e := Entry{GameID: gameID, Kind: p.kind(), Time: at}
	if _, end := p.(End); !end {
		b, err := json.Marshal(p)
		if err != nil {
			panic(fmt.Sprintf("journal: encoding a %s: %v", p.kind(), err)) // plain data: cannot happen
		}
		e.Payload = b
	}
	return e
}

// ErrUnknownKind: an entry of a kind this version does not know (written
// by a newer one). Replay passes over it, or in Strict mode fails.
var ErrUnknownKind = errors.New("unknown journal entry kind")

// Decode is the entry's payload as its kind's type (a value, not a
// pointer: Command, Resolve, …).
func (e Entry) Decode() (Payload, error) { return Decode(e.Kind, e.Payload) }

// Decode reads a payload of kind k.
func Decode(k Kind, payload []byte) (Payload, error) {
	var p Payload
	var err error
	switch k {
	case KindCommand:
		p, err = decode[Command](payload)
	case KindResolve:
		p, err = decode[Resolve](payload)
	case KindDeadline:
		p, err = decode[Deadline](payload)
	case KindReplace:
		p, err = decode[Replace](payload)
	case KindEnd:
		return End{}, nil
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownKind, k)
	}
	if err != nil {
		return nil, fmt.Errorf("a %s entry: %w", k, err)
	}
	return p, nil
}

func decode[P Payload](payload []byte) (Payload, error) {
	var p P
	err := json.Unmarshal(payload, &p)
	return p, err
}

// Mode is how Replay meets an entry it cannot replay.
type Mode int

const (
	// Lenient is the moderator's rebuild: a command that no longer applies
	// (an edit or a GM's void took away what it was accepted on) is passed
	// over, as is an entry of a kind this version does not know.
	Lenient Mode = iota
	// Strict is the tests' oracle: every standing entry must replay (a
	// known kind, a payload that decodes, a command that applies).
	Strict
)

// Replay rebuilds a game's state: its rules' setup from cfg (the seed),
// then every entry that stands (not Voided), in order. An undecodable
// payload of a known kind is an error in either mode.
func Replay(g rules.Game, cfg rules.Config, entries []Entry, mode Mode) (rules.State, error) {
	return walk(g, cfg, entries, mode, nil)
}

// Moments is Replay keeping the game's own steps: each command that
// applied, each resolution and the GM's end, with the states around it
// (the desk draws a game's history from them). A deadline moved or a
// player replaced changes the state without being a step of the game.
func Moments(g rules.Game, cfg rules.Config, entries []Entry, mode Mode) ([]rules.Moment, error) {
	var out []rules.Moment
	_, err := walk(g, cfg, entries, mode, func(before, after rules.State, at time.Time, p Payload) {
		m := rules.Moment{Before: before, After: after, At: at}
		switch p := p.(type) {
		case Command:
			c := p.Command
			m.Command, m.At = &c, c.Src.Time
		case Resolve:
		case End:
			m.Ended = true
		default:
			return
		}
		out = append(out, m)
	})
	return out, err
}

// walk is the one replay: setup, then each standing entry, telling step
// (when set) of each one that applied, with the states around it.
func walk(g rules.Game, cfg rules.Config, entries []Entry, mode Mode, step func(before, after rules.State, at time.Time, p Payload)) (rules.State, error) {
	s, _, err := g.Setup(cfg)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Voided {
			continue
		}
		p, err := e.Decode()
		if errors.Is(err, ErrUnknownKind) && mode == Lenient {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("journal %d: %w", e.Seq, err)
		}
		before := s
		var applied bool
		if s, applied, err = apply(g, s, e.Time, p, mode); err != nil {
			return nil, fmt.Errorf("journal %d: %w", e.Seq, err)
		}
		if step != nil && applied {
			step(before, s, e.Time, p)
		}
	}
	return s, nil
}

// apply replays one entry's payload on s; applied is false for a command
// passed over (Lenient: it no longer applies).
func apply(g rules.Game, s rules.State, at time.Time, p Payload, mode Mode) (_ rules.State, applied bool, _ error) {
	switch p := p.(type) {
	case Command:
		ns, _, err := g.Apply(s, p.Command)
		if err != nil {
			if mode == Strict {
				return nil, false, fmt.Errorf("an accepted command does not apply on replay: %w", err)
			}
			return s, false, nil
		}
		return ns, true, nil
	case Resolve:
		s, _ = g.Resolve(s, at)
	case End:
		s, _ = g.End(s, at)
	case Deadline:
		s = g.SetDeadline(s, p.Deadline)
	case Replace:
		s = rules.Clone(g, s)
		if err := s.Roster().Replace(p.Old, p.New); err != nil {
			return nil, false, err
		}
	}
	return s, true, nil
}
