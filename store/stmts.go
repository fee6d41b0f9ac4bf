package store

import (
	"strings"
	"sync"

	"github.com/jmoiron/sqlx"
)

// stmtCache keeps one prepared statement per query text for a connection
// pool, so a query run once per post (recording a message, finding the one
// before it) is compiled once per connection, not once per call: SQLite
// spent about a quarter of a long backfill preparing statements.
// database/sql re-prepares a statement on another connection by itself.
type stmtCache struct {
	db *sqlx.DB
	mu sync.Mutex
	m  map[string]*sqlx.Stmt
}

// maxStmts bounds the cache: a query built for a list's length (IN (?, ?))
// has as many texts as lengths, and the hot queries come first anyway.
const maxStmts = 200

func newStmtCache(db *sqlx.DB) *stmtCache { return &stmtCache{db: db, m: map[string]*sqlx.Stmt{}} }

// cacheable is a single data statement (schema changes and scripts run as
// they are: a statement prepared before a table changes may not outlive it).
func cacheable(q string) bool {
	if strings.Contains(q, ";") {
		return false
	}
	head := strings.ToUpper(strings.TrimSpace(q))
	for _, k := range []string{"SELECT ", "INSERT ", "UPDATE ", "DELETE "} {
		if strings.HasPrefix(head, k) {
			return !strings.Contains(head, "SCHEMA_VERSION") && !strings.Contains(head, "PG_")
		}
	}
	return false
}

// prepared is q's statement on the pool, nil when not prepared yet.
func (c *stmtCache) prepared(q string) *sqlx.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[q]
}

// prepare prepares the queries a transaction ran unprepared. It runs once
// the transaction is over: preparing on the pool needs a connection, and a
// SQLite writer has only the one the transaction held. A query that does
// not prepare is left to run unprepared (and report its own error).
func (c *stmtCache) prepare(qs []string) {
	for _, q := range qs {
		c.mu.Lock()
		_, done := c.m[q]
		full := len(c.m) >= maxStmts
		c.mu.Unlock()
		if done || full {
			continue
		}
		s, err := c.db.Preparex(q)
		if err != nil {
			continue
		}
		c.mu.Lock()
		if _, dup := c.m[q]; dup {
			s.Close()
		} else {
			c.m[q] = s
		}
		c.mu.Unlock()
	}
}

func (c *stmtCache) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, s := range c.m {
		s.Close()
		delete(c.m, q)
	}
}

// stmt is q (already rebound) as a statement of this transaction, from the
// pool's cache; nil to run q unprepared (it is prepared after the
// transaction, for the next one).
func (tx *Tx) stmt(q string) *sqlx.Stmt {
	if tx.cache == nil || !cacheable(q) {
		return nil
	}
	if s, ok := tx.stmts[q]; ok {
		return s
	}
	p := tx.cache.prepared(q)
	if p == nil {
		tx.missed = append(tx.missed, q)
		return nil
	}
	s := tx.tx.Stmtx(p)
	if tx.stmts == nil {
		tx.stmts = map[string]*sqlx.Stmt{}
	}
	tx.stmts[q] = s
	return s
}
