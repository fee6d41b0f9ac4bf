package pgtest

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { Main(m) }

func TestDSNGivesFreshDatabases(t *testing.T) {
	if os.Getenv("PGTEST_CHILD") != "" {
		t.Skip("child run")
	}
	a, b := DSN(t), DSN(t)
	if a == b {
		t.Fatalf("same DSN twice: %s", a)
	}
	for _, dsn := range []string{a, b} {
		db, err := sql.Open("postgres", dsn)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s: %d tables in a fresh database", dsn, n)
		}
		if _, err := db.Exec(`CREATE TABLE t (x INT)`); err != nil {
			t.Errorf("%s: %v", dsn, err)
		}
		db.Close()
	}
}

// TestChildUnavailable is run by TestUnavailable in a child process with
// no way to get PostgreSQL.
func TestChildUnavailable(t *testing.T) {
	if os.Getenv("PGTEST_CHILD") == "" {
		t.Skip("only as a child of TestUnavailable")
	}
	DSN(t)
	t.Log("got a DSN")
}

func TestUnavailable(t *testing.T) {
	if os.Getenv("PGTEST_CHILD") != "" {
		t.Skip("child run")
	}
	for _, c := range []struct {
		require bool
		want    string
	}{{false, "--- SKIP: TestChildUnavailable"}, {true, "--- FAIL: TestChildUnavailable"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildUnavailable$", "-test.v")
		env := []string{"PGTEST_CHILD=1", envBin + "=/nonexistent"}
		if c.require {
			env = append(env, envRequire+"=1")
		}
		for _, e := range os.Environ() {
			if !strings.HasPrefix(e, envDSN+"=") && !strings.HasPrefix(e, envRequire+"=") && !strings.HasPrefix(e, envBin+"=") {
				env = append(env, e)
			}
		}
		cmd.Env = env
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), c.want) || !strings.Contains(string(out), "no initdb in /nonexistent") {
			t.Errorf("require=%v: want %q and the reason in:\n%s", c.require, c.want, out)
		}
	}
}

// TestOwnRestart: a test's own server restarts with its data, and a
// connection from before the restart is cut.
func TestOwnRestart(t *testing.T) {
	srv := Own(t)
	dsn := srv.DSN(t)
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE kept (x INT); INSERT INTO kept VALUES (7)`); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if err := conn.QueryRowContext(context.Background(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	srv.Restart(t, 100*time.Millisecond)
	if err := conn.QueryRowContext(context.Background(), `SELECT 1`).Scan(new(int)); err == nil {
		t.Error("a connection from before the restart still works")
	}
	conn.Close()
	var x int
	if err := db.QueryRow(`SELECT x FROM kept`).Scan(&x); err != nil || x != 7 {
		t.Errorf("after the restart: x=%d err=%v", x, err)
	}
}
