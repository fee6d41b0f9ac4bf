// Package between is the GM's work on a game between its deadlines
// (docs/between-deadlines.md, moderator/RULINGS.md "Between deadlines"):
// counts of the open phase in the thread (asked for by a player, on the
// GM's schedule, at the GM's word), reminders by PM before the deadline to
// the players who still have something to do, a prod to a player gone
// silent, and what a phase's close settles of them (reminders still queued
// lapse, requests still waiting are answered by the close).
//
// It owns none of the loop. The moderator calls it at four known points of
// its steps, each time with a Step, the step as this work may see and add
// to it: a post read in the thread (Work.Requests), the tick's last step,
// after its resolutions (Work.Due), the GM's count (Work.Count), and a
// step that closed phases, before it is saved (Work.Close). Nothing here
// reaches the board, writes the store, or reads the clock: the step's
// transaction is only read, what is said is queued through the step's own
// Emit (the outbox, exactly once), and the time is the step's.
//
// Exactly once: what was done in the phase (the counts, whether a request
// waits, the reminder times handled, each player's last prod) is kept with
// the game's settings (gameconfig.BetweenState) and saved in the step that
// queued the messages, so a crash loses both or neither.
package between

import (
	"encoding/json"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

const (
	// CountKind is the command kind of a player's request for a count (the
	// vote log and the activity tell requests from the game's commands by it).
	CountKind = "count"
	// EventCount is the event kind of a count (the vote log lists them).
	EventCount = "count"
	// The events of the other messages said between deadlines.
	eventReminder = "reminder"
	eventProd     = "prod"
	// countWaiting is a request's reason until a count answers it.
	countWaiting = "waiting for the next count"
	// LapseSuffix ends the marker of an outbox item that lapses when its
	// phase closes before it is sent (a reminder).
	LapseSuffix = ".lapse"
)

// Step is one moderation step of a game as between-deadline work sees it:
// the game as the step holds it, read-only access to its transaction, and
// the step's changes, which the work adds to. The moderator builds it from
// its own step for each call.
type Step struct {
	// Tx is the step's transaction: read from, never written (the step
	// saves Changes in one call).
	Tx *store.Tx
	// Row is the game's row as the step loaded it (its id, name, status).
	Row *store.Game
	// Rules and State are the game and its state as the step has moved it.
	Rules rules.Game
	State rules.State
	// Config is the game's settings; the work reads its counts and
	// reminders settings and keeps its own state in Config.Between,
	// setting ConfigChanged when it changed it (the step saves it then).
	Config        *gameconfig.GameConfig
	ConfigChanged bool
	// Site is the game's board: its zone, its posts' addresses.
	Site *gameconfig.Site
	// Marker is the game's part of every marker (the outbox items of a
	// phase start with Marker + "/" + phase + "/").
	Marker string
	// Opened is when the current phase began.
	Opened time.Time
	// Behind: the thread is not read to its end yet (a long first read),
	// so nothing is due.
	Behind bool
	// Changes are the step's changes so far: its commands and command
	// statuses (a count counts them), its outbox (Emit adds to it).
	Changes *store.Changes
	// Emit queues a referee step's events and messages in the step, of
	// class class, as every message of the bot is queued (pictures, the
	// deadline, the house style, parts, markers).
	Emit func(class store.SendClass, phase string, r referee.Step, at time.Time)
}

func (s *Step) active() bool {
	return s.Row.Status == store.GameRunning || s.Row.Status == store.GamePaused
}

func (s *Step) zone() *time.Location { return s.Site.Zone }

// setBetween keeps b as the game's between-deadlines state, marked
// changed when it differs from what the step had.
func (s *Step) setBetween(b *gameconfig.BetweenState) {
	if !sameState(b, s.Config.Between) {
		s.Config.Between = b
		s.ConfigChanged = true
	}
}

// emitLapsing is Emit for messages that lapse if their phase closes before
// they are sent (Close).
func (s *Step) emitLapsing(phase string, r referee.Step, at time.Time) {
	from := len(s.Changes.Outbox)
	s.Emit(store.SendChores, phase, r, at)
	for i := from; i < len(s.Changes.Outbox); i++ {
		s.Changes.Outbox[i].Marker += LapseSuffix
	}
}

func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// sameState says whether two between-deadlines states are the same, as
// the game's settings would save them.
func sameState(a, b *gameconfig.BetweenState) bool {
	ja, err := json.Marshal(a)
	if err != nil {
		panic(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		panic(err)
	}
	return string(ja) == string(jb)
}
