package moderator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestStepErrorsReachTheReport runs the daemon over a game whose board
// refuses the bot for a while: the report (what the desk and `status`
// show) names the failure, with the session id and password cut out, and
// since when; once a step succeeds, it is gone.
func TestStepErrorsReachTheReport(t *testing.T) {
	db := storetest.SQLite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ff := forumtest.New(clock.Real{})
	var refusing atomic.Bool
	refusing.Store(true)
	m := &Moderator{DB: db, Clock: clock.Real{}, Connect: func(context.Context, *gameconfig.Site) (Forum, error) {
		if refusing.Load() {
			return nil, fmt.Errorf("scraper: logging in: http://board/ucp.php?mode=login&sid=0123abcd&password=hunter2 answered 403: your IP is banned")
		}
		return ff, nil
	}}
	gc := gameconfig.GameConfig{Players: []string{"A1", "B2"}, Seed: 1, Start: time.Now()}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X", PollSeconds: 0.05}
	if _, err := m.Create(ctx, "g1", "nations", gc, fc, nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- m.Run(ctx) }()
	report := func() GameReport {
		t.Helper()
		rs, err := m.Report(ctx, "g1")
		if err != nil {
			t.Fatal(err)
		}
		return rs[0]
	}
	for ctx.Err() == nil && (report().StepError == nil || report().StepError.Failures < 2) {
		time.Sleep(20 * time.Millisecond)
	}
	e := report().StepError
	if e == nil {
		t.Fatal("no step error while the board refuses the bot")
	}
	if !strings.Contains(e.Error, "your IP is banned") || strings.Contains(e.Error, "0123abcd") || strings.Contains(e.Error, "hunter2") || strings.HasPrefix(e.Error, "scraper:") {
		t.Errorf("step error as the GM reads it: %q", e.Error)
	}
	if e.Since.IsZero() || e.Last.Before(e.Since) {
		t.Errorf("step error times: since %v, last %v", e.Since, e.Last)
	}
	refusing.Store(false)
	for ctx.Err() == nil && report().StepError != nil {
		time.Sleep(20 * time.Millisecond)
	}
	if report().StepError != nil {
		t.Error("the step error stays after a step succeeded")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestGMError(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"store: game #3: database is locked", "game #3: database is locked"},
		{"tick g1: scraper: reading http://b/viewtopic.php?t=5&sid=abc123: EOF", "tick g1: reading http://b/viewtopic.php?t=5&sid=…: EOF"},
		{"posting: the board says: flood (form_token=deadbeef, my_post_key=77)", "posting: the board says: flood (form_token=…, my_post_key=…)"},
		{"login as bot with password=s3cret refused", "login as bot with password=… refused"},
		{"posts=5 and topics=2", "posts=5 and topics=2"},
		// A registered game's package, named by the registry, not here.
		{"apply g1: resistance: no such mission 9", "apply g1: no such mission 9"},
		{"nations: bad state", "bad state"},
		{strings.Repeat("x", 600), strings.Repeat("x", 499) + "…"},
	} {
		if got := GMError(errors.New(tc.in)); got != tc.want {
			t.Errorf("GMError(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
