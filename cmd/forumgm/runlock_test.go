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
	stderr, err := first.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	started := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "is running") {
				started <- true
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("the first forumgm run did not start")
	}
	s.fails(1, "another forumgm run", "run", "--db", s.db)
	first.Process.Signal(syscall.SIGTERM)
	if err := first.Wait(); err != nil {
		t.Errorf("first run: %v", err)
	}
	// Now the database is free again.
	second := exec.Command(cliBin, "run", "--db", s.db)
	second.Dir = s.dir
	second.Env = os.Environ()
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	second.Process.Signal(syscall.SIGTERM)
	if err := second.Wait(); err != nil {
		t.Errorf("a run after the first stopped: %v", err)
	}
}
