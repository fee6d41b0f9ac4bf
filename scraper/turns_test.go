package scraper

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestTurnsReadsFirst: while the session's turn is taken, two sends and
// then four reads ask for it; two reads have it next, then a send, then
// the other reads before the last send: reads first, sends in the order
// they asked, and never more than two reads in a row before a waiting send.
func TestTurnsReadsFirst(t *testing.T) {
	var tr turns
	tr.take(false)
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	queued := 1
	ask := func(name string, later bool) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr.take(later)
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			tr.give()
		}()
		// Until it waits: each asks after the one before.
		for waiting(&tr) < queued {
			time.Sleep(time.Millisecond)
		}
		queued++
	}
	ask("send 1", true)
	ask("send 2", true)
	for _, r := range []string{"read 1", "read 2", "read 3", "read 4"} {
		ask(r, false)
	}
	tr.give()
	wg.Wait()
	want := "[read 1 read 2 send 1 read 3 read 4 send 2]"
	if got := fmt.Sprint(order); got != want {
		t.Errorf("turns went %v, want %s", got, want)
	}
	if tr.busy {
		t.Error("the turn is still taken")
	}
}

func waiting(tr *turns) int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.first) + len(tr.second)
}
