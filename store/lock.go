package store

import "fmt"

// lockGame reads a game for update: on PostgreSQL the row stays locked until
// the transaction ends, so a GM command and the daemon never both change a
// game from the same old state (SQLite has one writer at a time anyway).
func (tx *Tx) lockGame(id int64) (*Game, error) {
	q := `SELECT ` + gameCols + ` FROM games WHERE id = ?`
	if tx.driver == "postgres" {
		q += ` FOR UPDATE`
	}
	var r gameRow
	if err := tx.get(&r, q, id); err != nil {
		return nil, notFound(err, fmt.Sprintf("game #%d", id))
	}
	g := r.game()
	return &g, nil
}

// retargetOutbox sends a slot's unsent PMs (pending, or sending and not yet
// found on the forum) to a new account: after a replacement the departed
// player must not get the role the new one inherits.
func (tx *Tx) retargetOutbox(gameID int64, slot, name, forumID string) error {
	_, err := tx.exec(`UPDATE outbox SET recipient_name = ?, recipient_id = ? WHERE game_id = ? AND recipient = ? AND kind = 'pm' AND state IN ('pending', 'sending')`,
		name, forumID, gameID, slot)
	return err
}
