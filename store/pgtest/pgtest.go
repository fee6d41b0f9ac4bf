// Package pgtest gives tests a fresh PostgreSQL database.
//
// DSN uses the server named by FORUMGM_TEST_POSTGRES (a postgres:// DSN of a
// role that may CREATE DATABASE) when set; otherwise it starts one throwaway
// PostgreSQL 15 per test binary from /usr/lib/postgresql/15/bin (or the
// newest other /usr/lib/postgresql/N/bin, or FORUMGM_PG_BIN): initdb into a
// temp dir, a free port on 127.0.0.1, the socket in the temp dir, fsync off.
// Running as root (which initdb and postgres refuse), the temp dir is given
// to the "postgres" user, initdb runs through runuser and the postmaster is
// started with that user's credentials. Every DSN call creates a new
// database. When no server can be had the test is skipped, or fails when
// FORUMGM_REQUIRE_POSTGRES=1 (CI).
//
// Use Main from TestMain so the server stops when the tests end:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// Without it the server still goes away with the test binary (it gets
// SIGTERM when the binary exits) and its temp dir is removed by the next run.
package pgtest

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/lib/pq"
)

const (
	envDSN     = "FORUMGM_TEST_POSTGRES"
	envRequire = "FORUMGM_REQUIRE_POSTGRES"
	envBin     = "FORUMGM_PG_BIN"
	defaultBin = "/usr/lib/postgresql/15/bin"
	dirPrefix  = "forumgm-pgtest-"
)

var (
	once    sync.Once
	srv     *server
	srvErr  error
	counter atomic.Int64
)

// DSN returns the DSN of a new, empty database for this test, or skips the
// test (fails it under FORUMGM_REQUIRE_POSTGRES=1) when PostgreSQL cannot
// be had.
func DSN(t testing.TB) string {
	t.Helper()
	dsn, err := TryDSN(t)
	if err != nil {
		unavailable(t, err)
	}
	return dsn
}

// TryDSN is DSN without the skipping: the error says why there is no
// PostgreSQL (for a benchmark that can still measure SQLite alone).
func TryDSN(t testing.TB) (string, error) {
	t.Helper()
	base := os.Getenv(envDSN)
	if base == "" {
		once.Do(func() { srv, srvErr = start() })
		if srvErr != nil {
			return "", srvErr
		}
		base = srv.dsn("postgres")
	}
	name := fmt.Sprintf("forumgm_test_%d_%s_%d", os.Getpid(), strconv.FormatInt(time.Now().UnixNano(), 36), counter.Add(1))
	dsn, err := createDB(base, name)
	if err != nil {
		return "", err
	}
	if os.Getenv(envDSN) != "" {
		// A shared server: clean up after ourselves. (The throwaway one
		// is deleted whole.) Registered now, so it runs after the test's
		// own cleanups close their connections.
		t.Cleanup(func() { dropDB(base, name) })
	}
	return dsn, nil
}

// Required reports whether FORUMGM_REQUIRE_POSTGRES=1 asks for PostgreSQL
// tests to fail rather than skip.
func Required() bool { return os.Getenv(envRequire) == "1" }

func unavailable(t testing.TB, err error) {
	t.Helper()
	if Required() {
		t.Fatalf("pgtest: PostgreSQL is required (%s=1) but unavailable: %v", envRequire, err)
	}
	t.Skipf("pgtest: skipping, no PostgreSQL (set %s to a DSN, or install PostgreSQL 15 in %s): %v", envDSN, defaultBin, err)
}

// Main runs the tests and then stops the throwaway server, if one started.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop stops the throwaway server and removes its directory.
func Stop() {
	if srv != nil {
		srv.stop()
		srv = nil
		srvErr = errors.New("pgtest: server stopped")
	}
}

func withDB(base, name string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("pgtest: bad DSN: %w", err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

func createDB(base, name string) (string, error) {
	admin, err := sql.Open("postgres", base)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		return "", fmt.Errorf("pgtest: create database: %w", err)
	}
	return withDB(base, name)
}

func dropDB(base, name string) {
	admin, err := sql.Open("postgres", base)
	if err != nil {
		return
	}
	defer admin.Close()
	_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
}

// ids are a user's numeric ids (the postgres user's, to start the server as).
type ids struct{ uid, gid int }

type server struct {
	bin  string // the PostgreSQL binaries' directory
	dir  string
	cred *ids // the postgres user's, when we are root
	port int
	cmd  *exec.Cmd
	done chan error // the postgres process's exit
}

// dsn names a database on the server. connect_timeout: a server that takes
// the connection and does not answer (starting, stopping, overloaded) fails
// the ping or the test instead of hanging it.
func (s *server) dsn(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&connect_timeout=10", s.port, db)
}

// asPostgres builds a command that runs as the postgres user when we are
// root (initdb and postgres refuse to run as root).
func asPostgres(name string, args ...string) *exec.Cmd {
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
	}
	return exec.Command(name, args...)
}

func start() (*server, error) {
	bin := os.Getenv(envBin)
	if bin == "" {
		bin = defaultBin
		if _, err := os.Stat(filepath.Join(bin, "initdb")); err != nil {
			// Another major version from the distribution will do.
			if found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); len(found) > 0 {
				sort.Slice(found, func(i, j int) bool { return pgMajor(found[i]) < pgMajor(found[j]) })
				bin = filepath.Dir(found[len(found)-1])
			}
		}
	}
	for _, b := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
			return nil, fmt.Errorf("no %s in %s", b, bin)
		}
	}
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("runuser"); err != nil {
			return nil, errors.New("running as root and runuser is missing")
		}
	}
	removeStale()
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*server, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	var cred *ids
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fail(fmt.Errorf("running as root and there is no postgres user: %w", err))
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return fail(err)
		}
		cred = &ids{uid: uid, gid: gid}
	}
	data := filepath.Join(dir, "data")
	var out bytes.Buffer
	initdb := asPostgres(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync")
	initdb.Stdout, initdb.Stderr = &out, &out
	if err := initdb.Run(); err != nil {
		return fail(fmt.Errorf("initdb: %v\n%s", err, out.String()))
	}
	for attempt := 0; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return fail(err)
		}
		s := &server{bin: bin, dir: dir, cred: cred, port: port, done: make(chan error, 1)}
		err = s.run(bin)
		if err == nil {
			return s, nil
		}
		if attempt == 2 { // the port may have been taken in between: retry
			return fail(err)
		}
	}
}

// run starts postgres and waits until it accepts connections.
func (s *server) run(bin string) error {
	logf, err := os.Create(filepath.Join(s.dir, "postgres.log"))
	if err != nil {
		return err
	}
	started := make(chan error, 1)
	// The server is started from a goroutine locked to its OS thread that
	// lives as long as the server: Pdeathsig fires when the *thread* that
	// started the child dies, and this one dies only with the process.
	go func() {
		runtime.LockOSThread()
		cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", filepath.Join(s.dir, "data"),
			"-p", strconv.Itoa(s.port), "-k", s.dir, "-c", "listen_addresses=127.0.0.1",
			"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
			"-c", "max_connections=200")
		cmd.Stdout, cmd.Stderr = logf, logf
		// If the test binary dies without stopping us, the kernel sends
		// the postmaster SIGTERM (smart shutdown; its clients are gone
		// with the binary). As root the postmaster is started as the
		// postgres user by Go itself rather than through runuser: runuser
		// changes credentials after the exec, which clears Pdeathsig.
		cmd.SysProcAttr = serverAttr(s.cred)
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		s.cmd = cmd
		started <- nil
		s.done <- cmd.Wait()
		logf.Close()
	}()
	if err := <-started; err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-s.done:
			log, _ := os.ReadFile(filepath.Join(s.dir, "postgres.log"))
			return fmt.Errorf("postgres exited: %v\n%s", err, log)
		default:
		}
		db, err := sql.Open("postgres", s.dsn("postgres"))
		if err == nil {
			err = db.Ping()
			db.Close()
		}
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("postgres did not start: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop shuts the server down and deletes its directory.
func (s *server) stop() {
	s.kill()
	os.RemoveAll(s.dir)
}

// kill asks the postmaster for a fast shutdown (SIGINT) and escalates to an
// immediate one (SIGQUIT).
func (s *server) kill() {
	pid := s.postmasterPID()
	if pid > 0 {
		interrupt(pid)
	} else if s.cmd != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		if pid > 0 {
			quit(pid)
		}
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
		}
	}
}

func (s *server) postmasterPID() int {
	b, err := os.ReadFile(filepath.Join(s.dir, "data", "postmaster.pid"))
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	return pid
}

// pgMajor is the version directory's number in /usr/lib/postgresql/N/bin.
func pgMajor(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// removeStale deletes directories of earlier runs whose server is gone (a
// test binary killed before it could clean up).
func removeStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, d := range dirs {
		fi, err := os.Stat(d)
		if err != nil || time.Since(fi.ModTime()) < time.Minute {
			continue // maybe another test binary starting right now
		}
		s := &server{dir: d}
		if pid := s.postmasterPID(); pid > 0 && alive(pid) {
			continue // still running
		}
		os.RemoveAll(d)
	}
}
