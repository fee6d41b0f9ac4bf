package gate

import (
	"context"
	"testing"
	"time"
)

// TestGate: at most limit() under way; a raised limit lets a waiter in; a
// cancelled wait returns its context's error.
func TestGate(t *testing.T) {
	var g Gate
	limit := 1
	lim := func() int { return limit }
	r1, err := g.Take(context.Background(), lim)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := g.Take(ctx, lim); err != context.DeadlineExceeded {
		t.Fatalf("a second take at limit 1: %v, want it to wait until its deadline", err)
	}
	got := make(chan func(), 1)
	go func() {
		r, _ := g.Take(context.Background(), func() int { return 2 })
		got <- r
	}()
	select {
	case r := <-got:
		r()
	case <-time.After(time.Second):
		t.Fatal("a take at limit 2 waited behind one under way")
	}
	r1()
	r, err := g.Take(context.Background(), lim)
	if err != nil {
		t.Fatal(err)
	}
	r()
}

// TestGateClasses: when one ends, the waiting taker of the lowest class
// goes next, first come first within a class; a taker that gives up
// while waiting leaves no hole, and one let in as it gave up passes its
// turn on.
func TestGateClasses(t *testing.T) {
	var g Gate
	one := func() int { return 1 }
	first, err := g.Take(context.Background(), one)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	done := make(chan struct{})
	queued := func(n int) {
		for {
			g.mu.Lock()
			l := len(g.waiting)
			g.mu.Unlock()
			if l == n {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	takers := []struct {
		name  string
		class int
	}{{"chore", 2}, {"answer 1", 1}, {"result", 0}, {"gives up", 1}, {"answer 2", 1}}
	var quit context.CancelFunc
	for i, tk := range takers {
		ctx := context.Background()
		if tk.name == "gives up" {
			ctx, quit = context.WithCancel(ctx)
		}
		go func() {
			r, err := g.TakeClass(ctx, one, tk.class)
			if err != nil {
				done <- struct{}{}
				return
			}
			order = append(order, tk.name) // one at a time: limit 1
			r()
			done <- struct{}{}
		}()
		queued(i + 1)
	}
	quit()
	<-done
	queued(len(takers) - 1)
	first()
	for range len(takers) - 1 {
		<-done
	}
	want := []string{"result", "answer 1", "answer 2", "chore"}
	if len(order) != len(want) {
		t.Fatalf("let in %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("let in %v, want %v", order, want)
		}
	}
	if g.busy != 0 || len(g.waiting) != 0 {
		t.Errorf("busy %d, %d waiting after all ended", g.busy, len(g.waiting))
	}
}
