//go:build linux

package boardtest

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/probe"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/scraper"
)

// LoginAttempt is one login the bot made and what came of it.
type LoginAttempt struct {
	Err      error
	Requests int // HTTP requests it made (0: held back by the lockout)
}

// LoginLimits says how an engine meets repeated wrong passwords.
type LoginLimits struct {
	// Wrong is how many wrong-password logins the check makes, each after
	// the bot's lockout wait: enough to reach the board's attempt limit.
	Wrong int
	// StillRefused: after the limit, the right password is refused too
	// (a captcha the bot cannot solve) until Reset.
	StillRefused bool
	// Reset undoes the board's attempt limit for the bot account the way
	// its admin (or a login by hand with the captcha solved) does; nil:
	// nothing to undo.
	Reset func(t testing.TB)
}

// CheckLoginRefusal drives the bot's login the way forumgm run does
// (forumconn.Sessions.Connect, password in an owner-only file) on a real
// board: a wrong password is the board's refusal (ErrLoginRefused, the
// board's own words, no password in the error); a login within the
// lockout's wait makes no request; each further wrong attempt after the
// wait is a refusal too, also the board's attempt limit; once the password
// file is fixed (and the limit undone where the board keeps one) the bot
// logs in at its first attempt after the wait. It returns every attempt.
func CheckLoginRefusal(t *testing.T, b *realboardtest.Board, lim LoginLimits) []LoginAttempt {
	t.Helper()
	ctx := context.Background()
	const wrong = "Wr0ng-pass-4711"
	pwFile := filepath.Join(t.TempDir(), "bot.password")
	if err := os.WriteFile(pwFile, []byte(wrong), 0o600); err != nil {
		t.Fatal(err)
	}
	clk := &clock.Skew{} // a lockout's minutes or hours pass at once
	ss := &forumconn.Sessions{Clock: clk, Version: "login-test"}
	site, err := gameconfig.ForumConfig{URL: b.URL, Engine: b.Engine, Thread: b.ThreadIDString(),
		Bot: b.Bot.Name, PasswordFile: pwFile, RequestsPerSecond: 50}.Site()
	if err != nil {
		t.Fatal(err)
	}
	c, err := ss.Connect(site)
	if err != nil {
		t.Fatal(err)
	}
	var log []LoginAttempt
	login := func() LoginAttempt {
		n := c.Session.Requests()
		err := c.Session.Login(ctx)
		a := LoginAttempt{Err: err, Requests: c.Session.Requests() - n}
		log = append(log, a)
		if err != nil {
			for _, pw := range []string{wrong, b.Bot.Password} {
				if strings.Contains(err.Error(), pw) {
					t.Errorf("the login error holds a password: %v", err)
				}
			}
		}
		t.Logf("login %d: %d requests, %v", len(log), a.Requests, err)
		return a
	}
	heldBack := func(when string) {
		t.Helper()
		if a := login(); a.Err == nil || errors.Is(a.Err, scraper.ErrLoginRefused) || !errors.Is(a.Err, scraper.ErrLogin) || a.Requests != 0 {
			t.Errorf("a login %s: %d requests, %v; want none, held back (ErrLogin)", when, a.Requests, a.Err)
		}
	}
	for i := 0; i < lim.Wrong; i++ {
		if i > 0 {
			clk.Advance(25 * time.Hour) // past the longest wait (a day)
		}
		a := login()
		if !errors.Is(a.Err, scraper.ErrLoginRefused) {
			t.Fatalf("wrong password, attempt %d: %v; want the board's refusal (ErrLoginRefused)", i+1, a.Err)
		}
		if a.Requests == 0 {
			t.Fatalf("wrong password, attempt %d: no request made", i+1)
		}
		heldBack("right after a refusal")
	}
	// The GM fixes the password file; the wait still holds.
	if err := os.WriteFile(pwFile, []byte(b.Bot.Password), 0o600); err != nil {
		t.Fatal(err)
	}
	heldBack("within the wait, password fixed")
	if lim.StillRefused {
		clk.Advance(25 * time.Hour)
		if a := login(); !errors.Is(a.Err, scraper.ErrLoginRefused) {
			t.Fatalf("right password past the board's attempt limit: %v; want a refusal (the board wants a captcha)", a.Err)
		}
		heldBack("right after the captcha refusal")
	}
	if lim.Reset != nil {
		lim.Reset(t)
	}
	clk.Advance(25 * time.Hour)
	if a := login(); a.Err != nil {
		t.Fatalf("right password after the wait: %v", a.Err)
	}
	pg, err := c.Session.Fetch(ctx, c.Session.Profile.URLs.Index)
	if err != nil || !c.Session.Parser.LoggedIn(pg.Doc) {
		t.Fatalf("after the login the index page is a guest's (%v)", err)
	}
	return log
}

// CheckStaleLoginToken: a login whose form token went stale between the
// form and the submission (invalidate ends the board's guest sessions
// then) is an ordinary failure, not a refusal: no lockout, and the very
// next attempt logs in.
func CheckStaleLoginToken(t *testing.T, b *realboardtest.Board, invalidate func(t testing.TB)) error {
	t.Helper()
	ctx := context.Background()
	prof, _ := forum.Builtin(b.Engine)
	tr := &armedTransport{base: http.DefaultTransport, before: func() { invalidate(t) }}
	c, err := forumconn.Open(b.URL, prof, forum.Credentials{Username: b.Bot.Name, Password: b.Bot.Password},
		scraper.Options{MinInterval: 20 * time.Millisecond, Retries: 2, Backoff: 200 * time.Millisecond, Transport: tr,
			Log: TestLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	tr.arm()
	stale := c.Session.Login(ctx)
	t.Logf("login with a stale token: %v", stale)
	if tr.armed() {
		t.Fatal("the login posted nothing")
	}
	if stale == nil || errors.Is(stale, scraper.ErrLoginRefused) {
		t.Fatalf("a login with a stale token: %v; want an ordinary failure, not a refusal", stale)
	}
	if err := c.Session.Login(ctx); err != nil {
		t.Fatalf("the next login: %v; want logged in (no lockout after a stale token)", err)
	}
	return stale
}

// armedTransport runs before() once, ahead of the first POST after arm():
// between the login form's GET and its submission.
type armedTransport struct {
	base   http.RoundTripper
	before func()
	mu     sync.Mutex
	on     bool
}

func (a *armedTransport) arm() { a.mu.Lock(); a.on = true; a.mu.Unlock() }
func (a *armedTransport) armed() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.on
}

func (a *armedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	a.mu.Lock()
	fire := a.on && r.Method == http.MethodPost
	if fire {
		a.on = false
	}
	a.mu.Unlock()
	if fire {
		a.before()
	}
	return a.base.RoundTrip(r)
}

// CheckProbeRefusal runs `forumgm probe`'s checks with a wrong password:
// the login check fails with the board's own words and the fix names the
// bot's name and password, no password shows, and the rest is skipped.
func CheckProbeRefusal(t *testing.T, b *realboardtest.Board, boardSays string) {
	t.Helper()
	prof, _ := forum.Builtin(b.Engine)
	const wrong = "Wr0ng-pass-4711"
	r, err := probe.Run(context.Background(), probe.Config{URL: b.URL, Profile: prof, Thread: b.ThreadIDString(),
		Creds:   forum.Credentials{Username: b.Bot.Name, Password: wrong},
		Scraper: scraper.Options{MinInterval: 20 * time.Millisecond, Retries: 2, Backoff: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r.WriteText(&out)
	t.Logf("probe with a wrong password:\n%s", out.String())
	if r.OK || strings.Contains(out.String(), wrong) {
		t.Errorf("probe with a wrong password: OK %v, or the password shows", r.OK)
	}
	for _, c := range r.Checks {
		switch {
		case c.ID == "login":
			if c.Status != probe.Fail || !strings.Contains(strings.ToLower(c.Detail), boardSays) || !strings.Contains(c.Fix, "check the bot's user name and password") {
				t.Errorf("login check: %+v; want a failure quoting %q and a fix naming the name and password", c, boardSays)
			}
		case c.Needed && c.Status != probe.Skipped:
			t.Errorf("after a refused login, check %s: %s", c.ID, c.Status)
		}
	}
}
