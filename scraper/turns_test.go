package scraper

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestTurnsReadsFirst: while the session's turn is taken, sends of three
// ranks and then four reads ask for it; two reads have it next, then a
// send, then the other reads before the other sends: reads first, sends
// by rank (an answer before an opening post asked for earlier) and in the
// order they asked within one, and never more than two reads in a row
// before a waiting send.
func TestTurnsReadsFirst(t *testing.T) {
	var tr turns
	tr.take(false, 0)
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	queued := 1
	ask := func(name string, later bool, rank int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr.take(later, rank)
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
	ask("chore 1", true, 2)
	ask("answer 1", true, 1)
	ask("chore 2", true, 2)
	ask("answer 2", true, 1)
	ask("result", true, 0)
	for _, r := range []string{"read 1", "read 2", "read 3", "read 4"} {
		ask(r, false, 0)
	}
	tr.give()
	wg.Wait()
	want := "[read 1 read 2 result read 3 read 4 answer 1 answer 2 chore 1 chore 2]"
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
