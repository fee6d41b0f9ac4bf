package moderator

import (
	"fmt"
	"strings"
	"sync"
	"unicode"

	"github.com/forumgm/forumgm/forum"
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
// quarter of the bot's CPU (BenchmarkBurst's profile).
type siblingCache struct {
	mu   sync.Mutex
	byID map[int64]siblingEntry
}

type siblingEntry struct {
	rev int64    // store.Game.Revision
	g   *sibling // nil: the row does not decode
}

// siblings are the other running games moderated on the same board by the
// same bot account: a PM in the inbox they share may be for any of them.
func (m *Moderator) siblings(tx *store.Tx, l *loaded) ([]*sibling, error) {
	revs, err := tx.GameRevisions(Running, Paused)
	if err != nil {
		return nil, fmt.Errorf("other games on the board: %w", err)
	}
	m.mu.Lock()
	if m.sibs == nil {
		m.sibs = &siblingCache{byID: map[int64]siblingEntry{}}
	}
	c := m.sibs
	m.mu.Unlock()

	found := make([]*sibling, len(revs))
	var miss []int
	c.mu.Lock()
	for i, r := range revs {
		if r.ID == l.row.ID {
			continue
		}
		if e, ok := c.byID[r.ID]; ok && e.rev == r.Revision {
			found[i] = e.g
			continue
		}
		miss = append(miss, i)
	}
	c.mu.Unlock()
	// Loaded and decoded outside the lock: other games' reads go on.
	fresh := make([]siblingEntry, len(miss))
	for j, i := range miss {
		row, err := tx.GameByID(revs[i].ID)
		if err != nil {
			return nil, fmt.Errorf("other games on the board: %w", err)
		}
		fresh[j] = siblingEntry{rev: row.Revision, g: newSibling(row)}
		found[i] = fresh[j].g
	}
	c.mu.Lock()
	for j, i := range miss {
		c.byID[revs[i].ID] = fresh[j]
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
	c.mu.Unlock()

	var out []*sibling
	for _, g := range found {
		if g != nil && g.account == l.site.Account {
			out = append(out, g)
		}
	}
	return out, nil
}

// newSibling decodes a game's row; nil when it does not decode (a broken
// game must not stop the others).
func newSibling(row *store.Game) *sibling {
	o, err := decodeGame(row)
	if err != nil || o.state == nil {
		return nil
	}
	g := &sibling{id: row.ID, name: row.Name, account: o.forum.Account(), authors: map[string]string{}}
	for _, s := range o.state.Roster().Slots {
		if k := foldKey(s.Display); g.authors[k] == "" {
			g.authors[k] = s.ID // the first, as Roster.Author finds it
		}
	}
	return g
}

// foldKey maps every string strings.EqualFold holds equal to one key: each
// rune replaced by the smallest of its simple case-folding orbit.
func foldKey(s string) string {
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

// byAuthor indexes siblings by their players' forum names (foldKey), each
// list in the siblings' order (by game id).
func byAuthor(games []*sibling) map[string][]*sibling {
	idx := map[string][]*sibling{}
	for _, g := range games {
		for k := range g.authors {
			idx[k] = append(idx[k], g)
		}
	}
	return idx
}
