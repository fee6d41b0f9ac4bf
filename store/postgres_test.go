package store

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestPgDefaults: the bounds are added where the DSN does not set them,
// kept where it does, and reads are bounded past the statement timeout.
func TestPgDefaults(t *testing.T) {
	for _, c := range []struct {
		dsn        string
		want       map[string]string
		readLimit  time.Duration
		wantErrMsg bool
	}{
		{"postgres://u@h/db?sslmode=disable",
			map[string]string{"connect_timeout": "10", "statement_timeout": "60000", "idle_in_transaction_session_timeout": "60000", "sslmode": "disable"},
			90 * time.Second, false},
		{"postgres://u@h/db?statement_timeout=5min&connect_timeout=3",
			map[string]string{"connect_timeout": "3", "statement_timeout": "5min"},
			5*time.Minute + 30*time.Second, false},
		{"postgres://u@h/db?statement_timeout=2500",
			map[string]string{"statement_timeout": "2500"}, 2500*time.Millisecond + 30*time.Second, false},
		{"postgres://u@h/db?statement_timeout=0", map[string]string{"statement_timeout": "0"}, 0, false},
		{"postgres://u@h/db?statement_timeout=soon", map[string]string{"statement_timeout": "soon"}, 0, false},
		{"postgres://u:secret@h/%zz", nil, 0, true},
	} {
		got, limit, err := pgDefaults(c.dsn)
		if c.wantErrMsg {
			if err == nil || strings.Contains(err.Error(), "secret") {
				t.Errorf("%s: err %v, want an error without the password", Redact(c.dsn), err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.dsn, err)
		}
		u, _ := url.Parse(got)
		for k, v := range c.want {
			if u.Query().Get(k) != v {
				t.Errorf("%s: %s = %q, want %q (%s)", c.dsn, k, u.Query().Get(k), v, got)
			}
		}
		if limit != c.readLimit {
			t.Errorf("%s: read limit %s, want %s", c.dsn, limit, c.readLimit)
		}
	}
}

// TestPostgresSilentServer: a server that takes the connection and never
// answers (a cut-off host, a hung proxy) makes Open fail after the connect
// timeout instead of hanging.
func TestPostgresSilentServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		var held []net.Conn // accepted and never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		db, err := Open(context.Background(), "postgres://u@"+l.Addr().String()+"/db?sslmode=disable&connect_timeout=1")
		if err == nil {
			db.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("opened a database on a server that never answered")
		}
		if !errors.Is(err, ErrUnavailable) {
			t.Errorf("err = %v, want ErrUnavailable", err)
		}
		t.Logf("gave up after %s: %v", time.Since(start).Round(time.Millisecond), err)
	case <-time.After(30 * time.Second):
		t.Fatal("Open still waiting on a silent server after 30 s (connect_timeout=1)")
	}
}

// TestPostgresRefused: no server at all is ErrUnavailable.
func TestPostgresRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = Open(context.Background(), "postgres://u@"+addr+"/db?sslmode=disable")
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("err = %v, want ErrUnavailable", err)
	}
}

// TestBoundedConnRead: a read on a connection whose peer went silent ends
// with a timeout after the limit.
func TestBoundedConnRead(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	c := &boundedConn{Conn: a, limit: 200 * time.Millisecond}
	start := time.Now()
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Read on a silent peer: %v, want a timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Read gave up after %s, want about the 200ms limit", d)
	}
	// An earlier deadline set by the driver (connecting) wins.
	c.limit = time.Hour
	if err := c.SetDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(make([]byte, 1)); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Read past the driver's deadline: %v, want a timeout", err)
	}
	// Answered in time: the data.
	c.SetDeadline(time.Time{})
	go b.Write([]byte{42})
	buf := make([]byte, 1)
	if n, err := c.Read(buf); n != 1 || err != nil || buf[0] != 42 {
		t.Fatalf("Read = %d, %v, %v; want the byte", n, err, buf)
	}
}
