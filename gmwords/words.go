// Package gmwords is the GM's own words as they go into the bot's messages
// (docs/gm-words.md): a text checked before it is queued (no marker in it,
// not empty, not a file given by mistake) and written as it goes out, the
// GM's flavor opening a phase's update and a player's private results, and
// the view a house style may show (public facts only). The moderator queues
// them, in a step, through the outbox, exactly once; this package says what
// they are.
package gmwords

import (
	"fmt"
	"strings"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// Event kinds of the GM's words, so the audit log and the phase history
// show them as the GM's.
const (
	EventSay    = "gm-say"
	EventFlavor = "gm-flavor"
)

// maxTextBytes bounds one text of the GM's: longer than any board takes
// in one message, it is sent in parts anyway; the bound is against a file
// given by mistake.
const maxTextBytes = 200_000

// Check says what is wrong with a text of the GM's before it is queued.
// It is the GM's BBCode, passed through as written, but a marker in it
// would make the outbox take it for another message (exactly-once looks
// for markers on the board), so it is refused.
func Check(text string) error {
	switch {
	case strings.TrimSpace(text) == "":
		return fmt.Errorf("the text is empty")
	case len(text) > maxTextBytes:
		return fmt.Errorf("the text is %d bytes, more than %d", len(text), maxTextBytes)
	case strings.Contains(strings.ToLower(text), strings.ToLower(forum.MarkerPrefix)):
		return fmt.Errorf("the text holds %q, the start of the bot's marker line: the bot would take it for one of its own messages when it checks what it sent (remove it)", forum.MarkerPrefix)
	}
	for _, l := range strings.Split(text, "\n") {
		if forum.IsMarkerLine(l) {
			return fmt.Errorf("the text holds a marker line (%q): remove it", strings.TrimSpace(l))
		}
	}
	return nil
}

// Text is a GM's text as it goes into a message: line ends as Unix writes
// them, no trailing blank lines (the marker line follows).
func Text(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	return strings.TrimRight(text, "\n\t ")
}

// StaleFlavorError is flavor for a phase the game has left.
type StaleFlavorError struct {
	Game         string
	Asked        string
	Phase, Title string
}

func (e *StaleFlavorError) Error() string {
	now := e.Phase
	if e.Title != "" && e.Title != e.Phase {
		now = fmt.Sprintf("%s (%s)", e.Phase, e.Title)
	}
	return fmt.Sprintf("game %s has moved past phase %s: the current phase is %s; the flavor was not saved (its update has gone out; write the flavor for %s instead)",
		e.Game, e.Asked, now, e.Phase)
}

// Flavored opens the resolution r of a phase titled title with the GM's
// flavors fs for it: the thread's before the update, each player's before
// that player's private results (or alone, by PM, when the resolution
// tells the player nothing privately, under a subject of game's name and
// the title). Each flavor is an event of its own (EventFlavor).
func Flavored(r referee.Step, fs []store.Flavor, game, title string) referee.Step {
	if len(fs) == 0 {
		return r
	}
	out := append([]referee.Outgoing(nil), r.Out...)
	for _, f := range fs {
		to := f.To
		if to == "" {
			to = rules.Everyone
		}
		done := false
		for i := range out {
			if out[i].To == to {
				out[i].Text = f.Text + "\n\n" + out[i].Text
				done = true
				break
			}
		}
		if !done {
			// Alone: the thread's before everything, a player's after.
			o := referee.Outgoing{To: to, Text: f.Text}
			if to == rules.Everyone {
				out = append([]referee.Outgoing{o}, out...)
			} else {
				o.Subject = fmt.Sprintf("%s — %s", game, title)
				out = append(out, o)
			}
		}
		r.Events = append(r.Events, rules.Event{To: to, Kind: EventFlavor, Text: f.Text})
	}
	r.Out = out
	return r
}

// StyleView is what a game's house style may show, built from the game's
// public status and roster only: the phase, its title and the players'
// names, all in every thread post anyway. Nothing private is handed to a
// style, so no style can show it.
func StyleView(name string, g rules.Game, state rules.State) gameconfig.StyleView {
	st := g.Status(state)
	v := gameconfig.StyleView{Game: name, Phase: st.Phase, Title: st.Title}
	r := state.Roster()
	for _, id := range r.IDs() {
		v.Players = append(v.Players, r.Display(id))
	}
	return v
}
