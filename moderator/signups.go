package moderator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/signup"
	"github.com/forumgm/forumgm/store"
)

// Sign-ups in the thread (docs/signups.md, RULINGS.md "Sign-ups"). A game
// whose file gives signups: instead of players: is created taking sign-ups
// (status Signups): its state is the sign-up list (signup.State, played by
// signup.Game, so status, the desk and the PM routing read it as any game),
// and the bot posts the call for players. Each poll reads the thread as for
// any game; processSignups then reads /in and /out from the new posts in
// one step and answers them in one post. When the game is full, or at the
// closing time with enough in, the same step closes sign-ups and starts the
// game with those in: the real game set up from its recorded seed, its
// players (names and forum user ids as their posts showed them), the
// opening post and the role PMs, all saved at once, so a crash leaves
// sign-ups open or the game started, never half of it; the outbox sends
// each message once. Too few at the closing time: extended once, or the
// game is cancelled, saying so.

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

// signups is the sign-up state of a step's game (ok false once it started).
func (s *step) signups() (signup.State, bool) {
	st, ok := s.l.state.(signup.State)
	return st, ok && s.l.row.Status == Signups
}

// signing is one step's work on sign-ups: the commands it read, answered
// together in one post.
type signing struct {
	m       *Moderator
	s       *step
	results []signup.Result
	done    bool // sign-ups closed (started or cancelled) in this step
	changed bool // something to save and say
}

// processSignups reads the sign-up commands of every message recorded and
// not yet read, in forum order, in one step: up to readAt (the read was
// complete up to then), closing sign-ups first when a message was surely
// made after the closing time, and at the end when readAt is past it.
// Messages after the one that filled the game are left for the game.
func (m *Moderator) processSignups(ctx context.Context, l *loaded, readAt time.Time) error {
	if l.behind && l.readTo.Before(readAt) {
		readAt = l.readTo
	}
	msgs, err := m.unread(ctx, l.row.ID)
	if err != nil {
		return fmt.Errorf("sign-ups of %s: %w", l.row.Name, err)
	}
	var g *signing
	err = m.DB.Tx(ctx, func(tx *store.Tx) error {
		s, err := m.begin(tx, l)
		if err != nil {
			return err
		}
		g = &signing{m: m, s: s}
		if _, ok := s.signups(); !ok {
			return nil // started (or cancelled) meanwhile
		}
		for _, msg := range msgs {
			if msg.Stamp.After(readAt) == forum.Yes {
				break // made after the read began: the next read has it complete
			}
			cur, err := tx.Message(msg.ID)
			if err != nil {
				return err
			}
			if cur.Status != store.MessageNew {
				continue
			}
			for st, ok := s.signups(); ok && msg.Stamp.Known() && msg.Stamp.Before(st.Close) == forum.No; st, ok = s.signups() {
				if err := g.closingTime(st); err != nil {
					return err
				}
			}
			if g.done {
				break // the rest belong to the game (or to none)
			}
			if err := g.message(msg); err != nil {
				return fmt.Errorf("%s %s: %w", msg.Kind, msg.ForumID, err)
			}
			if g.done {
				break
			}
		}
		for st, ok := s.signups(); ok && !g.done && readAt.After(st.Close); st, ok = s.signups() {
			if err := g.closingTime(st); err != nil {
				return err
			}
		}
		if !g.changed {
			return nil
		}
		if st, ok := s.signups(); ok && len(g.results) > 0 {
			s.post(st.ListText(g.results, s.l.zone(), m.now()), m.now())
		}
		if err := m.commit(tx, s); err != nil {
			return err
		}
		return m.crash("in-signups") // inside the transaction: all of the step is undone
	})
	if err != nil {
		return fmt.Errorf("sign-ups of %s: %w", l.row.Name, err)
	}
	m.logResolved(g.s)
	if g.done {
		return m.crash("after-signups")
	}
	return nil
}

// message reads one message's sign-up commands.
func (g *signing) message(msg store.Message) error {
	s := g.s
	st, _ := s.signups()
	author := forum.Author{Name: msg.AuthorName, ID: msg.AuthorID}
	if strings.EqualFold(msg.AuthorName, s.l.forum.Bot) && len(forum.Markers(msg.BodyHTML)) > 0 {
		// The bot's own post (the call says "post [b]/in[/b]").
		s.setMessage(msg.ID, store.MessageIgnored)
		return nil
	}
	var segs []string
	if msg.Kind == forum.KindPM {
		segs = s.l.site.Reader.Lines(msg.BodyHTML)
	} else {
		segs = s.l.site.Reader.Segments(msg.BodyHTML)
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
		s.ch.Commands = append(s.ch.Commands, store.CommandRow{GameID: s.l.row.ID, MessageID: msg.ID, Seq: c.Seq, Phase: signup.Phase,
			Player: msg.AuthorName, Channel: string(channelOf(msg.Kind)), Text: c.Text, Kind: string(c.Kind), Args: signupArgs(author),
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
		s.pmTo(author, "sign-ups", "Your PM was read, but sign-ups are not taken by PM:\n"+strings.Join(lines, "\n"))
		return nil
	case !msg.Stamp.Known():
		// Never a silent drop: whether it came before the closing time
		// cannot be told.
		reason := unreadableReason(msg.Stamp)
		s.warn("a message's time could not be read; its sign-up was not taken", "kind", msg.Kind, "id", msg.ForumID, "author", msg.AuthorName, "time", msg.Stamp.Text, "err", msg.Stamp.Err)
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
			st, r = st.Join(msg.AuthorName, msg.AuthorID, laterOf(msg.Stamp.Earliest, s.l.cfg.Start), msg.ForumID)
		} else {
			st, r = st.Leave(msg.AuthorName, msg.AuthorID)
		}
		row(c, r)
		g.results = append(g.results, r)
		if g.done {
			continue
		}
		s.l.state = st
		if r.OK && st.Full() {
			if err := g.start(st, laterOf(msg.Stamp.Earliest, s.l.cfg.Start), signup.Filled); err != nil {
				return err
			}
		}
	}
	return nil
}

// signupArgs keeps the forum user id an /in was read with in the audit log.
func signupArgs(a forum.Author) []string {
	if a.ID == "" {
		return nil
	}
	return []string{"forum user id " + a.ID}
}

// closingTime is the closing time of st come: the game starts with enough
// in; else sign-ups are extended once, or the game is cancelled.
func (g *signing) closingTime(st signup.State) error {
	g.changed = true
	switch st.AtClose() {
	case signup.Start:
		return g.start(st, st.Close, signup.Closing)
	case signup.Extend:
		s := g.s
		at := st.Close
		st = st.Extend(forum.DeadlineOn(at.Add(st.ExtendBy), s.l.deadlineUnit()))
		s.l.state = st
		s.post(st.ExtendedText(g.results, s.l.zone(), g.m.now()), at)
		g.results = nil
		s.resolved = append(s.resolved, signup.Phase+" (extended)")
		return nil
	default:
		g.cancel(st, false)
		return nil
	}
}

// cancel closes sign-ups for good: the game never starts.
func (g *signing) cancel(st signup.State, byGM bool) {
	s := g.s
	s.post(st.CancelledText(g.results, byGM), g.m.now())
	g.results = nil
	s.l.row.Status = Cancelled
	g.done, g.changed = true, true
	s.resolved = append(s.resolved, signup.Phase+" (cancelled)")
}

// start closes sign-ups at at and starts the game with those in: it is set
// up from its recorded seed with them as its players, in sign-up order, and
// its opening post and role PMs are queued after the post that closes
// sign-ups, all in this step.
func (g *signing) start(st signup.State, at time.Time, why signup.Why) error {
	s, m := g.s, g.m
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
	s.post(st.ClosedText(why, g.results), at)
	g.results = nil
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
	s.resolved = append(s.resolved, signup.Phase)
	g.done, g.changed = true, true
	return nil
}

// lateSignup records the /in and /out of someone who is not a player, made
// after sign-ups closed (the game applies what comes after them): each a
// rejection with the reason, in the audit log. The post that closed
// sign-ups told the thread that an /in cannot be taken any more. It says
// whether the message had any.
func lateSignup(s *step, msg store.Message) bool {
	l := s.l
	if l.cfg.Signups == nil || msg.Kind != forum.KindPost || !l.active() || strings.EqualFold(msg.AuthorName, l.forum.Bot) {
		return false
	}
	cmds := signup.Read(l.site.Reader.Segments(msg.BodyHTML))
	if len(cmds) == 0 {
		return false
	}
	reason := signup.LateReason(l.cfg.Start, l.zone())
	for _, c := range cmds {
		s.ch.Commands = append(s.ch.Commands, store.CommandRow{GameID: l.row.ID, MessageID: msg.ID, Seq: c.Seq, Phase: l.phase(),
			Player: msg.AuthorName, Channel: string(rules.Public), Text: c.Text, Kind: string(c.Kind), Args: signupArgs(forum.Author{Name: msg.AuthorName, ID: msg.AuthorID}),
			Status: store.CommandRejected, Reason: reason, Time: msg.Time})
	}
	s.setMessage(msg.ID, store.MessageProcessed)
	return true
}

// signupEdit is why an edit of a sign-up post changes nothing.
const signupEdit = "edited during sign-ups: the list goes by each post as first read; post /in or /out again instead"

// ErrNotSigningUp is a sign-up control on a game not taking sign-ups.
var ErrNotSigningUp = errors.New("not taking sign-ups")

// signupControl runs a GM's sign-up control as a step.
func (m *Moderator) signupControl(ctx context.Context, what, name string, fn func(g *signing, st signup.State) error) error {
	return m.control(ctx, "signups "+what, name, func(_ *store.Tx, s *step) error {
		st, ok := s.signups()
		if !ok {
			return fmt.Errorf("game %s is %s: %w", name, s.l.row.Status, ErrNotSigningUp)
		}
		return fn(&signing{m: m, s: s}, st)
	})
}

// gmRow records a GM's sign-up control in the audit log.
func (g *signing) gmRow(kind, text, reason string) {
	s := g.s
	s.ch.Commands = append(s.ch.Commands, store.CommandRow{GameID: s.l.row.ID, Phase: signup.Phase, Player: "(the GM)", Text: text, Kind: kind,
		Status: store.CommandAccepted, Reason: reason, Time: g.m.now()})
}

// CloseSignups closes a game's sign-ups now and starts it with those in
// (at least the minimum).
func (m *Moderator) CloseSignups(ctx context.Context, name string) error {
	return m.signupControl(ctx, "close", name, func(g *signing, st signup.State) error {
		if !st.Enough() {
			return fmt.Errorf("only %d signed up, and %s needs at least %d: nothing closed (wait, or cancel the game with 'forumgm end %s')", len(st.In), name, st.Min, name)
		}
		g.gmRow("close", "close", fmt.Sprintf("the GM closed sign-ups with %d in", len(st.In)))
		return g.start(st, m.now(), signup.ByGM)
	})
}

// RemoveSignup takes who (matched as commands name players) off a game's
// sign-ups and says so in the thread. It returns the name taken off.
func (m *Moderator) RemoveSignup(ctx context.Context, name, who string) (string, error) {
	var gone string
	err := m.signupControl(ctx, "remove", name, func(g *signing, st signup.State) error {
		st, r, err := st.Take(who)
		if err != nil {
			return err
		}
		gone = r.Name
		g.s.l.state = st
		g.gmRow("remove", "remove "+who, "the GM took "+r.Name+" off the sign-ups")
		g.s.post(st.ListText([]signup.Result{r}, g.s.l.zone(), m.now()), m.now())
		return nil
	})
	return gone, err
}

// cancelSignups is End on a game in sign-ups: it is cancelled, and the
// thread told.
func (m *Moderator) cancelSignups(s *step) {
	st, _ := s.signups()
	g := &signing{m: m, s: s}
	g.gmRow("cancel", "end", "the GM cancelled the game during sign-ups")
	g.cancel(st, true)
}

// SignupList is a game's sign-ups as the GM sees them (`forumgm signups`,
// `status`, the desk).
type SignupList struct {
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

// signupList is the sign-ups of a loaded game (nil for a game that had
// none).
func signupList(l *loaded, players []store.Player, zone *time.Location) *SignupList {
	su := l.cfg.Signups
	if su == nil {
		return nil
	}
	out := &SignupList{Status: l.row.Status, Min: su.Min, Max: su.Max, In: []signup.Entry{}}
	if st, ok := l.state.(signup.State); ok {
		out.Open = l.row.Status == Signups
		out.Close, out.Extended, out.In = st.Close, st.Extended, st.In
	} else {
		out.Close = l.cfg.Start
		for _, p := range players {
			out.In = append(out.In, signup.Entry{Name: p.ForumName, ID: p.ForumUserID})
		}
	}
	out.CloseText = rules.WhenUTC(out.Close, zone)
	return out
}

// Signups is a game's sign-ups: who is in, in order, and when they close.
func (m *Moderator) Signups(ctx context.Context, name string) (*SignupList, error) {
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

// signupItem says whether an outbox item belongs to the sign-ups (its
// marker's phase), not to the game that followed them.
func signupItem(it *store.OutboxItem) bool {
	_, rest, _ := strings.Cut(it.Marker, "/")
	return strings.HasPrefix(rest, signup.Phase+"/")
}
