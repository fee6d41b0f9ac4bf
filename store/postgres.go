package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// A PostgreSQL connection never waits forever. A server that restarts
// closes its connections, but one that is cut off (a host gone, a
// failover, a network partition) leaves them open and silent: without
// bounds a runner would wait on such a connection for good while holding
// up every game it works. So, unless the DSN says otherwise:
//   - connect_timeout: connecting, handshake included, gives up after
//     pgConnectTimeout (lib/pq waits forever by default);
//   - statement_timeout: the server ends a statement (lock waits included)
//     after pgStatementTimeout, and idle_in_transaction_session_timeout
//     ends a session whose client stalled inside a transaction, so its
//     row locks (a game's lease) do not hold other runners up;
//   - TCP keepalives find a dead peer on an idle connection in about
//     pgKeepAlive*(1+pgKeepAliveProbes);
//   - and every read of the server's answer gives up pgReadSlack after the
//     statement timeout (the server would have answered by then, if only
//     with the timeout's error), so a call on a silent connection fails
//     and the pool opens a fresh one.
const (
	pgConnectTimeout   = 10 * time.Second
	pgStatementTimeout = 60 * time.Second
	pgReadSlack        = 30 * time.Second
	pgKeepAlive        = 5 * time.Second
	pgKeepAliveProbes  = 3
)

// pgDefaults adds the bounds above to a postgres:// DSN where it does not
// set them itself, and returns how long a read may wait (0: unbounded, the
// DSN turned the statement timeout off).
func pgDefaults(dsn string) (string, time.Duration, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", 0, fmt.Errorf("opening the PostgreSQL database: a malformed URL (%s)", Redact(dsn))
	}
	q := u.Query()
	set := func(k, v string) {
		if !q.Has(k) {
			q.Set(k, v)
		}
	}
	set("connect_timeout", strconv.Itoa(int(pgConnectTimeout/time.Second)))
	set("statement_timeout", strconv.FormatInt(pgStatementTimeout.Milliseconds(), 10))
	set("idle_in_transaction_session_timeout", strconv.FormatInt(pgStatementTimeout.Milliseconds(), 10))
	u.RawQuery = q.Encode()
	st, ok := pgDuration(q.Get("statement_timeout"))
	if !ok || st == 0 {
		return u.String(), 0, nil // unknown or off: keepalives only
	}
	return u.String(), st + pgReadSlack, nil
}

// pgDuration reads a PostgreSQL time setting: milliseconds, or a number
// with one of its units.
func pgDuration(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	num := strings.TrimRight(s, "abcdefghijklmnopqrstuvwxyz ")
	unit := strings.TrimSpace(s[len(num):])
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	per := map[string]time.Duration{"": time.Millisecond, "us": time.Microsecond, "ms": time.Millisecond,
		"s": time.Second, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}[unit]
	if per == 0 {
		return 0, false
	}
	return time.Duration(n * float64(per)), true
}

func openPostgres(dsn string) (*DB, error) {
	full, readLimit, err := pgDefaults(dsn)
	if err != nil {
		return nil, err
	}
	c, err := pq.NewConnector(full)
	if err != nil {
		return nil, fmt.Errorf("opening the PostgreSQL database: %w", err)
	}
	c.Dialer(pgDialer{
		d:     net.Dialer{KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: pgKeepAlive, Interval: pgKeepAlive, Count: pgKeepAliveProbes}},
		limit: readLimit,
	})
	x := sqlx.NewDb(sql.OpenDB(c), "postgres")
	x.SetMaxOpenConns(8)
	x.SetConnMaxIdleTime(5 * time.Minute)
	return &DB{driver: "postgres", w: x, r: x}, nil
}

// pgDialer dials with keepalives and bounds every read (see above).
type pgDialer struct {
	d     net.Dialer
	limit time.Duration
}

func (p pgDialer) Dial(network, addr string) (net.Conn, error) {
	return p.DialContext(context.Background(), network, addr)
}

func (p pgDialer) DialTimeout(network, addr string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return p.DialContext(ctx, network, addr)
}

func (p pgDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := p.d.DialContext(ctx, network, addr)
	if err != nil || p.limit <= 0 {
		return c, err
	}
	return &boundedConn{Conn: c, limit: p.limit}, nil
}

// boundedConn gives each Read a deadline of limit from when it starts (or
// the earlier deadline lib/pq set itself, while connecting).
type boundedConn struct {
	net.Conn
	limit time.Duration
	mu    sync.Mutex
	fixed time.Time
}

func (c *boundedConn) SetDeadline(t time.Time) error {
	c.setFixed(t)
	return c.Conn.SetDeadline(t)
}

func (c *boundedConn) SetReadDeadline(t time.Time) error {
	c.setFixed(t)
	return c.Conn.SetReadDeadline(t)
}

func (c *boundedConn) setFixed(t time.Time) {
	c.mu.Lock()
	c.fixed = t
	c.mu.Unlock()
}

func (c *boundedConn) Read(b []byte) (int, error) {
	d := time.Now().Add(c.limit)
	c.mu.Lock()
	if !c.fixed.IsZero() && c.fixed.Before(d) {
		d = c.fixed
	}
	c.mu.Unlock()
	if err := c.Conn.SetReadDeadline(d); err != nil {
		return 0, err
	}
	return c.Conn.Read(b)
}

// ErrUnavailable: the database could not be reached (down, restarting,
// refusing connections); a caller retries soon rather than backing off
// as from a failing forum.
var ErrUnavailable = errors.New("the database is unavailable")

// unavailable marks an error starting a transaction as ErrUnavailable when
// it says the server could not be reached or is not taking work.
func unavailable(err error) error {
	var pe *pq.Error
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err // the caller's own deadline, not the server
	case errors.As(err, &pe):
		// Class 08 (connection exception), 57P01-57P03 (shutting down,
		// crashed, starting up).
		if !strings.HasPrefix(string(pe.Code), "08") && !strings.HasPrefix(string(pe.Code), "57P") {
			return err
		}
	case errors.As(err, &ne), errors.Is(err, net.ErrClosed), errors.Is(err, driver.ErrBadConn),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
	default:
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}
