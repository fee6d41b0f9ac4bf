package signups

import (
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/signup"
	"github.com/forumgm/forumgm/store"
)

// gmRow records a GM's sign-up control in the audit log.
func (s *Step) gmRow(kind, text, reason string) {
	s.Changes.Commands = append(s.Changes.Commands, store.CommandRow{GameID: s.Row.ID, Phase: signup.Phase, Player: "(the GM)", Text: text, Kind: kind,
		Status: store.CommandAccepted, Reason: reason, Time: s.Now()})
}

// open is the list of a game still taking sign-ups, or why a GM's control
// cannot be done on it.
func (s *Step) open() (signup.State, error) {
	if !s.Open {
		return signup.State{}, fmt.Errorf("game %s is %s: %w", s.Row.Name, s.Row.Status, ErrNotSigningUp)
	}
	return s.List, nil
}

// Close closes the game's sign-ups now, at the GM's word, and starts it
// with those in (at least the minimum).
func Close(s *Step) error {
	st, err := s.open()
	if err != nil {
		return err
	}
	if !st.Enough() {
		return fmt.Errorf("only %d signed up, and %s needs at least %d: nothing closed (wait, or cancel the game with 'forumgm end %s')", len(st.In), s.Row.Name, st.Min, s.Row.Name)
	}
	s.gmRow("close", "close", fmt.Sprintf("the GM closed sign-ups with %d in", len(st.In)))
	return (&batch{s: s}).start(st, s.Now(), signup.ByGM)
}

// Remove takes who (matched as commands name players) off the game's
// sign-ups at the GM's word and says so in the thread. It returns the
// name taken off.
func Remove(s *Step, who string) (string, error) {
	st, err := s.open()
	if err != nil {
		return "", err
	}
	st, r, err := st.Take(who)
	if err != nil {
		return "", err
	}
	s.List = st
	s.gmRow("remove", "remove "+who, "the GM took "+r.Name+" off the sign-ups")
	s.Post(st.ListText([]signup.Result{r}, s.Zone, s.Now()), s.Now())
	return r.Name, nil
}

// Cancel is the GM's end of a game in sign-ups: it is cancelled, and the
// thread told.
func Cancel(s *Step) {
	s.gmRow("cancel", "end", "the GM cancelled the game during sign-ups")
	(&batch{s: s}).cancel(s.List, true)
}

// Late records the /in and /out in msg, a post of someone who is not a
// player made after sign-ups closed (the game applies what comes after
// them), in phase: each a rejection with the reason, in the audit log. The
// post that closed sign-ups told the thread that an /in cannot be taken
// any more. It says whether the message had any.
func Late(s *Step, msg store.Message, phase string) bool {
	if msg.Kind != forum.KindPost || strings.EqualFold(msg.AuthorName, s.Bot) {
		return false
	}
	cmds := signup.Read(s.Reader.Segments(msg.BodyHTML))
	if len(cmds) == 0 {
		return false
	}
	reason := signup.LateReason(s.Start, s.Zone)
	for _, c := range cmds {
		s.Changes.Commands = append(s.Changes.Commands, store.CommandRow{GameID: s.Row.ID, MessageID: msg.ID, Seq: c.Seq, Phase: phase,
			Player: msg.AuthorName, Channel: string(rules.Public), Text: c.Text, Kind: string(c.Kind), Args: args(forum.Author{Name: msg.AuthorName, ID: msg.AuthorID}),
			Status: store.CommandRejected, Reason: reason, Time: msg.Time})
	}
	s.setMessage(msg.ID, store.MessageProcessed)
	return true
}

// List is a game's sign-ups as the GM sees them (`forumgm signups`,
// `status`, the desk).
type List struct {
	Status   store.GameStatus `json:"status"`
	Open     bool             `json:"open"` // still taking sign-ups
	Min      int              `json:"min"`
	Max      int              `json:"max"`
	Close    time.Time        `json:"close"` // when they close (or closed: the game's start)
	Extended bool             `json:"extended,omitempty"`
	// CloseText is Close as the posts write it (the board's zone and UTC).
	CloseText string         `json:"close_text"`
	In        []signup.Entry `json:"in"`
}

// ListOf is the sign-ups of a game with the given status, sign-up
// settings' bounds (min, max), state, start and players, times written in
// zone: while they run, who is in and when they close; after, who signed
// up and when the game started.
func ListOf(status store.GameStatus, min, max int, state rules.State, start time.Time, players []store.Player, zone *time.Location) *List {
	out := &List{Status: status, Min: min, Max: max, In: []signup.Entry{}}
	if st, ok := state.(signup.State); ok {
		out.Open = status == store.GameSignups
		out.Close, out.Extended, out.In = st.Close, st.Extended, st.In
	} else {
		out.Close = start
		for _, p := range players {
			out.In = append(out.In, signup.Entry{Name: p.ForumName, ID: p.ForumUserID})
		}
	}
	out.CloseText = rules.WhenUTC(out.Close, zone)
	return out
}

// Item says whether an outbox item's marker belongs to the sign-ups (its
// phase), not to the game that followed them.
func Item(marker string) bool {
	_, rest, _ := strings.Cut(marker, "/")
	return strings.HasPrefix(rest, signup.Phase+"/")
}
