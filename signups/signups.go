// Package signups is the work on a game that fills its seats from its
// thread (docs/signups.md, moderator/RULINGS.md "Sign-ups"), done in the
// moderator's steps: reading /in and /out from the posts a read recorded,
// in forum order, and answering them in one post; closing sign-ups when
// the game is full or at the closing time (the game starts with those in,
// sign-ups are extended once, or the game is cancelled); the GM's sign-up
// controls (close now, take a player off, cancel); an /in made after they
// closed; and the list as the GM sees it. The sign-up list and its rules
// are package signup's (pure); starting the game is the moderator's (its
// setup, players, opening post and role PMs, in the same step).
//
// The moderator calls it at known points, each time with a Step, its step
// as this work may see and add to it: the reading step of a game taking
// sign-ups (Read), a post of someone who is not a player in a started game
// (Late), and the GM's controls (Close, Remove, Cancel). Nothing here
// writes the store or reaches the board: what is said is queued through
// the step (Post, PM), and the step saves its changes in one call, so a
// crash leaves sign-ups open or the game started, never half of it.
package signups

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/signup"
	"github.com/forumgm/forumgm/store"
)

// Edit is why an edit of a sign-up post changes nothing.
const Edit = "edited during sign-ups: the list goes by each post as first read; post /in or /out again instead"

// ErrNotSigningUp is a sign-up control on a game not taking sign-ups.
var ErrNotSigningUp = errors.New("not taking sign-ups")

// Step is one moderation step of a game taking sign-ups as this work sees
// it: the game and its board as the step holds them, the sign-up list,
// the step's changes (commands and message statuses are added to them),
// and what it asks of the step.
type Step struct {
	// Tx is the step's transaction: read from, never written.
	Tx *store.Tx
	// Row is the game's row as the step loaded it; cancelling sets its
	// status (the step saves it).
	Row *store.Game
	// Bot is the bot's account on the board: its own posts are no sign-ups.
	Bot string
	// Reader reads a body's commands (the board's profile).
	Reader *parser.BodyReader
	// Zone is the board's zone; Unit its deadline unit.
	Zone *time.Location
	Unit time.Duration
	// Start is the game's start as configured: nobody signs up before it.
	Start time.Time
	// Now is the step's clock.
	Now func() time.Time
	// List is the sign-up list as the step has it, and Open whether
	// sign-ups are still taken (false once started or cancelled).
	List signup.State
	Open bool
	// Started: the game started in this step (Step.StartGame); the step's
	// state is then the game's, no longer the list.
	Started bool
	// Changes are the step's changes so far.
	Changes *store.Changes

	// Post queues a thread post of the sign-ups at at; PM a PM to an
	// account that may not be a player, by the name and user id the bot
	// read it with.
	Post func(text string, at time.Time)
	PM   func(to forum.Author, subject, text string)
	// Warn is a problem to log once the step is saved; Resolved what the
	// step closed, for the log.
	Warn     func(msg string, args ...any)
	Resolved func(what string)
	// StartGame starts the game with those in st, at at, as its players in
	// sign-up order: after the post that closed sign-ups, in this step.
	StartGame func(st signup.State, at time.Time) error
}

// batch is one step's reading of sign-ups: the commands it read, answered
// together in one post.
type batch struct {
	s       *Step
	results []signup.Result
	done    bool // sign-ups closed (started or cancelled) in this step
	changed bool // something to save and say
}

// Read reads the sign-up commands of msgs (recorded, not yet read, in
// forum order) in one step: up to readAt (the read was complete up to
// then), closing sign-ups first when a message was surely made after the
// closing time, and at the end when readAt is past it. Messages after the
// one that filled the game are left for the game. It says whether the
// step changed anything (else it need not be saved); done: sign-ups
// closed in it.
func Read(s *Step, msgs []store.Message, readAt time.Time) (changed, done bool, err error) {
	g := &batch{s: s}
	if !s.Open {
		return false, false, nil // started (or cancelled) meanwhile
	}
	for _, msg := range msgs {
		if msg.Stamp.After(readAt) == forum.Yes {
			break // made after the read began: the next read has it complete
		}
		cur, err := s.Tx.Message(msg.ID)
		if err != nil {
			return false, false, err
		}
		if cur.Status != store.MessageNew {
			continue
		}
		for s.Open && msg.Stamp.Known() && msg.Stamp.Before(s.List.Close) == forum.No {
			if err := g.closingTime(); err != nil {
				return false, false, err
			}
		}
		if g.done {
			break // the rest belong to the game (or to none)
		}
		if err := g.message(msg); err != nil {
			return false, false, fmt.Errorf("%s %s: %w", msg.Kind, msg.ForumID, err)
		}
		if g.done {
			break
		}
	}
	for s.Open && !g.done && readAt.After(s.List.Close) {
		if err := g.closingTime(); err != nil {
			return false, false, err
		}
	}
	if !g.changed {
		return false, g.done, nil
	}
	if s.Open && len(g.results) > 0 {
		s.Post(s.List.ListText(g.results, s.Zone, s.Now()), s.Now())
	}
	return true, g.done, nil
}

// message reads one message's sign-up commands.
func (g *batch) message(msg store.Message) error {
	s := g.s
	st := s.List
	author := forum.Author{Name: msg.AuthorName, ID: msg.AuthorID}
	if strings.EqualFold(msg.AuthorName, s.Bot) && len(forum.Markers(msg.BodyHTML)) > 0 {
		// The bot's own post (the call says "post [b]/in[/b]").
		s.setMessage(msg.ID, store.MessageIgnored)
		return nil
	}
	var segs []string
	if msg.Kind == forum.KindPM {
		segs = s.Reader.Lines(msg.BodyHTML)
	} else {
		segs = s.Reader.Segments(msg.BodyHTML)
	}
	cmds := signup.Read(segs)
	if len(cmds) == 0 {
		s.setMessage(msg.ID, store.MessageIgnored) // chatter: in the audit log, nobody answered
		return nil
	}
	g.changed = true
	row := func(c signup.Command, r signup.Result) {
		status := store.CommandRejected
		if r.OK {
			status = store.CommandAccepted
		}
		s.Changes.Commands = append(s.Changes.Commands, store.CommandRow{GameID: s.Row.ID, MessageID: msg.ID, Seq: c.Seq, Phase: signup.Phase,
			Player: msg.AuthorName, Channel: string(channelOf(msg.Kind)), Text: c.Text, Kind: string(c.Kind), Args: args(author),
			Status: status, Reason: r.Reason, Time: msg.Time})
	}
	s.setMessage(msg.ID, store.MessageProcessed)
	switch {
	case msg.Kind == forum.KindPM:
		var lines []string
		for _, c := range cmds {
			r := signup.Result{Kind: c.Kind, Name: msg.AuthorName, Reason: signup.PMReason}
			row(c, r)
			lines = append(lines, "✘ “"+rules.Esc(c.Text)+"” — "+rules.Esc(r.Reason))
		}
		s.PM(author, "sign-ups", "Your PM was read, but sign-ups are not taken by PM:\n"+strings.Join(lines, "\n"))
		return nil
	case !msg.Stamp.Known():
		// Never a silent drop: whether it came before the closing time
		// cannot be told.
		reason := msg.Stamp.UnreadableReason()
		s.Warn("a message's time could not be read; its sign-up was not taken", "kind", msg.Kind, "id", msg.ForumID, "author", msg.AuthorName, "time", msg.Stamp.Text, "err", msg.Stamp.Err)
		for _, c := range cmds {
			r := signup.Result{Kind: c.Kind, Name: msg.AuthorName, Reason: reason}
			row(c, r)
			g.results = append(g.results, r)
		}
		return nil
	}
	for _, c := range cmds {
		var r signup.Result
		if g.done {
			r = signup.Result{Kind: c.Kind, Name: msg.AuthorName, Reason: "sign-ups closed when the game filled, earlier in this post"}
		} else if c.Kind == signup.In {
			st, r = st.Join(msg.AuthorName, msg.AuthorID, laterOf(msg.Stamp.Earliest, s.Start), msg.ForumID)
		} else {
			st, r = st.Leave(msg.AuthorName, msg.AuthorID)
		}
		row(c, r)
		g.results = append(g.results, r)
		if g.done {
			continue
		}
		s.List = st
		if r.OK && st.Full() {
			if err := g.start(st, laterOf(msg.Stamp.Earliest, s.Start), signup.Filled); err != nil {
				return err
			}
		}
	}
	return nil
}

// closingTime is the closing time of the list come: the game starts with
// enough in; else sign-ups are extended once, or the game is cancelled.
func (g *batch) closingTime() error {
	s := g.s
	st := s.List
	g.changed = true
	switch st.AtClose() {
	case signup.Start:
		return g.start(st, st.Close, signup.Closing)
	case signup.Extend:
		at := st.Close
		st = st.Extend(forum.DeadlineOn(at.Add(st.ExtendBy), s.Unit))
		s.List = st
		s.Post(st.ExtendedText(g.results, s.Zone, s.Now()), at)
		g.results = nil
		s.Resolved(signup.Phase + " (extended)")
		return nil
	default:
		g.cancel(st, false)
		return nil
	}
}

// cancel closes sign-ups for good: the game never starts.
func (g *batch) cancel(st signup.State, byGM bool) {
	s := g.s
	s.Post(st.CancelledText(g.results, byGM), s.Now())
	g.results = nil
	s.Row.Status = store.GameCancelled
	s.Open = false
	g.done, g.changed = true, true
	s.Resolved(signup.Phase + " (cancelled)")
}

// start closes sign-ups at at, saying so in the thread, and has the step
// start the game with those in (Step.StartGame): its opening post and role
// PMs are queued after the post that closes sign-ups, all in this step.
func (g *batch) start(st signup.State, at time.Time, why signup.Why) error {
	s := g.s
	s.Post(st.ClosedText(why, g.results), at)
	g.results = nil
	if err := s.StartGame(st, at); err != nil {
		return err
	}
	s.Open, s.Started = false, true
	s.Resolved(signup.Phase)
	g.done, g.changed = true, true
	return nil
}

func (s *Step) setMessage(id int64, st store.MessageStatus) {
	s.Changes.MessageStatuses = append(s.Changes.MessageStatuses, store.MessageStatusChange{ID: id, Status: st})
}

// args keeps the forum user id an /in was read with in the audit log.
func args(a forum.Author) []string {
	if a.ID == "" {
		return nil
	}
	return []string{"forum user id " + a.ID}
}

func channelOf(kind forum.MessageKind) rules.Channel {
	if kind == forum.KindPM {
		return rules.Private
	}
	return rules.Public
}

func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
