package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Leases: each game is worked by one `forumgm run` at a time, the holder of
// its lease (owner, epoch, expiry; see migrations/*/0004_leases.sql). A lock
// held on a connection dies with the connection (a database restart lets a
// second runner in while the first still sends), so the lease is a row, and
// every write a runner makes for a game is fenced: the lease is checked in
// the same statement (an outbox claim) or the same transaction, with the
// lease row locked (a step's Save), as the work. A takeover raises the
// epoch, so a runner that lost a game can neither save nor send for it.
// Expiry is read off the database's clock.

var (
	// ErrLeaseLost: another runner took the game over (or it was never
	// this runner's); stop working it.
	ErrLeaseLost = errors.New("store: lease lost: another runner has this game")
	// ErrLeaseShort: the lease is still this runner's but ends too soon to
	// start a send (renewals are failing); try again once renewed.
	ErrLeaseShort = errors.New("store: lease ends too soon to send")
	// ErrClaimed: the outbox item changed since it was read (sent, or
	// claimed again); read it again.
	ErrClaimed = errors.New("store: outbox item changed since it was read")
)

// Fence is a runner's hold on one game's lease. Budget is how long a
// claimed send may take: an outbox item is claimed only while the lease
// lasts at least that much longer, and the sender gives up by then, so no
// takeover (which waits for expiry) can overlap a send.
type Fence struct {
	GameID int64
	Owner  string
	Epoch  int64
	Budget time.Duration
}

type fenceKey struct{}

// WithFence makes every write transaction begun with the returned context
// (DB.Tx) fenced by f: Save and UpdateOutbox refuse with ErrLeaseLost once
// f is no longer the game's current lease.
func WithFence(ctx context.Context, f Fence) context.Context {
	return context.WithValue(ctx, fenceKey{}, &f)
}

// FenceFrom is the fence WithFence put in ctx, nil when none.
func FenceFrom(ctx context.Context) *Fence {
	f, _ := ctx.Value(fenceKey{}).(*Fence)
	return f
}

// Lease is a game's lease as stored.
type Lease struct {
	GameID         int64
	Owner          string
	Epoch          int64
	Expires, Taken time.Time
}

// dbNow is the database's clock in stored form (UTC microseconds).
func (tx *Tx) dbNow() string {
	if tx.driver == "postgres" {
		return `CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)`
	}
	return `CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)`
}

// AcquireLease takes game's lease for owner for ttl when it is free or has
// expired (any time when force is set: the caller knows it is the only
// runner, as SQLite's file lock says), raising its epoch. ok is false when
// another runner holds it.
func (tx *Tx) AcquireLease(gameID int64, owner string, ttl time.Duration, force bool) (epoch int64, ok bool, err error) {
	now := tx.dbNow()
	q := `INSERT INTO leases (game_id, owner, epoch, expires_at, taken_at) VALUES (?, ?, 1, ` + now + ` + ?, ` + now + `)
		ON CONFLICT (game_id) DO UPDATE SET owner = excluded.owner, epoch = leases.epoch + 1,
			expires_at = excluded.expires_at, taken_at = excluded.taken_at`
	if !force {
		q += ` WHERE leases.expires_at <= ` + now
	}
	q += ` RETURNING epoch`
	err = tx.get(&epoch, q, gameID, owner, ttl.Microseconds())
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("store: taking the lease of game #%d: %w", gameID, err)
	}
	return epoch, true, nil
}

// RenewLease extends f's lease to ttl from now. ErrLeaseLost when it is no
// longer f's (a lease that ran out but was not taken over is renewed: no
// one else has acted on the game since).
func (tx *Tx) RenewLease(f Fence, ttl time.Duration) error {
	res, err := tx.exec(`UPDATE leases SET expires_at = `+tx.dbNow()+` + ? WHERE game_id = ? AND owner = ? AND epoch = ?`,
		ttl.Microseconds(), f.GameID, f.Owner, f.Epoch)
	return leaseAffected(res, err, f)
}

// RenewLeases is RenewLease of each of fs, in one transaction: a runner
// renews every game it holds at once, which at 1,000 games was a thousand
// transactions every ten seconds. lost are those no longer theirs, each
// left as it is.
func (tx *Tx) RenewLeases(fs []Fence, ttl time.Duration) (lost []Fence, err error) {
	for _, f := range fs {
		err := tx.RenewLease(f, ttl)
		if errors.Is(err, ErrLeaseLost) {
			lost = append(lost, f)
		} else if err != nil {
			return nil, err
		}
	}
	return lost, nil
}

// ReleaseLease frees f's lease (another runner may take it at once); a
// lease no longer f's is left alone.
func (tx *Tx) ReleaseLease(f Fence) error {
	_, err := tx.exec(`UPDATE leases SET expires_at = 0 WHERE game_id = ? AND owner = ? AND epoch = ?`, f.GameID, f.Owner, f.Epoch)
	return err
}

// Leases lists the leases by game.
func (tx *Tx) Leases() ([]Lease, error) {
	var rows []struct {
		GameID    int64  `db:"game_id"`
		Owner     string `db:"owner"`
		Epoch     int64  `db:"epoch"`
		ExpiresAt int64  `db:"expires_at"`
		TakenAt   int64  `db:"taken_at"`
	}
	if err := tx.sel(&rows, `SELECT game_id, owner, epoch, expires_at, taken_at FROM leases ORDER BY game_id`); err != nil {
		return nil, err
	}
	out := make([]Lease, len(rows))
	for i, r := range rows {
		out[i] = Lease{GameID: r.GameID, Owner: r.Owner, Epoch: r.Epoch, Expires: timeOfMicros(r.ExpiresAt), Taken: timeOfMicros(r.TakenAt)}
	}
	return out, nil
}

// checkFence locks the game's lease row for the rest of the transaction if
// it is still the current fence's (so no takeover can commit between this
// check and the transaction's commit), else ErrLeaseLost. No fence: no
// check (the GM's commands, tests driving single ticks).
func (tx *Tx) checkFence() error {
	f := tx.fence
	if f == nil {
		return nil
	}
	res, err := tx.exec(`UPDATE leases SET owner = owner WHERE game_id = ? AND owner = ? AND epoch = ? AND expires_at > `+tx.dbNow(),
		f.GameID, f.Owner, f.Epoch)
	return leaseAffected(res, err, *f)
}

func leaseAffected(res interface{ RowsAffected() (int64, error) }, err error, f Fence) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w (game #%d, epoch %d)", ErrLeaseLost, f.GameID, f.Epoch)
	}
	return nil
}

// ClaimOutbox marks an item sending before it is sent: a compare-and-set on
// the state and attempt count it was read with (it.State, it.Attempts),
// and, under a fence, on the lease, in one statement: the lease must be the
// fence's and last at least its Budget longer. On success it.State is
// sending and it.Attempts one more. Refused: ErrLeaseLost (another runner
// has the game), ErrLeaseShort (renew first) or ErrClaimed.
func (tx *Tx) ClaimOutbox(it *OutboxItem) error {
	// claimed_until is left as it is: nothing of this attempt is on its way
	// to the board yet (SubmitOutbox moves it on just before each request
	// of it is written), so a runner killed before that (while the form
	// ages, or the pacer holds the request) leaves no wait for a successor;
	// an earlier attempt's window still running is kept.
	q := `UPDATE outbox SET state = ?, attempts = ?, last_error = ?, lease_epoch = ? WHERE id = ? AND state = ? AND attempts = ?`
	var epoch int64
	args := []any{OutboxSending, it.Attempts + 1, it.LastError}
	f := tx.fence
	if f != nil {
		epoch = f.Epoch
		lock := ""
		if tx.driver == "postgres" {
			// Holds off a takeover (an UPDATE of this row) until this
			// transaction ends, so a new owner reads the item as sending.
			lock = ` FOR SHARE`
		}
		q += ` AND EXISTS (SELECT 1 FROM leases WHERE game_id = outbox.game_id AND owner = ? AND epoch = ? AND expires_at > ` + tx.dbNow() + ` + ?` + lock + `)`
		args = append(args, epoch, it.ID, it.State, it.Attempts, f.Owner, f.Epoch, f.Budget.Microseconds())
	} else {
		args = append(args, epoch, it.ID, it.State, it.Attempts)
	}
	res, err := tx.exec(q, args...)
	if err != nil {
		return fmt.Errorf("store: claiming outbox #%d: %w", it.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 1 {
		it.State, it.Attempts = OutboxSending, it.Attempts+1
		return nil
	}
	if f != nil {
		var l struct {
			Owner string `db:"owner"`
			Epoch int64  `db:"epoch"`
		}
		err := tx.get(&l, `SELECT owner, epoch FROM leases WHERE game_id = ?`, f.GameID)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && (l.Owner != f.Owner || l.Epoch != f.Epoch)) {
			return fmt.Errorf("%w (game #%d, epoch %d)", ErrLeaseLost, f.GameID, f.Epoch)
		}
		if err != nil {
			return err
		}
		var same int
		if err := tx.get(&same, `SELECT COUNT(*) FROM outbox WHERE id = ? AND state = ? AND attempts = ?`, it.ID, it.State, it.Attempts); err != nil {
			return err
		}
		if same == 1 {
			return fmt.Errorf("%w (game #%d)", ErrLeaseShort, f.GameID)
		}
	}
	return fmt.Errorf("%w: outbox #%d", ErrClaimed, it.ID)
}

// SubmitOutbox records, just before a request of claimed item it is
// written, that the board may be taking it for window from now: the rest
// of the request's time (its send's deadline) plus how late the board may
// still take it after that. A successor finding the item unsent waits that
// out before a missing marker counts (ClaimSettles). Every submission of
// the attempt (a resubmit after a refusal too) moves it on, never back.
// The claim must still be this fence's, on a lease not run out; else
// ErrLeaseLost or ErrClaimed, and the request must not be made. Without a
// fence it records nothing.
func (tx *Tx) SubmitOutbox(it *OutboxItem, window time.Duration) error {
	f := tx.fence
	if f == nil || f.Budget <= 0 {
		return nil
	}
	if err := tx.checkFence(); err != nil {
		return err
	}
	// Never shortened: an earlier request's window still running is kept.
	until := tx.dbNow() + ` + ?`
	res, err := tx.exec(`UPDATE outbox SET claimed_until = CASE WHEN claimed_until > `+until+` THEN claimed_until ELSE `+until+` END
		WHERE id = ? AND state = ? AND attempts = ? AND lease_epoch = ?`,
		window.Microseconds(), window.Microseconds(), it.ID, OutboxSending, it.Attempts, f.Epoch)
	if err != nil {
		return fmt.Errorf("store: outbox #%d on its way: %w", it.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n != 1 {
		return fmt.Errorf("%w: outbox #%d", ErrClaimed, it.ID)
	}
	return nil
}

// Heartbeat records that runner id is alive for ttl more, and forgets
// runners whose heartbeat has run out.
func (tx *Tx) Heartbeat(id string, ttl time.Duration) error {
	now := tx.dbNow()
	if _, err := tx.exec(`INSERT INTO runners (id, started_at, expires_at) VALUES (?, `+now+`, `+now+` + ?)
		ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at`, id, ttl.Microseconds()); err != nil {
		return fmt.Errorf("store: runner heartbeat: %w", err)
	}
	_, err := tx.exec(`DELETE FROM runners WHERE expires_at <= ` + now)
	return err
}

// LeaveRunners removes runner id (a clean stop).
func (tx *Tx) LeaveRunners(id string) error {
	_, err := tx.exec(`DELETE FROM runners WHERE id = ?`, id)
	return err
}

// LiveRunners counts the runners whose heartbeat has not run out.
func (tx *Tx) LiveRunners() (int, error) {
	var n int
	err := tx.get(&n, `SELECT COUNT(*) FROM runners WHERE expires_at > `+tx.dbNow())
	return n, err
}

// ClaimSettles is how long the board may still be taking the latest
// submission of outbox item id: the window its last request's start
// recorded (SubmitOutbox) not yet run out, on the database's clock (0: it has,
// or no request of it was ever written under a fence). Until
// then the item's marker missing from the board proves nothing: a request
// its sender cancelled (a clean stop, a game given back) may still land.
func (tx *Tx) ClaimSettles(id int64) (time.Duration, error) {
	var left int64
	if err := tx.get(&left, `SELECT claimed_until - `+tx.dbNow()+` FROM outbox WHERE id = ?`, id); err != nil {
		return 0, fmt.Errorf("store: outbox #%d: %w", id, err)
	}
	return max(time.Duration(left)*time.Microsecond, 0), nil
}
