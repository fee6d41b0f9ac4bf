package moderator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// loaded is a game row with its decoded parts.
type loaded struct {
	row   *store.Game
	game  rules.Game
	cfg   gameconfig.GameConfig
	forum gameconfig.ForumConfig
	state rules.State
	// cfgChanged: a step changed cfg (GracePhase); commit saves it.
	cfgChanged bool
	// site is the game's board, resolved outside any transaction (Moderator.
	// site) and held; nil for a game loaded only to be told apart from
	// another (siblings), which needs no board.
	site *gameconfig.Site
	// behind is set by a read that stopped before the thread's end (a long
	// backfill spread over polls); readTo is then as far as the thread is
	// known complete: the time of the last post it recorded.
	behind bool
	readTo time.Time
	// inboxDown is set by a read whose thread read and whose PM inbox did
	// not (inbox.go): PMs are known only up to pmsTo, the last read that
	// got the inbox.
	inboxDown bool
	pmsTo     time.Time
	// news: the tick's read recorded a new or edited message (the poll
	// follows the game: poll.go).
	news bool
	// inbox is a read's inbox that brought no PMs, left for the tick's
	// last step to record (readPMs): nil when recorded.
	inbox *pendingInbox
	// end is what the tick's last step saw (process), for its worker.
	end *tickEnd
	// sibs are the account's games by player as the tick's view found
	// them, current while store.Tx.GamesVersion is sibsAt (nil: not
	// looked at): its inbox read leaves the others' PMs unread.
	sibs   *siblingIndex
	sibsAt int64
	// unread are the game's messages not applied yet as the tick's view
	// found them (unreadKnown): still so after a read that recorded no
	// new or edited message (news), so process need not look again.
	unread      []store.Message
	unreadKnown bool
	// saved is the game as the tick's last committed step saved it (nil:
	// none yet): the next step takes its state from here when nothing
	// else saved the game since (again).
	saved *savedGame
}

// savedGame is a game's state as a step saved it, at its revision.
type savedGame struct {
	revision int64
	forum    []byte
	state    rules.State
}

// tickEnd is what a tick's last step left: the game's status and deadline,
// whether its board's reads are failing, and whether anything is queued
// to send (due or not). The worker takes it instead of loading the game
// again, and asks the sender for a drain only when something is queued.
type tickEnd struct {
	status   store.GameStatus
	deadline time.Time
	failing  bool
	unsent   bool
	opening  bool // its opening post not up yet (awaitingOpening)
}

// pendingInbox is an inbox read not recorded yet, and when its read began.
type pendingInbox struct {
	in     inboxRead
	readAt time.Time
}

func decodeGame(g *store.Game) (*loaded, error) {
	eng, err := rules.Lookup(g.Kind)
	if err != nil {
		return nil, fmt.Errorf("game %s: %w", g.Name, err)
	}
	l := &loaded{row: g, game: eng}
	if err := json.Unmarshal(g.Config, &l.cfg); err != nil {
		return nil, fmt.Errorf("game %s: config: %w", g.Name, err)
	}
	if err := json.Unmarshal(g.Forum, &l.forum); err != nil {
		return nil, fmt.Errorf("game %s: forum settings: %w", g.Name, err)
	}
	if l.cfg.SigningUp() {
		// Taking sign-ups: the state is the list (signups.go).
		if err := decodeSignups(l); err != nil {
			return nil, fmt.Errorf("game %s: %w", g.Name, err)
		}
		return l, nil
	}
	if l.state, err = eng.Decode(g.State); err != nil {
		return nil, fmt.Errorf("game %s: state: %w", g.Name, err)
	}
	return l, nil
}

// again is the game as a step loaded it (g, read under the step's lock)
// decoded: its state taken from l, the tick's view, when g is the same
// revision l was decoded from or its last step saved (a quiet tick then
// decodes the game once), else decoded afresh. Its config is always decoded afresh: a step may
// change it in place and then fail. States are never changed in place
// (rules.Game).
func (l *loaded) again(g *store.Game) (n *loaded, decoded bool, err error) {
	have := savedGame{revision: l.row.Revision, forum: l.row.Forum, state: l.state}
	if l.saved != nil {
		have = *l.saved
	}
	if have.state == nil || have.revision != g.Revision || l.row.Kind != g.Kind || !bytes.Equal(have.forum, g.Forum) || l.cfg.SigningUp() {
		n, err = decodeGame(g)
		return n, true, err
	}
	n = &loaded{row: g, game: l.game, forum: l.forum, state: have.state}
	if err := json.Unmarshal(g.Config, &n.cfg); err != nil {
		return nil, false, fmt.Errorf("game %s: config: %w", g.Name, err)
	}
	if n.cfg.SigningUp() {
		n, err = decodeGame(g)
		return n, true, err
	}
	return n, false, nil
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

// phase is the current phase's name.
func (l *loaded) phase() string { return l.game.Status(l.state).Phase }

// active says whether the game still takes commands.
func (l *loaded) active() bool { return l.row.Status == Running || l.row.Status == Paused }

// view loads a game by id with its board, for the steps that follow: the
// game is read in a transaction of its own, the board resolved after it.
func (m *Moderator) view(ctx context.Context, id int64) (*loaded, error) {
	return m.viewBy(ctx, func(tx *store.Tx) (*store.Game, error) { return tx.GameByID(id) })
}

// viewForRead is view for a tick: with the games sharing its inbox
// (readInbox) and its messages not applied yet (process), from the same
// snapshot.
func (m *Moderator) viewForRead(ctx context.Context, id int64) (*loaded, error) {
	var l *loaded
	err := m.DB.View(ctx, func(tx *store.Tx) error {
		g, err := tx.GameByID(id)
		if err != nil {
			return err
		}
		if l, err = decodeGame(g); err != nil {
			return err
		}
		m.decodes.Add(1)
		if l.active() && l.state != nil {
			if l.sibs, l.sibsAt, err = m.siblingsAt(tx, l); err != nil {
				return err
			}
		}
		l.unread, err = tx.MessagesByStatus(id, store.MessageNew)
		l.unreadKnown = err == nil
		return err
	})
	if err != nil {
		return nil, err
	}
	l.site = m.site(l.row.ID, l.row.Forum, l.forum)
	return l, nil
}

// viewNamed is view by the game's name.
func (m *Moderator) viewNamed(ctx context.Context, name string) (*loaded, error) {
	return m.viewBy(ctx, func(tx *store.Tx) (*store.Game, error) {
		g, err := tx.Game(name)
		if err != nil {
			return nil, fmt.Errorf("game %q: %w", name, err)
		}
		return g, nil
	})
}

func (m *Moderator) viewBy(ctx context.Context, get func(*store.Tx) (*store.Game, error)) (*loaded, error) {
	var l *loaded
	err := m.DB.View(ctx, func(tx *store.Tx) error {
		g, err := get(tx)
		if err != nil {
			return err
		}
		l, err = decodeGame(g)
		return err
	})
	if err != nil {
		return nil, err
	}
	l.site = m.site(l.row.ID, l.row.Forum, l.forum)
	return l, nil
}

// site is the board of the game id with these forum settings, resolved the
// first time and held for every later step (no profile file is read in a
// step). A game's forum settings do not change once it is created; should
// they, the board is resolved again. A board whose profile cannot be loaded
// still writes times (gameconfig.Site.Err), and cannot be read; it is not
// held, so the game's next load finds the file once the GM puts it back.
func (m *Moderator) site(id int64, raw []byte, fc gameconfig.ForumConfig) *gameconfig.Site {
	m.mu.Lock()
	e, ok := m.sites[id]
	m.mu.Unlock()
	if ok && bytes.Equal(e.forum, raw) {
		return e.site
	}
	s := resolveSite(fc, m.bodyReader)
	m.hold(id, raw, s)
	return s
}

// bodyReader is parser.NewBodyReader, compiled once per profile and shared
// by the games on it (a reader only reads): at 1,000 games, each game's
// own compiled selectors and patterns were most of the bot's heap
// (BenchmarkBurst's heap profile), and compiling them most of what a
// game's creation allocated.
func (m *Moderator) bodyReader(p forum.Profile) (*parser.BodyReader, error) {
	key, err := json.Marshal(p)
	if err != nil {
		return parser.NewBodyReader(p)
	}
	m.mu.Lock()
	r := m.readers[string(key)]
	m.mu.Unlock()
	if r != nil {
		return r, nil
	}
	if r, err = parser.NewBodyReader(p); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.readers == nil {
		m.readers = map[string]*parser.BodyReader{}
	}
	if old := m.readers[string(key)]; old != nil {
		return old, nil // compiled meanwhile by another game's step
	}
	m.readers[string(key)] = r
	return r, nil
}

// hold keeps the board resolved for game id's forum settings.
func (m *Moderator) hold(id int64, raw []byte, s *gameconfig.Site) {
	if s.Err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sites == nil {
		m.sites = map[int64]siteEntry{}
	}
	m.sites[id] = siteEntry{forum: bytes.Clone(raw), site: s}
}

// resolveSite resolves a game's board (gameconfig.ForumConfig.Site), or
// says why it cannot be (gameconfig.Site.Err).
func resolveSite(fc gameconfig.ForumConfig, compile func(forum.Profile) (*parser.BodyReader, error)) *gameconfig.Site {
	s, err := fc.SiteWith(compile)
	if err != nil {
		return fc.UnknownSite(err)
	}
	return s
}

// siteEntry is a game's resolved board with the settings it came from.
type siteEntry struct {
	forum []byte
	site  *gameconfig.Site
}

func channelOf(kind forum.MessageKind) rules.Channel {
	if kind == forum.KindPM {
		return rules.Private
	}
	return rules.Public
}
