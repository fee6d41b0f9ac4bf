package signup

import (
	"errors"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// Game is a game in sign-ups as the rest of forumgm sees it: a rules.Game
// whose state is the sign-up State, so that whatever shows or routes a game
// without knowing it (status, the desk, the routing of PMs by roster) works
// on it unchanged. It has one phase, "signups", whose deadline is the
// closing time and whose roster is the list. It takes no commands: sign-ups
// are read by the moderator (Read, Join, Leave), which starts the real game
// (named by Of) when they close.
type Game struct {
	Of string // the game being signed up for (its rules.Game name)
}

var _ rules.Game = Game{}

// Engine is the sign-ups of a game of kind.
func Engine(kind string) Game { return Game{Of: kind} }

// Name is the name of the game being signed up for.
func (g Game) Name() string { return g.Of }

var errNoSetup = errors.New("a game in sign-ups is set up when they close, with those signed up")

// Setup refuses: sign-ups start from New, and the game itself from its
// own rules once they close.
func (g Game) Setup(rules.Config) (rules.State, []rules.Event, error) { return nil, nil, errNoSetup }

// Parse takes nothing as a game command: /in and /out are sign-ups (Read).
func (g Game) Parse(rules.State, string, rules.Source) rules.Parsed {
	return rules.Parsed{Ignored: true}
}

// Apply refuses every command: nothing is played during sign-ups.
func (g Game) Apply(s rules.State, c rules.Command) (rules.State, []rules.Event, error) {
	return s, nil, fmt.Errorf("the game has not started: sign-ups are open (post /in or /out)")
}

// Due is never: the moderator closes sign-ups (AtClose, Full).
func (g Game) Due(rules.State, time.Time) bool { return false }

// Resolve and End leave the state as it is: closing or cancelling
// sign-ups is the moderator's step, which says so in the thread.
func (g Game) Resolve(s rules.State, _ time.Time) (rules.State, []rules.Event) { return s, nil }
func (g Game) End(s rules.State, _ time.Time) (rules.State, []rules.Event)     { return s, nil }

// SetDeadline moves the closing time.
func (g Game) SetDeadline(s rules.State, t time.Time) rules.State {
	st := s.(State).clone()
	st.Close = t.UTC()
	return st
}

// Status is the one phase: who is in (as acted), and the closing time.
func (g Game) Status(s rules.State) rules.Status {
	st := s.(State)
	return rules.Status{Phase: Phase, Title: fmt.Sprintf("Sign-ups: %d in (%s)", len(st.In), st.seats()), Deadline: st.Close,
		Acted: st.Names(), Waiting: []string{}}
}

// View is the list: everything in it is public.
func (g Game) View(s rules.State, _ string) any { return s.(State) }

// Decode reads a State.
func (g Game) Decode(b []byte) (rules.State, error) { return Decode(b) }
