package pgtest

import (
	"fmt"
	"testing"
	"time"
)

// Server is a throwaway PostgreSQL server of one test's own, which the test
// may restart: for what a database restart does to its clients, without
// disturbing the other tests' shared server.
type Server struct{ s *server }

// Own starts a server for t alone, stopped and removed when t ends. It
// skips (fails under FORUMGM_REQUIRE_POSTGRES=1) when no server can be
// started here; a FORUMGM_TEST_POSTGRES server is not used, since it may
// not be restarted.
func Own(t testing.TB) *Server {
	t.Helper()
	s, err := start()
	if err != nil {
		unavailable(t, err)
	}
	t.Cleanup(s.stop)
	return &Server{s: s}
}

// DSN creates a new, empty database on the server and returns its DSN.
func (o *Server) DSN(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("forumgm_own_%d", counter.Add(1))
	dsn, err := createDB(o.s.dsn("postgres"), name)
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// Restart stops the server with a fast shutdown (every client connection
// is cut, as in a real restart), keeps it down for down, and starts it
// again on the same port with the same data.
func (o *Server) Restart(t testing.TB, down time.Duration) {
	t.Helper()
	o.s.kill()
	time.Sleep(down)
	if err := o.s.run(o.s.bin); err != nil {
		t.Fatalf("pgtest: restarting PostgreSQL: %v", err)
	}
}
