//go:build linux

package realboardtest

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestFreePortOutsideTheEphemeralRange: a board's port comes from below
// the kernel's ephemeral range (where no ":0" listener lands), is free,
// is claimed by an flock other test processes see, and is not handed out
// twice.
func TestFreePortOutsideTheEphemeralRange(t *testing.T) {
	lo, hi := boardPorts()
	if hi <= lo {
		t.Skip("this machine's ephemeral range leaves no room below it")
	}
	seen := map[int]bool{}
	for range 20 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		if port < lo || port >= hi {
			t.Fatalf("port %d outside %d-%d", port, lo, hi-1)
		}
		if seen[port] {
			t.Fatalf("port %d handed out twice", port)
		}
		seen[port] = true
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatalf("port %d is not free: %v", port, err)
		}
		l.Close()
		f, err := os.Open(filepath.Join("/tmp/forumgm-realboard-ports", strconv.Itoa(port)))
		if err != nil {
			t.Fatal(err)
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			t.Errorf("port %d's claim can be taken again", port)
		}
		f.Close()
	}
}
