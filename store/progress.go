package store

import (
	"database/sql"
	"errors"
	"fmt"
)

// ThreadProgress is how far the bot has read a game's thread: the last page
// recorded and the thread's page count then. Page < Pages while a long
// first read (a backfill) is still under way.
type ThreadProgress struct {
	Page  int `json:"page"`
	Pages int `json:"pages"`
}

// String is the progress as `forumgm status` shows it.
func (p ThreadProgress) String() string {
	if p.Behind() {
		return fmt.Sprintf("page %d of %d (a long first read, a batch of pages each poll)", p.Page, p.Pages)
	}
	return fmt.Sprintf("to the thread's last page (%d of %d)", p.Page, p.Pages)
}

// Behind reports whether the read has pages left to catch up on.
func (p ThreadProgress) Behind() bool { return p.Page < p.Pages }

// setThreadProgress records the page a read has recorded, in the
// transaction that records that page.
func (tx *Tx) setThreadProgress(gameID int64, p ThreadProgress) error {
	_, err := tx.exec(`INSERT INTO thread_progress (game_id, page, pages, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (game_id) DO UPDATE SET page = excluded.page, pages = excluded.pages, updated_at = excluded.updated_at`,
		gameID, p.Page, p.Pages, Now().UnixMicro())
	if err != nil {
		return fmt.Errorf("store: thread progress of game #%d: %w", gameID, err)
	}
	return nil
}

// ThreadProgressOf is what SetThreadProgress recorded (ok false: nothing yet).
func (tx *Tx) ThreadProgressOf(gameID int64) (p ThreadProgress, ok bool, err error) {
	var r struct {
		Page  int `db:"page"`
		Pages int `db:"pages"`
	}
	err = tx.get(&r, `SELECT page, pages FROM thread_progress WHERE game_id = ?`, gameID)
	if errors.Is(err, sql.ErrNoRows) {
		return p, false, nil
	}
	if err != nil {
		return p, false, fmt.Errorf("store: thread progress of game #%d: %w", gameID, err)
	}
	return ThreadProgress{Page: r.Page, Pages: r.Pages}, true, nil
}
