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

// siblingCache keeps each game's sibling as decoded from its stored row,
// by the row's revision: a game is loaded and decoded again only when it
// has changed. Without it every game's read of a shared inbox loaded and
// decoded every other game on the account, which at 1,000 games was a
// quarter of the bot's CPU (BenchmarkBurst's profile). It keeps each
// account's index by player too, as current while store.Tx.GamesVersion
// stays (no game started or stopped running, or changed its account or
// roster): listing every game's revision and indexing them again at every
// game's read of PMs was another quarter at 1,000 games.
type siblingCache struct {
	mu   sync.Mutex
	byID map[int64]siblingEntry
	idx  map[forum.Account]*siblingIndex
}

type siblingEntry struct {
	rev int64    // store.Game.Revision
	g   *sibling // nil: the row does not decode
}

// siblingIndex is the running games of one account, by id, and indexed by
// their players' forum names (foldKey), each list by id. It is shared:
// nobody changes its games once built.
type siblingIndex struct {
	games    []*sibling
	byAuthor map[string][]*sibling
	version  int64 // store.Tx.GamesVersion when it was last found current
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
		m.sibs = &siblingCache{byID: map[int64]siblingEntry{}, idx: map[forum.Account]*siblingIndex{}}
	}
	c := m.sibs
	m.mu.Unlock()
	acct := l.forum.Account()
	c.mu.Lock()
	if ix := c.idx[acct]; ix != nil && ix.version == ver {
		c.mu.Unlock()
		return ix, ver, nil // no game's status, settings or roster changed since
	}
	c.mu.Unlock()
	revs, err := tx.GameRevisions(Running, Paused)
	if err != nil {
		return nil, 0, fmt.Errorf("other games on the board: %w", err)
	}

	found := make([]*sibling, len(revs))
	var miss []int
	c.mu.Lock()
	for i, r := range revs {
		if e, ok := c.byID[r.ID]; ok && e.rev == r.Revision {
			found[i] = e.g
		} else if r.ID != l.row.ID {
			miss = append(miss, i)
		}
	}
	c.mu.Unlock()
	// Loaded and decoded outside the lock: other games' reads go on.
	fresh := make([]siblingEntry, len(miss))
	for j, i := range miss {
		row, err := tx.GameByID(revs[i].ID)
		if err != nil {
			return nil, 0, fmt.Errorf("other games on the board: %w", err)
		}
		fresh[j] = siblingEntry{rev: row.Revision, g: newSibling(row)}
	}
	for i, r := range revs {
		if r.ID == l.row.ID && found[i] == nil {
			// l itself, as this step loaded it: no need to load it again.
			miss = append(miss, i)
			fresh = append(fresh, siblingEntry{rev: l.row.Revision, g: siblingOf(l.row.ID, l.row.Name, l.forum.Account(), l.state)})
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for j, i := range miss {
		if old, ok := c.byID[revs[i].ID]; ok && sameSibling(old.g, fresh[j].g) {
			fresh[j].g = old.g // an unchanged roster keeps the index
		}
		c.byID[revs[i].ID] = fresh[j]
		found[i] = fresh[j].g
	}
	if len(c.byID) > 2*len(revs)+16 { // games ended or deleted
		live := map[int64]bool{}
		for _, r := range revs {
			live[r.ID] = true
		}
		for id := range c.byID {
			if !live[id] {
				delete(c.byID, id)
			}
		}
	}
	var games []*sibling
	for _, g := range found {
		if g != nil && g.account == acct {
			games = append(games, g)
		}
	}
	if ix := c.idx[acct]; ix != nil && slices.Equal(ix.games, games) {
		ix.version = max(ix.version, ver)
		return ix, ver, nil
	}
	ix := &siblingIndex{games: games, byAuthor: map[string][]*sibling{}, version: ver}
	for _, g := range games {
		for k := range g.authors {
			ix.byAuthor[k] = append(ix.byAuthor[k], g)
		}
	}
	c.idx[acct] = ix
	return ix, ver, nil
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
