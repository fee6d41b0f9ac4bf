package moderator

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/signup"
	"github.com/forumgm/forumgm/signups"
	"github.com/forumgm/forumgm/store"
)

// Sign-ups in the thread (docs/signups.md, RULINGS.md "Sign-ups"). A game
// whose file gives signups: instead of players: is created taking sign-ups
// (status Signups): its state is the sign-up list (signup.State, played by
// signup.Game, so status, the desk and the PM routing read it as any game),
// and the bot posts the call for players. Each poll reads the thread as for
// any game; processSignups then has package signups read /in and /out from
// the new posts in one step and answer them in one post. When the game is
// full, or at the closing time with enough in, the same step closes
// sign-ups and starts the game with those in (startGame: the real game set
// up from its recorded seed, its players, the opening post and the role
// PMs), all saved at once, so a crash leaves sign-ups open or the game
// started, never half of it; the outbox sends each message once.

// createSignups is Create for a game taking sign-ups.
func (m *Moderator) createSignups(ctx context.Context, name, kind string, gc gameconfig.GameConfig, fc gameconfig.ForumConfig) (*store.Game, error) {
	if _, err := rules.Lookup(kind); err != nil {
		return nil, fmt.Errorf("create %s: %w", name, err)
	}
	if gc.Instance == "" {
		gc.Instance = instanceToken()
	}
	site := resolveSite(fc, m.bodyReader)
	su := gc.Signups
	close, err := su.Closing(gc.Start, site.Zone)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", name, err)
	}
	close = forum.DeadlineOn(close, site.DeadlineUnit)
	needIDs := site.Err == nil && strings.Contains(site.Profile.Forms.PM.Page, "{user}")
	st := signup.New(su.Min, su.Max, close, su.ExtensionTime(), needIDs, fc.Bot, su.GM)
	row := &store.Game{Name: name, Kind: kind, Status: Signups, Config: mustJSON(gc), Forum: mustJSON(fc), State: mustJSON(st),
		Phase: signup.Phase, Deadline: close}
	err = m.DB.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.CreateGame(row); err != nil {
			return err
		}
		s := &step{l: &loaded{row: row, game: signup.Engine(kind), cfg: gc, forum: fc, state: st, site: site}, opened: gc.Start, pictured: -1, work: &m.work}
		s.post(st.CallText(kind, name, su.About, site.Zone, m.now()), m.now())
		return m.commit(tx, s)
	})
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", name, err)
	}
	m.hold(row.ID, row.Forum, site)
	return row, nil
}

// post queues a thread post of the sign-ups.
func (s *step) post(text string, at time.Time) {
	s.emit(store.SendChores, signup.Phase, referee.Step{Out: []referee.Outgoing{{To: rules.Everyone, Text: text}}}, at)
}

// pmTo queues a PM to an account that may not be a player (a PM answered
// during sign-ups): addressed by the name and user id the bot read it with.
func (s *step) pmTo(a forum.Author, subject, text string) {
	g := s.l.row
	s.queued++
	s.ch.Outbox = append(s.ch.Outbox, store.OutboxItem{GameID: g.ID, Kind: forum.KindPM, Recipient: a.Name, RecipientName: a.Name, RecipientID: a.ID,
		Subject: "[" + g.Name + "] " + subject, Body: text, State: store.OutboxPending,
		Marker: fmt.Sprintf("%s/%s/%d", s.l.markerName(), signup.Phase, s.queued)})
}

// forSignups is the step as package signups sees it; done puts back the
// list it changed as the step's state (unless the game started in it).
func (m *Moderator) forSignups(s *step) (ss *signups.Step, done func()) {
	l := s.l
	st, ok := l.state.(signup.State)
	ss = &signups.Step{Tx: s.tx, Row: l.row, Bot: l.forum.Bot, Reader: l.site.Reader, Zone: l.zone(), Unit: l.deadlineUnit(), Start: l.cfg.Start,
		Now: m.now, List: st, Open: ok && l.row.Status == Signups, Changes: &s.ch,
		Post: s.post, PM: s.pmTo, Warn: s.warn,
		Resolved:  func(what string) { s.resolved = append(s.resolved, what) },
		StartGame: func(st signup.State, at time.Time) error { return m.startGame(s, st, at) },
	}
	return ss, func() {
		if ok && !ss.Started {
			l.state = ss.List
		}
	}
}

// processSignups reads the sign-up commands of every message recorded and
// not yet read, in forum order, in one step (signups.Read): up to readAt
// (the read was complete up to then).
func (m *Moderator) processSignups(ctx context.Context, l *loaded, readAt time.Time) error {
	if l.behind && l.readTo.Before(readAt) {
		readAt = l.readTo
	}
	msgs, err := m.unread(ctx, l.row.ID)
	if err != nil {
		return fmt.Errorf("sign-ups of %s: %w", l.row.Name, err)
	}
	var s *step
	done := false
	err = m.DB.Tx(ctx, func(tx *store.Tx) error {
		var err error
		if s, err = m.begin(tx, l); err != nil {
			return err
		}
		ss, back := m.forSignups(s)
		changed, closed, err := signups.Read(ss, msgs, readAt)
		back()
		done = closed
		if err != nil || !changed {
			return err
		}
		if err := m.commit(tx, s); err != nil {
			return err
		}
		return m.crash("in-signups") // inside the transaction: all of the step is undone
	})
	if err != nil {
		return fmt.Errorf("sign-ups of %s: %w", l.row.Name, err)
	}
	m.logResolved(s)
	if done {
		return m.crash("after-signups")
	}
	return nil
}

// startGame closes sign-ups at at and starts the game with those in st
// (signups.Step.StartGame): it is set up from its recorded seed with them
// as its players, in sign-up order, and its opening post and role PMs are
// queued after the post that closed sign-ups, all in this step.
func (m *Moderator) startGame(s *step, st signup.State, at time.Time) error {
	eng, err := rules.Lookup(s.l.row.Kind)
	if err != nil {
		return err
	}
	cfg := s.l.cfg
	cfg.Players, cfg.Start = st.Names(), at.UTC()
	setup, err := referee.Setup(eng, cfg.Rules())
	if err != nil {
		return fmt.Errorf("starting the game with %d signed up: %w", len(st.In), err)
	}
	s.l.game, s.l.state, s.l.cfg, s.l.cfgChanged = eng, setup.State, cfg, true
	s.l.row.Status = Running
	s.players = make([]store.Player, len(st.In))
	for i, e := range st.In {
		s.players[i] = store.Player{GameID: s.l.row.ID, Slot: e.Name, ForumName: e.Name, ForumUserID: e.ID}
	}
	s.playersChanged = true
	s.opened = cfg.Start
	openDeadline(s, cfg.Start, m.now())
	setup.State = s.l.state
	s.emit(store.SendChores, "setup", setup, m.now()) // after running games' answers: its clock starts once it is up
	return nil
}

// late records the /in and /out of someone who is not a player, made
// after sign-ups closed (signups.Late). It says whether the message had any.
func (s *step) late(msg store.Message) bool {
	l := s.l
	if l.cfg.Signups == nil || !l.active() {
		return false
	}
	ss := &signups.Step{Row: l.row, Bot: l.forum.Bot, Reader: l.site.Reader, Zone: l.zone(), Start: l.cfg.Start, Changes: &s.ch}
	return signups.Late(ss, msg, l.phase())
}

// signupControl runs a GM's sign-up control as a step.
func (m *Moderator) signupControl(ctx context.Context, what, name string, fn func(ss *signups.Step) error) error {
	return m.control(ctx, "signups "+what, name, func(_ *store.Tx, s *step) error {
		ss, done := m.forSignups(s)
		defer done()
		return fn(ss)
	})
}

// CloseSignups closes a game's sign-ups now and starts it with those in
// (at least the minimum; signups.Close).
func (m *Moderator) CloseSignups(ctx context.Context, name string) error {
	return m.signupControl(ctx, "close", name, signups.Close)
}

// RemoveSignup takes who (matched as commands name players) off a game's
// sign-ups and says so in the thread (signups.Remove). It returns the name
// taken off.
func (m *Moderator) RemoveSignup(ctx context.Context, name, who string) (string, error) {
	var gone string
	err := m.signupControl(ctx, "remove", name, func(ss *signups.Step) (err error) {
		gone, err = signups.Remove(ss, who)
		return err
	})
	return gone, err
}

// cancelSignups is End on a game in sign-ups: it is cancelled, and the
// thread told (signups.Cancel).
func (m *Moderator) cancelSignups(s *step) {
	ss, done := m.forSignups(s)
	defer done()
	signups.Cancel(ss)
}

// signupList is the sign-ups of a loaded game (nil for a game that had
// none).
func signupList(l *loaded, players []store.Player, zone *time.Location) *signups.List {
	su := l.cfg.Signups
	if su == nil {
		return nil
	}
	return signups.ListOf(l.row.Status, su.Min, su.Max, l.state, l.cfg.Start, players, zone)
}

// Signups is a game's sign-ups: who is in, in order, and when they close.
func (m *Moderator) Signups(ctx context.Context, name string) (*signups.List, error) {
	l, err := m.viewNamed(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("signups %s: %w", name, err)
	}
	var players []store.Player
	if err := m.DB.View(ctx, func(tx *store.Tx) error {
		var err error
		players, err = tx.Players(l.row.ID)
		return err
	}); err != nil {
		return nil, fmt.Errorf("signups %s: %w", name, err)
	}
	out := signupList(l, players, l.zone())
	if out == nil {
		return nil, fmt.Errorf("game %s was not filled by sign-ups: its players are in its game file", name)
	}
	return out, nil
}

// decodeSignups reads a game's sign-up state (decodeGame).
func decodeSignups(l *loaded) error {
	st, err := signup.Decode(l.row.State)
	if err != nil {
		return err
	}
	l.game, l.state = signup.Engine(l.row.Kind), st
	return nil
}

// signupItem says whether an outbox item belongs to the sign-ups, not to
// the game that followed them (signups.Item).
func signupItem(it *store.OutboxItem) bool { return signups.Item(it.Marker) }
