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
