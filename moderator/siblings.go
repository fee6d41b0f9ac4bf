package moderator

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// sibling is what routing a shared inbox's PM needs of another running
// game on the same account: its id, its name and who plays in it.
type sibling struct {
	id      int64
	name    string
	account forum.Account
	authors map[string]string // by foldKey of a player's forum name: the slot
}

// siblingCache keeps the running and paused games decoded as siblings, as
// of one store.Tx.GamesVersion count: when the count moves, only the games
// changed since (store.Tx.GamesChangedSince) are loaded and decoded again.
// Without it every game's read of a shared inbox loaded and decoded every
// other game on the account, which at 1,000 games was a quarter of the
// bot's CPU (BenchmarkBurst's profile); listing every game's revision at
// each count was a fifth of it while 1,000 games were created and opened.
// Each account's index by player is built from it once per count.
type siblingCache struct {
	mu      sync.Mutex
	version int64                           // the count byID is as of; -1: not loaded (a count may be 0)
	byID    map[int64]siblingEntry          // replaced at a new count, never changed once shared
	idx     map[forum.Account]*siblingIndex // built from byID, at an account's first read
}

type siblingEntry struct {
	g *sibling // nil: the row does not decode
}

// siblingIndex is the running games of one account, by id, and indexed by
// their players' forum names (foldKey), each list by id. It is shared:
// nobody changes its games once built.
type siblingIndex struct {
	games    []*sibling
	byAuthor map[string][]*sibling
}

// others are the index's games but self.
func (ix *siblingIndex) others(self int64) []*sibling { return without(ix.games, self) }

// also are the games but self that the player with this forum name plays in.
func (ix *siblingIndex) also(name string, self int64) []*sibling {
	return without(ix.byAuthor[foldKey(name)], self)
}

// elsewhere says whether the player with this forum name plays in a game
// but self: also's question as a shared inbox's filter asks it of every
// entry of the list, without making the list.
func (ix *siblingIndex) elsewhere(name string, self int64) bool {
	for _, g := range ix.byAuthor[foldKey(name)] {
		if g.id != self {
			return true
		}
	}
	return false
}

func without(gs []*sibling, self int64) []*sibling {
	for i, g := range gs {
		if g.id == self {
			return append(gs[:i:i], gs[i+1:]...)
		}
	}
	return gs
}

// siblings are the running games moderated on the same board by the same
// bot account as l (l among them, as this step loaded it): a PM in the
// inbox they share may be for any of them.
func (m *Moderator) siblings(tx *store.Tx, l *loaded) (*siblingIndex, error) {
	ix, _, err := m.siblingsAt(tx, l)
	return ix, err
}

// siblingsAt is siblings, with the store.Tx.GamesVersion of tx: while it
// stays, the index is current.
func (m *Moderator) siblingsAt(tx *store.Tx, l *loaded) (*siblingIndex, int64, error) {
	ver, err := tx.GamesVersion()
	if err != nil {
		return nil, 0, fmt.Errorf("other games on the board: %w", err)
	}
	m.mu.Lock()
	if m.sibs == nil {
		m.sibs = &siblingCache{version: -1}
	}
	c := m.sibs
	m.mu.Unlock()
	acct := l.forum.Account()
	c.mu.Lock()
	base, games := c.version, c.byID
	if base == ver {
		defer c.mu.Unlock()
		return c.index(acct), ver, nil // no game's status, settings or roster changed since
	}
	c.mu.Unlock()
	// Loaded and decoded outside the lock: other games' reads go on.
	var next map[int64]siblingEntry
	if base < 0 || base > ver {
		next, err = loadSiblings(tx)
	} else {
		next, err = updateSiblings(tx, games, base)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("other games on the board: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != base {
		// Another read moved the cache meanwhile (to its own count):
		// this one's games, as of its count, are not kept.
		return indexOf(next, acct), ver, nil
	}
	c.version, c.byID, c.idx = ver, next, nil
	return c.index(acct), ver, nil
}

// index is the account's index of c's games, built at its first asking
// (c.mu held).
func (c *siblingCache) index(acct forum.Account) *siblingIndex {
	if ix := c.idx[acct]; ix != nil {
		return ix
	}
	if c.idx == nil {
		c.idx = map[forum.Account]*siblingIndex{}
	}
	ix := indexOf(c.byID, acct)
	c.idx[acct] = ix
	return ix
}

// indexOf indexes the games of one account, by id.
func indexOf(games map[int64]siblingEntry, acct forum.Account) *siblingIndex {
	ix := &siblingIndex{byAuthor: map[string][]*sibling{}}
	for _, id := range slices.Sorted(maps.Keys(games)) {
		if g := games[id].g; g != nil && g.account == acct {
			ix.games = append(ix.games, g)
		}
	}
	for _, g := range ix.games {
		for k := range g.authors {
			ix.byAuthor[k] = append(ix.byAuthor[k], g)
		}
	}
	return ix
}

// loadSiblings loads and decodes every running and paused game.
func loadSiblings(tx *store.Tx) (map[int64]siblingEntry, error) {
	revs, err := tx.GameRevisions(Running, Paused)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]siblingEntry, len(revs))
	for _, r := range revs {
		row, err := tx.GameByID(r.ID)
		if err != nil {
			return nil, err
		}
		out[r.ID] = siblingEntry{g: newSibling(row)}
	}
	return out, nil
}

// updateSiblings is games as of count base, with the games changed since
// loaded and decoded again, or left out when they no longer run; the
// others keep their decoding.
func updateSiblings(tx *store.Tx, games map[int64]siblingEntry, base int64) (map[int64]siblingEntry, error) {
	changed, err := tx.GamesChangedSince(base)
	if err != nil {
		return nil, err
	}
	next := maps.Clone(games)
	for _, h := range changed {
		if h.Status != Running && h.Status != Paused {
			delete(next, h.ID)
			continue
		}
		row, err := tx.GameByID(h.ID)
		if err != nil {
			return nil, err
		}
		g := newSibling(row)
		if old, ok := next[h.ID]; ok && sameSibling(old.g, g) {
			g = old.g // an unchanged roster keeps its decoding
		}
		next[h.ID] = siblingEntry{g: g}
	}
	return next, nil
}

// sameSibling says whether two decodings route alike.
func sameSibling(a, b *sibling) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.id == b.id && a.name == b.name && a.account == b.account && maps.Equal(a.authors, b.authors)
}

// newSibling decodes a game's row; nil when it does not decode (a broken
// game must not stop the others).
func newSibling(row *store.Game) *sibling {
	o, err := decodeGame(row)
	if err != nil || o.state == nil {
		return nil
	}
	return siblingOf(row.ID, row.Name, o.forum.Account(), o.state)
}

func siblingOf(id int64, name string, acct forum.Account, st rules.State) *sibling {
	if st == nil {
		return nil
	}
	g := &sibling{id: id, name: name, account: acct, authors: map[string]string{}}
	for _, s := range st.Roster().Slots {
		if k := foldKey(s.Display); g.authors[k] == "" {
			g.authors[k] = s.ID // the first, as Roster.Author finds it
		}
	}
	return g
}

// foldKey maps every string strings.EqualFold holds equal to one key: each
// rune replaced by the smallest of its simple case-folding orbit.
func foldKey(s string) string {
	if k, ok := asciiFoldKey(s); ok {
		return k
	}
	return orbitFoldKey(s)
}

// orbitFoldKey is foldKey rune by rune.
func orbitFoldKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		low := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			low = min(low, f)
		}
		b.WriteRune(low)
	}
	return b.String()
}

// asciiFoldKey is foldKey of an ASCII name, found without a rune's orbit:
// each letter's smallest is its capital ('k' and 's' fold to non-ASCII
// letters too, but those are larger). s itself when it has no small
// letter, so that most names cost nothing. ok is false for other names.
func asciiFoldKey(s string) (string, bool) {
	lower := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return "", false
		}
		lower = lower || 'a' <= c && c <= 'z'
	}
	if !lower {
		return s, true
	}
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b), true
}

// rosterKey is a state's roster as routing reads it (slots and names): a
// step that changes it says so (store.Changes.Roster), so that the siblings
// of every game on the account are looked at again.
func rosterKey(st rules.State) string {
	if st == nil || st.Roster() == nil {
		return ""
	}
	var b strings.Builder
	for _, sl := range st.Roster().Slots {
		b.WriteString(sl.ID)
		b.WriteByte(0)
		b.WriteString(sl.Display)
		b.WriteByte(1)
	}
	return b.String()
}
