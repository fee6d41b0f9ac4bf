package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCLIOneDaemonPerDatabase: a second `forumgm run` on a database that a
// running one moderates is refused (both would read and send everything).
func TestCLIOneDaemonPerDatabase(t *testing.T) {
	s := newGMSession(t)
	first := exec.Command(cliBin, "run", "--db", s.db)
	first.Dir = s.dir
	defer func() {
		if first.Process != nil {
			first.Process.Kill()
		}
	}()
	if !startsRunning(t, first) {
		t.Fatal("the first forumgm run did not start")
	}
	s.fails(1, "another forumgm run", "run", "--db", s.db)
	first.Process.Signal(syscall.SIGTERM)
	if err := first.Wait(); err != nil {
		t.Errorf("first run: %v", err)
	}
	// Now the database is free again: a second run starts and says so.
	second := exec.Command(cliBin, "run", "--db", s.db)
	second.Dir = s.dir
	second.Env = os.Environ()
	if !startsRunning(t, second) {
		t.Fatal("a run after the first stopped did not start")
	}
	second.Process.Signal(syscall.SIGTERM)
	if err := second.Wait(); err != nil {
		t.Errorf("a run after the first stopped: %v", err)
	}
}

// TestCLIRetryAndDays: `retry` exists and says what it did; `extend` takes
// days; a bad command id says where ids come from.
func TestCLIRetryAndDays(t *testing.T) {
	s := newGMSession(t)
	s.ok("new", "--no-probe", absPath(t, "testdata/games/spies.game.yaml"))
	if out := s.ok("retry", "spies-cli"); !strings.Contains(out, "0 messages will be sent again") {
		t.Errorf("retry: %q", out)
	}
	s.fails(1, "no failed or unconfirmed (taken) message", "retry", "spies-cli", "nope")
	before := s.status("spies-cli").Rules.Deadline
	s.ok("extend", "spies-cli", "2d")
	if after := s.status("spies-cli").Rules.Deadline; after.Sub(before) != 48*time.Hour {
		t.Errorf("extend 2d moved the deadline by %v", after.Sub(before))
	}
	s.fails(2, "write it like 2d", "extend", "spies-cli", "soon")
	s.fails(2, "forumgm audit spies-cli", "void", "spies-cli", "abc")
	s.fails(1, "has no command 999", "void", "spies-cli", "999")
}

// startsRunning starts cmd and waits until it logs that it is running (it
// holds the database's lock by then), at most 20 s.
func startsRunning(t *testing.T, cmd *exec.Cmd) bool {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "is running") {
				select {
				case started <- true:
				default:
				}
			}
		}
	}()
	select {
	case <-started:
		return true
	case <-time.After(20 * time.Second):
		return false
	}
}
