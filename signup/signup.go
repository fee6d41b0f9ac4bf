// Package signup owns a game's sign-ups in its thread (docs/signups.md): the
// numbered list of who is in, reading /in and /out from a post's command
// segments, every decision (a duplicate, an /out by someone not in, two
// names the bot could not tell apart, the bot or the GM themselves, the
// game full, the closing time with too few), and the posts that say so.
// It is pure, as the rules engines are: no I/O, no clock; the moderator
// reads the board, stores the state and sends the posts.
package signup

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// Phase is the phase name of everything said and recorded while sign-ups
// run (the call, the lists, the close), in markers and the audit log.
const Phase = "signups"

// State is where a game's sign-ups stand: it is the game's state until
// they close. Every time in it is UTC.
type State struct {
	Min int `json:"min"`
	Max int `json:"max"`
	// Close is when sign-ups close, as the call said or the extension
	// moved it.
	Close time.Time `json:"close"`
	// ExtendBy is how long sign-ups short of Min at Close stay open, once
	// (0: none, the game is cancelled); Extended says it was given.
	ExtendBy time.Duration `json:"extend_by"`
	Extended bool          `json:"extended,omitempty"`
	// NeedIDs: the board sends PMs by forum user id (phpBB), so an /in
	// whose post shows no user id cannot be taken: its role PM could not
	// be addressed.
	NeedIDs bool `json:"need_ids,omitempty"`
	// Bot and GMs are the bot's and the GM's accounts: they cannot sign up.
	Bot string   `json:"bot"`
	GMs []string `json:"gms,omitempty"`
	// In is the list, in the order they signed up.
	In []Entry `json:"in"`
}

// Entry is one player signed up, as their post showed them.
type Entry struct {
	Name string    `json:"name"`         // the forum name, as the board writes it
	ID   string    `json:"id,omitempty"` // the forum user id
	At   time.Time `json:"at"`           // when the post was made (its earliest time)
	Post string    `json:"post,omitempty"`
}

// New is sign-ups opening: nobody in yet.
func New(min, max int, close time.Time, extendBy time.Duration, needIDs bool, bot string, gms []string) State {
	return State{Min: min, Max: max, Close: close.UTC(), ExtendBy: extendBy, NeedIDs: needIDs, Bot: bot, GMs: slices.Clone(gms), In: []Entry{}}
}

// Decode reads a state written with json.Marshal.
func Decode(b []byte) (State, error) {
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return State{}, fmt.Errorf("sign-ups: %w", err)
	}
	if s.In == nil {
		s.In = []Entry{}
	}
	return s, nil
}

// Full says whether Max are in.
func (s State) Full() bool { return len(s.In) >= s.Max }

// Enough says whether at least Min are in.
func (s State) Enough() bool { return len(s.In) >= s.Min }

// Names are the names in, in order.
func (s State) Names() []string {
	out := make([]string, len(s.In))
	for i, e := range s.In {
		out[i] = e.Name
	}
	return out
}

// Kind is a sign-up command.
type Kind string

const (
	In     Kind = "in"
	Out    Kind = "out"
	Remove Kind = "remove" // the GM's
)

// Command is one sign-up command found in a message.
type Command struct {
	Seq  int    // the segment's index in its message
	Text string // as written
	Kind Kind
}

// Read finds the sign-up commands among a post's command segments (its
// bold runs outside quotes, spoilers and code, minus struck text, as the
// board's body reader gives them): a segment that is /in or /out, in any
// case, with white space around it and a trailing "!" or "." at most.
// Every other segment is chatter, not a sign-up.
func Read(segments []string) []Command {
	var out []Command
	for i, seg := range segments {
		if k, ok := Parse(seg); ok {
			out = append(out, Command{Seq: i, Text: strings.TrimSpace(seg), Kind: k})
		}
	}
	return out
}

// Parse reads one segment as a sign-up command.
func Parse(seg string) (Kind, bool) {
	t := strings.ToLower(strings.TrimSpace(seg))
	t = strings.TrimRight(t, "!.")
	switch strings.TrimSpace(t) {
	case "/in":
		return In, true
	case "/out":
		return Out, true
	}
	return "", false
}

// Result is what became of one sign-up command.
type Result struct {
	Kind   Kind
	Name   string // who it was about
	OK     bool
	Reason string // why not (OK false), for the player and the audit log
	Number int    // an accepted /in: the place in the list
}

// Line is the result as the answer post lists it (names escaped).
func (r Result) Line() string {
	name := rules.Esc(r.Name)
	switch {
	case !r.OK:
		return fmt.Sprintf("✘ [b]/%s[/b] by %s — %s", r.Kind, name, rules.Esc(r.Reason))
	case r.Kind == In:
		return fmt.Sprintf("✔ %s is in (number %d).", name, r.Number)
	case r.Kind == Remove:
		return fmt.Sprintf("✔ The GM has taken %s off the list.", name)
	default:
		return fmt.Sprintf("✔ %s is out.", name)
	}
}

// Join is an /in posted by the account name (forum user id id, "" when the
// post did not show one) at at, in post post. It is refused, with the
// reason, for the bot and the GM, a name with no letters or digits, a
// missing id where the board needs one, someone already in (by name or by
// id), a name the bot could not tell from one already in (rules.NormName:
// case, spaces, '_' and '-' ignored), and once the game is full.
func (s State) Join(name, id string, at time.Time, post string) (State, Result) {
	r := Result{Kind: In, Name: name}
	no := func(why string, args ...any) (State, Result) {
		r.Reason = fmt.Sprintf(why, args...)
		return s, r
	}
	k := rules.NormName(name)
	switch {
	case strings.EqualFold(name, s.Bot):
		return no("the bot runs the game: its own account cannot sign up")
	case s.isGM(name):
		return no("the GM runs the game and cannot sign up for it")
	case k == "":
		return no("a forum name with no letters or digits could never be named in a command")
	case s.NeedIDs && id == "":
		return no("the bot could not read your forum user id from your post, which it needs to send you your role; ask the GM")
	}
	for i, e := range s.In {
		switch {
		case strings.EqualFold(e.Name, name):
			return no("already signed up (number %d)", i+1)
		case id != "" && e.ID == id:
			return no("your account is already signed up, as %s (number %d)", e.Name, i+1)
		case rules.NormName(e.Name) == k:
			return no("the bot cannot tell you from %s, who is signed up (case, spaces, '_' and '-' are ignored in names); ask the GM", e.Name)
		}
	}
	if s.Full() {
		return no("the game is full (%d of %d)", len(s.In), s.Max)
	}
	n := s.clone()
	n.In = append(n.In, Entry{Name: name, ID: id, At: at.UTC(), Post: post})
	r.OK, r.Number = true, len(n.In)
	return n, r
}

// Leave is an /out by the account name: it takes them off the list (those
// after them move up), refused for someone not in.
func (s State) Leave(name, id string) (State, Result) {
	r := Result{Kind: Out, Name: name}
	for i, e := range s.In {
		if strings.EqualFold(e.Name, name) || (id != "" && e.ID == id) {
			n := s.clone()
			n.In = slices.Delete(n.In, i, i+1)
			r.OK, r.Name = true, e.Name
			return n, r
		}
	}
	r.Reason = "you are not signed up"
	return s, r
}

// Take is the GM taking who off the list: matched as commands match players
// (rules.Roster.Match: the exact name, else a unique prefix of at least
// three letters, case, spaces, '_' and '-' ignored). The error says why
// nobody was taken off.
func (s State) Take(who string) (State, Result, error) {
	id, err := s.Roster().Match(who)
	if err != nil {
		return s, Result{}, fmt.Errorf("nobody taken off the sign-ups: %w", err)
	}
	for i, e := range s.In {
		if e.Name == id {
			n := s.clone()
			n.In = slices.Delete(n.In, i, i+1)
			return n, Result{Kind: Remove, Name: e.Name, OK: true}, nil
		}
	}
	return s, Result{}, fmt.Errorf("nobody taken off the sign-ups: %q is not on the list", who)
}

func (s State) isGM(name string) bool {
	for _, g := range s.GMs {
		if strings.EqualFold(g, name) {
			return true
		}
	}
	return false
}

func (s State) clone() State {
	n := s
	n.In = slices.Clone(s.In)
	n.GMs = slices.Clone(s.GMs)
	return n
}

// Roster is the list as a roster: a player in sign-ups is matched by the
// name they signed up with (PMs routed to the game, the GM's remove).
func (s State) Roster() *rules.Roster {
	r := &rules.Roster{Slots: make([]rules.Slot, len(s.In))}
	for i, e := range s.In {
		r.Slots[i] = rules.Slot{ID: e.Name, Display: e.Name}
	}
	return r
}

// Decision is what the closing time brings.
type Decision int

const (
	Start  Decision = iota // enough are in: the game starts with them
	Extend                 // too few: sign-ups stay open ExtendBy longer, once
	Cancel                 // too few, and the extension already given or none set
)

// AtClose is what happens when the closing time comes.
func (s State) AtClose() Decision {
	switch {
	case s.Enough():
		return Start
	case !s.Extended && s.ExtendBy > 0:
		return Extend
	default:
		return Cancel
	}
}

// Extend is the state once the extension is given: the closing time moved
// to close (the moderator rounds it to the board's minute).
func (s State) Extend(close time.Time) State {
	n := s.clone()
	n.Close, n.Extended = close.UTC(), true
	return n
}
