package store

import "time"

// Flavor is the GM's own text for a phase's resolution: To "" opens the
// thread's update, a player's slot opens that player's private results.
// It is written by a step (Changes.Flavors) so that it is checked against
// the phase the game is in under the game's lock, and read by the step
// that resolves the phase.
type Flavor struct {
	GameID int64
	Phase  string
	To     string
	Text   string
	At     time.Time
}

// Flavors are a game's flavors for phase, the thread's first then by slot
// ("" phase: every phase's, by phase).
func (tx *Tx) Flavors(gameID int64, phase string) ([]Flavor, error) {
	var rows []struct {
		Phase string `db:"phase"`
		To    string `db:"recipient"`
		Text  string `db:"text"`
		At    int64  `db:"at"`
	}
	q, args := `SELECT phase, recipient, text, at FROM flavors WHERE game_id = ?`, []any{gameID}
	if phase != "" {
		q += ` AND phase = ?`
		args = append(args, phase)
	}
	if err := tx.sel(&rows, q+` ORDER BY phase, recipient`, args...); err != nil {
		return nil, err
	}
	out := make([]Flavor, len(rows))
	for i, r := range rows {
		out[i] = Flavor{GameID: gameID, Phase: r.Phase, To: r.To, Text: r.Text, At: timeOfMicros(r.At)}
	}
	return out, nil
}

// setFlavor writes (or replaces) one flavor; an empty text deletes it.
func (tx *Tx) setFlavor(f Flavor) error {
	if _, err := tx.exec(`DELETE FROM flavors WHERE game_id = ? AND phase = ? AND recipient = ?`, f.GameID, f.Phase, f.To); err != nil {
		return wrap(err)
	}
	if f.Text == "" {
		return nil
	}
	_, err := tx.exec(`INSERT INTO flavors (game_id, phase, recipient, text, at) VALUES (?, ?, ?, ?, ?)`, f.GameID, f.Phase, f.To, f.Text, microsOrNow(f.At))
	return wrap(err)
}
