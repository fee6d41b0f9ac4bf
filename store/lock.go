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

// retargetOutbox gives a replaced slot's PMs to its new account. Those not
// tried yet (pending) go to the new account: the departed player must not
// get the role the new one inherits. One already tried (sending, unknown,
// unconfirmed) may be in the departed player's inbox: re-addressed, its
// marker check would record it as the new account's, who never got it, and
// a resend after a missed check would go to the new account under a marker
// the board already holds. It keeps its address, so its check tells where
// it went, and is taken: never sent again by itself (the GM sees it, and
// may retry it). The new account's handover PM tells what it said.
func (tx *Tx) retargetOutbox(gameID int64, slot, name, forumID string) error {
	if _, err := tx.exec(`UPDATE outbox SET recipient_name = ?, recipient_id = ? WHERE game_id = ? AND recipient = ? AND kind = 'pm' AND state = ?`,
		name, forumID, gameID, slot, OutboxPending); err != nil {
		return err
	}
	_, err := tx.exec(`UPDATE outbox SET state = ?, last_error = ? WHERE game_id = ? AND recipient = ? AND kind = 'pm' AND state IN (?, ?, ?)`,
		OutboxTaken, "on its way to the player who left when the slot went to "+name+": it may be in their inbox, so it is not sent again; "+name+"'s handover PM tells what it said",
		gameID, slot, OutboxSending, OutboxUnknown, OutboxUnconfirmed)
	return err
}
