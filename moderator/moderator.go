// Package moderator is the bot's loop: for each running game it reads the
// thread and the inbox, records every post and PM as first seen (and later
// edits), applies the commands in forum order through the referee, resolves
// each phase at its deadline, and sends the results exactly once through an
// outbox. Everything a step changes is written in one transaction, so a crash
// at any point leaves either all of it or none of it.
package moderator

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// Game statuses.
const (
	Running  = "running"
	Paused   = "paused"
	Finished = "finished" // the rules ended it
	Ended    = "ended"    // the GM ended it
)

// Moderator runs games kept in a store.
type Moderator struct {
	DB      *store.DB
	Connect Connector
	Clock   clock.Clock
	Log     *slog.Logger
	// Crash, when set, is called at named points of a tick; an error aborts
	// the tick there, as a crash would (tests kill the moderator with it).
	Crash func(point string) error
	// MaxAttempts before an outbox item is given up as failed (for the GM).
	MaxAttempts int

	mu    sync.Mutex
	conns map[int64]Forum
}

// ErrCrash is what a Crash hook returns to simulate a crash.
var ErrCrash = errors.New("simulated crash")

func (m *Moderator) crash(point string) error {
	if m.Crash != nil {
		return m.Crash(point)
	}
	return nil
}

func (m *Moderator) log() *slog.Logger {
	if m.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return m.Log
}

// now is the moderator's clock at the store's precision (microseconds), so
// a state rebuilt from the journal has exactly the times the live one had.
func (m *Moderator) now() time.Time {
	if m.Clock == nil {
		return time.Now().UTC().Truncate(time.Microsecond)
	}
	return m.Clock.Now().UTC().Truncate(time.Microsecond)
}

// loaded is a game row with its decoded parts.
type loaded struct {
	row   *store.Game
	game  rules.Game
	cfg   gameconfig.GameConfig
	forum gameconfig.ForumConfig
	state rules.State
}

func decodeGame(g *store.Game) (*loaded, error) {
	eng, err := rules.Lookup(g.Kind)
	if err != nil {
		return nil, err
	}
	l := &loaded{row: g, game: eng}
	if err := json.Unmarshal(g.Config, &l.cfg); err != nil {
		return nil, fmt.Errorf("game %s: config: %w", g.Name, err)
	}
	if err := json.Unmarshal(g.Forum, &l.forum); err != nil {
		return nil, fmt.Errorf("game %s: forum settings: %w", g.Name, err)
	}
	if l.state, err = eng.Decode(g.State); err != nil {
		return nil, fmt.Errorf("game %s: state: %w", g.Name, err)
	}
	return l, nil
}

// markerName is the game's part of every marker: its name and a token drawn
// when it was created, so a game re-created under the same name in the same
// thread never mistakes its predecessor's posts for its own.
func (l *loaded) markerName() string {
	if l.cfg.Instance == "" {
		return l.row.Name
	}
	return l.row.Name + "." + l.cfg.Instance
}

// load reads and locks a game inside tx.
func load(tx *store.Tx, id int64) (*loaded, error) {
	g, err := tx.LockGame(id)
	if err != nil {
		return nil, err
	}
	return decodeGame(g)
}

// save writes the state back with its phase and deadline.
func (l *loaded) save(tx *store.Tx) error {
	b, err := json.Marshal(l.state)
	if err != nil {
		return err
	}
	st := l.game.Status(l.state)
	l.row.State = b
	l.row.Phase = st.Phase
	l.row.Deadline = st.Deadline
	if st.Finished && (l.row.Status == Running || l.row.Status == Paused) {
		l.row.Status = Finished
	}
	return tx.SaveGame(l.row)
}

// Create sets a game up: draws its secrets, saves it, and queues the
// opening post and the role PMs.
func (m *Moderator) Create(ctx context.Context, name, kind string, gc gameconfig.GameConfig, fc gameconfig.ForumConfig, players []store.Player) (*store.Game, error) {
	eng, err := rules.Lookup(kind)
	if err != nil {
		return nil, err
	}
	if gc.Instance == "" {
		gc.Instance = instanceToken()
	}
	step, err := referee.Setup(eng, gc.Rules())
	if err != nil {
		return nil, err
	}
	row := &store.Game{Name: name, Kind: kind, Status: Running, Config: mustJSON(gc), Forum: mustJSON(fc)}
	l := &loaded{row: row, game: eng, cfg: gc, forum: fc, state: step.State}
	err = m.DB.Tx(ctx, func(tx *store.Tx) error {
		b, _ := json.Marshal(step.State)
		row.State = b
		if err := tx.CreateGame(row); err != nil {
			return err
		}
		for i := range players {
			players[i].GameID = row.ID
		}
		if err := tx.SetPlayers(row.ID, players); err != nil {
			return err
		}
		if err := l.save(tx); err != nil {
			return err
		}
		return m.emit(tx, l, "setup", step, m.now())
	})
	if err != nil {
		return nil, err
	}
	return row, nil
}

// emit records a step's events and queues its messages.
func (m *Moderator) emit(tx *store.Tx, l *loaded, phase string, step referee.Step, at time.Time) error {
	if len(step.Events) > 0 {
		if err := tx.AddEvents(l.row.ID, phase, step.Events, at); err != nil {
			return err
		}
	}
	if len(step.Out) == 0 {
		return nil
	}
	players, err := tx.Players(l.row.ID)
	if err != nil {
		return err
	}
	queued, err := tx.OutboxCount(l.row.ID)
	if err != nil {
		return err
	}
	roster := l.state.Roster()
	var items []store.OutboxItem
	for i, o := range step.Out {
		it := store.OutboxItem{
			// The game's name in the subject routes a player's reply to it.
			GameID: l.row.ID, Subject: "[" + l.row.Name + "] " + o.Subject, Body: o.Text, NotBefore: o.NotBefore, State: "pending",
			Marker: fmt.Sprintf("%s/%s/%d", l.markerName(), phase, queued+i+1),
		}
		if o.Public() {
			it.Kind = "post"
		} else {
			it.Kind = "pm"
			it.Recipient = o.To
			it.RecipientName = roster.Display(o.To)
			for _, p := range players {
				if p.Slot == o.To {
					it.RecipientName, it.RecipientID = p.ForumName, p.ForumUserID
				}
			}
		}
		items = append(items, it)
	}
	return tx.Enqueue(items)
}

func (m *Moderator) conn(ctx context.Context, l *loaded) (Forum, error) {
	m.mu.Lock()
	f, ok := m.conns[l.row.ID]
	m.mu.Unlock()
	if ok {
		return f, nil
	}
	f, err := m.Connect(ctx, l.forum)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.conns == nil {
		m.conns = map[int64]Forum{}
	}
	m.conns[l.row.ID] = f
	m.mu.Unlock()
	return f, nil
}

// Forget drops a game's cached forum connection (after it failed).
func (m *Moderator) Forget(id int64) {
	m.mu.Lock()
	delete(m.conns, id)
	m.mu.Unlock()
}

func (m *Moderator) view(ctx context.Context, id int64) (*loaded, error) {
	var l *loaded
	err := m.DB.View(ctx, func(tx *store.Tx) error {
		g, err := tx.GameByID(id)
		if err != nil {
			return err
		}
		l, err = decodeGame(g)
		return err
	})
	return l, err
}

// Tick is one poll of one game: read, record, apply, resolve what is due,
// send what is queued.
func (m *Moderator) Tick(ctx context.Context, id int64) error {
	l, err := m.view(ctx, id)
	if err != nil {
		return err
	}
	f, err := m.conn(ctx, l)
	if err != nil {
		return fmt.Errorf("connecting to the forum: %w", err)
	}
	if l.row.Status == Running || l.row.Status == Paused {
		readAt := m.now()
		if err := m.read(ctx, l, f, readAt); err != nil {
			// Still send what is queued: reading and posting fail apart.
			if derr := m.drain(ctx, id, f); derr != nil && ctx.Err() == nil {
				m.log().Warn("sending failed too", "game", l.row.Name, "err", derr)
			}
			return err
		}
		if err := m.crash("after-read"); err != nil {
			return err
		}
		if err := m.process(ctx, id, f, readAt); err != nil {
			return err
		}
	} else if err := m.process(ctx, id, f, m.now()); err != nil {
		// Messages recorded before the game ended are closed off (ignored).
		return err
	}
	return m.drain(ctx, id, f)
}

// read records new posts, edits, deletions and new PMs.
// readAt, when the read began, is kept as each new message's FirstSeen: the
// thread read that starts then is complete up to then, so it is the latest a
// message with only a minute-precise time can be said to have been made.
func (m *Moderator) read(ctx context.Context, l *loaded, f Forum, readAt time.Time) error {
	seen := map[string]bool{}
	next, first, last, err := f.ReadThread(ctx, l.forum.Thread, l.row.ThreadCursor, func(p forum.Post) error {
		seen[p.ID] = true
		return m.record(ctx, f, l.row.ID, "post", p.ID, p.Author, p.Time, p.BodyHTML, readAt)
	})
	if err != nil {
		return fmt.Errorf("reading the thread: %w", err)
	}
	if err := m.crash("after-thread"); err != nil {
		return err
	}
	pms, pmNext, err := f.NewPMs(ctx, l.row.PMCursor)
	if err != nil {
		return fmt.Errorf("reading the inbox: %w", err)
	}
	roster := l.state.Roster()
	return m.DB.Tx(ctx, func(tx *store.Tx) error {
		if first != "" && last != "" {
			ids, err := tx.PostIDsBetween(l.row.ID, first, last)
			if err != nil {
				return err
			}
			for _, pid := range ids {
				if !seen[pid] {
					if err := tx.MarkDeleted(l.row.ID, "post", pid, m.now()); err != nil {
						return err
					}
					m.log().Info("post deleted; its commands stand unless the GM voids them", "game", l.row.Name, "post", pid)
				}
			}
		}
		var siblings []*loaded // other games on this board and bot account
		if len(pms) > 0 {
			if siblings, err = m.siblings(tx, l); err != nil {
				return err
			}
		}
		if len(pms) > 0 {
			// The roster as it is now (a GM may have just replaced someone).
			cur, err := load(tx, l.row.ID)
			if err != nil {
				return err
			}
			roster = cur.state.Roster()
		}
		for _, pm := range pms {
			slot, ok := roster.Author(pm.From.Name)
			if !ok {
				if !playsIn(siblings, pm.From.Name) && !strings.EqualFold(pm.From.Name, l.forum.Bot) {
					// Nobody's player: keep it in the audit log (a replacement
					// writing before the GM's replace, a stranger).
					if err := m.recordTx(tx, f, l.row.ID, "pm", pm.ID, pm.From, pm.Time, pm.BodyHTML, readAt); err != nil {
						return err
					}
				}
				continue
			}
			switch pmFor(l, siblings, pm) {
			case notMine:
				continue
			case ambiguous:
				// This game (the oldest the player is in) tells them once.
				if err := m.askWhichGame(tx, f, l, siblings, slot, pm, readAt); err != nil {
					return err
				}
				continue
			}
			if err := m.recordTx(tx, f, l.row.ID, "pm", pm.ID, pm.From, pm.Time, pm.BodyHTML, readAt); err != nil {
				return err
			}
		}
		g, err := tx.LockGame(l.row.ID)
		if err != nil {
			return err
		}
		g.ThreadCursor, g.PMCursor = next, pmNext
		return tx.SaveGame(g)
	})
}

// siblings are the other running games moderated on the same board by the
// same bot account: a PM in the shared inbox may be for any of them.
func (m *Moderator) siblings(tx *store.Tx, l *loaded) ([]*loaded, error) {
	games, err := tx.Games(Running, Paused)
	if err != nil {
		return nil, err
	}
	var out []*loaded
	for i := range games {
		if games[i].ID == l.row.ID {
			continue
		}
		o, err := decodeGame(&games[i])
		if err != nil {
			continue // a broken game must not stop this one
		}
		if strings.EqualFold(o.forum.URL, l.forum.URL) && strings.EqualFold(o.forum.Bot, l.forum.Bot) {
			out = append(out, o)
		}
	}
	return out, nil
}

func playsIn(games []*loaded, forumName string) bool {
	for _, g := range games {
		if _, ok := g.state.Roster().Author(forumName); ok {
			return true
		}
	}
	return false
}

type pmRoute int

const (
	mine pmRoute = iota
	notMine
	ambiguous // the sender plays in several games and the subject names none
)

// pmFor decides whether a PM from one of this game's players is for this
// game: always, unless the sender also plays in a sibling game; then the
// subject must name the game ("[name]", as the bot's own PM subjects do, so
// a reply to the bot finds its game by itself).
func pmFor(l *loaded, siblings []*loaded, pm forum.PrivateMessage) pmRoute {
	var also []*loaded
	for _, o := range siblings {
		if _, ok := o.state.Roster().Author(pm.From.Name); ok {
			also = append(also, o)
		}
	}
	if len(also) == 0 {
		return mine
	}
	subj := strings.ToLower(pm.Subject)
	names := func(g *loaded) bool { return strings.Contains(subj, "["+strings.ToLower(g.row.Name)+"]") }
	if names(l) {
		return mine
	}
	for _, o := range also {
		if names(o) {
			return notMine
		}
	}
	for _, o := range also {
		if o.row.ID < l.row.ID {
			return notMine // the oldest game answers
		}
	}
	return ambiguous
}

// askWhichGame records an unroutable PM in the audit log and asks its sender
// to name the game.
func (m *Moderator) askWhichGame(tx *store.Tx, f Forum, l *loaded, siblings []*loaded, slot string, pm forum.PrivateMessage, seen time.Time) error {
	msg := &store.Message{GameID: l.row.ID, Kind: "pm", ForumID: pm.ID, AuthorName: pm.From.Name, AuthorID: pm.From.ID,
		Time: pm.Time.UTC(), BodyHTML: pm.BodyHTML, Hash: f.Hash(pm.BodyHTML), FirstSeen: seen}
	ch, err := tx.RecordMessage(msg)
	if err != nil || ch != store.New {
		return err
	}
	names := []string{"[" + l.row.Name + "]"}
	for _, o := range siblings {
		if _, ok := o.state.Roster().Author(pm.From.Name); ok {
			names = append(names, "["+o.row.Name+"]")
		}
	}
	reason := "you play in several games here: put the game's name in the subject (" + strings.Join(names, ", ") + ") and send it again"
	if err := tx.AddCommand(&store.CommandRow{GameID: l.row.ID, MessageID: msg.ID, Player: slot, Channel: string(rules.Private),
		Text: "(" + pm.Subject + ")", Status: "rejected", Reason: reason, Time: msg.Time, Phase: l.game.Status(l.state).Phase}); err != nil {
		return err
	}
	if err := tx.SetMessageStatus(msg.ID, "ignored"); err != nil {
		return err
	}
	step := referee.Step{Out: []referee.Outgoing{{To: slot, Subject: "which game?", Text: "Your PM “" + rules.Esc(pm.Subject) + "” was not read: " + reason + "."}}}
	return m.emit(tx, l, l.game.Status(l.state).Phase, step, msg.Time)
}

func (m *Moderator) record(ctx context.Context, f Forum, gameID int64, kind, forumID string, a forum.Author, t time.Time, body string, seen time.Time) error {
	return m.DB.Tx(ctx, func(tx *store.Tx) error { return m.recordTx(tx, f, gameID, kind, forumID, a, t, body, seen) })
}

// recordTx keeps a post or PM as first seen. An edit seen while the phase it
// was made in is still open replaces its commands (they are superseded and
// the post is read again); a later edit is only flagged for the GM.
func (m *Moderator) recordTx(tx *store.Tx, f Forum, gameID int64, kind, forumID string, a forum.Author, t time.Time, body string, seen time.Time) error {
	msg := &store.Message{GameID: gameID, Kind: kind, ForumID: forumID, AuthorName: a.Name, AuthorID: a.ID,
		Time: t.UTC(), BodyHTML: body, Hash: f.Hash(body), FirstSeen: seen}
	ch, err := tx.RecordMessage(msg)
	if err != nil || ch != store.Edited {
		return err
	}
	if msg.Status == "new" {
		return nil // not read yet: the new body is what will be read
	}
	l, err := load(tx, gameID)
	if err != nil {
		return err
	}
	opened, err := phaseOpened(tx, l)
	if err != nil {
		return err
	}
	st := l.game.Status(l.state)
	// Seen only after the deadline: it cannot be shown to predate it, so it
	// does not change the phase (nor does an edit of an earlier phase's post).
	late := l.row.Status == Running && !st.Deadline.IsZero() && !seen.Before(st.Deadline)
	if st.Finished || late || before(t, opened) {
		return tx.AddCommand(&store.CommandRow{GameID: gameID, MessageID: msg.ID, Phase: st.Phase, Player: a.Name,
			Channel: string(channelOf(kind)), Text: "(edit)", Kind: "edit", Status: "ignored", Time: m.now(),
			Reason: "edited after its phase's deadline: the edit does not change that phase"})
	}
	cmds, err := tx.Commands(gameID, store.CommandFilter{MessageID: msg.ID})
	if err != nil {
		return err
	}
	for _, c := range cmds {
		if c.Status == "superseded" || c.Status == "voided" {
			continue
		}
		if err := tx.SetCommandStatus(c.ID, "superseded", "the post was edited before the deadline; the edit replaces it"); err != nil {
			return err
		}
		if err := tx.VoidJournalForCommand(c.ID); err != nil {
			return err
		}
	}
	if err := m.rebuild(tx, l); err != nil {
		return err
	}
	if err := l.save(tx); err != nil {
		return err
	}
	return tx.SetMessageStatus(msg.ID, "new")
}

func channelOf(kind string) rules.Channel {
	if kind == "pm" {
		return rules.Private
	}
	return rules.Public
}

// before says whether a forum time is before t. Forum times are whole
// seconds: a post stamped 12:00:07 may have been made at 12:00:07.9, so only
// a time before t's own second is surely before t.
func before(forumTime, t time.Time) bool {
	return forumTime.Before(t.Truncate(time.Second))
}

// phaseOpened is when the current phase began: the last resolution, or the
// game's start.
func phaseOpened(tx *store.Tx, l *loaded) (time.Time, error) {
	t, err := tx.LastResolve(l.row.ID)
	if err != nil || !t.IsZero() {
		return t, err
	}
	return l.cfg.Start, nil
}

// process applies every unread message in forum order, resolving a phase
// first whenever a message comes after its deadline, and at the end resolves
// whatever is due as of readAt (the read was complete up to then).
func (m *Moderator) process(ctx context.Context, id int64, f Forum, readAt time.Time) error {
	var msgs []store.Message
	if err := m.DB.View(ctx, func(tx *store.Tx) error {
		var err error
		msgs, err = tx.MessagesByStatus(id, "new")
		return err
	}); err != nil {
		return err
	}
	// Forum order by the best time known for each: a PM stamped only to the
	// minute goes after the posts of that minute made before it was seen.
	for i := range msgs {
		msgs[i].Time = effectiveTime(msgs[i])
	}
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].Time.Before(msgs[j].Time) })
	for _, msg := range msgs {
		if msg.Time.After(readAt) {
			// Made after the read began (a PM fetched after the thread):
			// the thread is not known complete up to it yet. Next tick.
			break
		}
		if err := m.DB.Tx(ctx, func(tx *store.Tx) error { return m.apply(tx, id, f, msg) }); err != nil {
			return err
		}
		if err := m.crash("after-message"); err != nil {
			return err
		}
	}
	return m.DB.Tx(ctx, func(tx *store.Tx) error {
		l, err := load(tx, id)
		if err != nil {
			return err
		}
		if _, err := m.settle(tx, l, readAt); err != nil {
			return err
		}
		return l.save(tx)
	})
}

// settle resolves while the game is due at t. It reports whether it did.
func (m *Moderator) settle(tx *store.Tx, l *loaded, t time.Time) (bool, error) {
	did := false
	for i := 0; i < 100; i++ {
		st := l.game.Status(l.state)
		if st.Finished || l.row.Status != Running || !l.game.Due(l.state, t) {
			return did, nil
		}
		at := t
		if !st.Deadline.IsZero() && st.Deadline.Before(t) {
			at = st.Deadline
		}
		if err := m.resolve(tx, l, at); err != nil {
			return did, err
		}
		did = true
	}
	return did, fmt.Errorf("game %s keeps resolving", l.row.Name)
}

func (m *Moderator) resolve(tx *store.Tx, l *loaded, at time.Time) error {
	phase := l.game.Status(l.state).Phase
	step := referee.Resolve(l.game, l.state, at)
	l.state = step.State
	if err := tx.AppendJournal(&store.JournalEntry{GameID: l.row.ID, Kind: "resolve", Time: at, Payload: mustJSON(map[string]string{"phase": phase})}); err != nil {
		return err
	}
	// A crash here, between two writes of one resolution, must undo both.
	if err := m.crash("in-resolve"); err != nil {
		return err
	}
	m.log().Info("phase resolved", "game", l.row.Name, "phase", phase, "messages", len(step.Out))
	return m.emit(tx, l, phase, step, at)
}

// apply reads one message's commands and applies them.
func (m *Moderator) apply(tx *store.Tx, id int64, f Forum, msg store.Message) error {
	l, err := load(tx, id) // locks the game: one applier at a time
	if err != nil {
		return err
	}
	if cur, err := tx.Message(msg.ID); err != nil || cur.Status != "new" {
		return err // already applied (by another process) or gone
	}
	if l.row.Status == Running {
		if _, err := m.settle(tx, l, msg.Time); err != nil {
			return err
		}
	}
	roster := l.state.Roster()
	slot, isPlayer := roster.Author(msg.AuthorName)
	over := l.row.Status != Running && l.row.Status != Paused
	if !isPlayer || over || strings.EqualFold(msg.AuthorName, l.forum.Bot) {
		if err := l.save(tx); err != nil {
			return err
		}
		return tx.SetMessageStatus(msg.ID, "ignored")
	}
	// Learn the player's forum id the first time we see it (to PM them).
	if msg.AuthorID != "" {
		if err := m.learnID(tx, l.row.ID, slot, msg.AuthorID); err != nil {
			return err
		}
	}
	opened, err := phaseOpened(tx, l)
	if err != nil {
		return err
	}
	phase := l.game.Status(l.state).Phase
	ch := channelOf(msg.Kind)
	var segs []string
	if ch == rules.Public {
		segs = f.Segments(msg.BodyHTML)
	} else {
		segs = f.Lines(msg.BodyHTML)
	}
	if before(msg.Time, l.cfg.Start) {
		// Made before the game began (sign-up chatter in the thread, an old
		// PM): kept in the audit log, never read as a command.
		if err := l.save(tx); err != nil {
			return err
		}
		return tx.SetMessageStatus(msg.ID, "ignored")
	}
	if before(msg.Time, opened) {
		// Read only after its phase closed (a forum clock behind ours): it
		// cannot count for a phase already resolved; the player is told.
		step := referee.Late(l.game, l.state, rules.Source{Player: slot, Channel: ch, Time: msg.Time, Ref: msg.ForumID}, segs, "arrived after its phase had closed")
		for _, o := range step.Outcomes {
			if err := tx.AddCommand(&store.CommandRow{GameID: id, MessageID: msg.ID, Seq: o.Seq, Phase: phase, Player: slot,
				Channel: string(ch), Text: o.Text, Status: o.Status, Reason: o.Reason, Time: msg.Time}); err != nil {
				return err
			}
		}
		if err := m.emit(tx, l, phase, step, msg.Time); err != nil {
			return err
		}
		if err := l.save(tx); err != nil {
			return err
		}
		return tx.SetMessageStatus(msg.ID, "processed")
	}
	step := referee.Message(l.game, l.state, rules.Source{Player: slot, Channel: ch, Time: msg.Time, Ref: msg.ForumID}, segs)
	l.state = step.State
	for _, o := range step.Outcomes {
		row := &store.CommandRow{GameID: id, MessageID: msg.ID, Seq: o.Seq, Phase: phase, Player: slot, Channel: string(ch),
			Text: o.Text, Status: o.Status, Reason: o.Reason, Time: msg.Time}
		if o.Cmd != nil {
			row.Kind, row.Args = o.Cmd.Kind, o.Cmd.Args
		}
		if err := tx.AddCommand(row); err != nil {
			return err
		}
		if o.Status == referee.Accepted {
			if err := tx.AppendJournal(&store.JournalEntry{GameID: id, Kind: "command", CommandID: row.ID, Time: msg.Time, Payload: mustJSON(o.Cmd)}); err != nil {
				return err
			}
		}
	}
	if err := m.crash("in-apply"); err != nil {
		return err
	}
	if err := m.emit(tx, l, phase, step, msg.Time); err != nil {
		return err
	}
	// "Everyone has acted" closes a phase at once.
	if l.row.Status == Running {
		if _, err := m.settle(tx, l, msg.Time); err != nil {
			return err
		}
	}
	if err := l.save(tx); err != nil {
		return err
	}
	return tx.SetMessageStatus(msg.ID, "processed")
}

// effectiveTime is when a message was made, as well as the forum tells it.
// Some boards show PM times only to the minute (phpBB's PM page has no
// machine-readable time): such a PM was made somewhere in that minute, and
// no later than the bot first saw it.
func effectiveTime(msg store.Message) time.Time {
	t := msg.Time
	if msg.Kind != "pm" || t.Second() != 0 || t.Nanosecond() != 0 {
		return t
	}
	latest := t.Add(time.Minute - time.Second)
	if !msg.FirstSeen.IsZero() && msg.FirstSeen.Before(latest) {
		latest = msg.FirstSeen
	}
	if latest.Before(t) {
		return t
	}
	return latest
}

func (m *Moderator) learnID(tx *store.Tx, gameID int64, slot, forumID string) error {
	ps, err := tx.Players(gameID)
	if err != nil {
		return err
	}
	changed := false
	for i := range ps {
		if ps[i].Slot == slot && ps[i].ForumUserID == "" {
			ps[i].ForumUserID = forumID
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return tx.SetPlayers(gameID, ps)
}

// rebuild recomputes the state from the seed and the journal (after a
// command was voided or superseded). Events are not sent again: what was
// said was said; only the state changes.
func (m *Moderator) rebuild(tx *store.Tx, l *loaded) error {
	j, err := tx.Journal(l.row.ID)
	if err != nil {
		return err
	}
	s, err := Rebuild(l.game, l.cfg, j)
	if err != nil {
		return err
	}
	l.state = s
	return nil
}

// Rebuild replays a game's journal from its seed.
func Rebuild(g rules.Game, cfg gameconfig.GameConfig, j []store.JournalEntry) (rules.State, error) {
	s, _, err := g.Setup(cfg.Rules())
	if err != nil {
		return nil, err
	}
	for _, e := range j {
		if e.Voided {
			continue
		}
		switch e.Kind {
		case "command":
			var c rules.Command
			if err := json.Unmarshal(e.Payload, &c); err != nil {
				return nil, fmt.Errorf("journal %d: %w", e.Seq, err)
			}
			if ns, _, err := g.Apply(s, c); err == nil {
				s = ns
			}
		case "resolve":
			s, _ = g.Resolve(s, e.Time)
		case "end":
			s, _ = g.End(s, e.Time)
		case "deadline":
			var p struct {
				Deadline time.Time `json:"deadline"`
			}
			if err := json.Unmarshal(e.Payload, &p); err != nil {
				return nil, fmt.Errorf("journal %d: %w", e.Seq, err)
			}
			s = g.SetDeadline(s, p.Deadline)
		case "replace":
			var p struct{ Old, New string }
			if err := json.Unmarshal(e.Payload, &p); err != nil {
				return nil, fmt.Errorf("journal %d: %w", e.Seq, err)
			}
			s = rules.Clone(g, s)
			if err := s.Roster().Replace(p.Old, p.New); err != nil {
				return nil, fmt.Errorf("journal %d: %w", e.Seq, err)
			}
		}
	}
	return s, nil
}

func instanceToken() string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 4)
	rand.Read(b)
	for i := range b {
		b[i] = digits[int(b[i])%len(digits)]
	}
	return string(b)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
