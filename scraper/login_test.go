package scraper

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
)

// loginBoard is a phpBB-shaped board for the login's failure modes: its
// login POST answers as the test's mode says, then (mode "ok") logs in.
type loginBoard struct {
	mu    sync.Mutex
	clk   *clock.Fake
	mode  string // the next login POST's answer
	posts []time.Time
	gets  []time.Time
	in    bool
	pw    []string // the passwords posted

	loginPages int // GETs of the login form
	guestPages int // other pages served to a guest
}

const loginFormHTML = `<html><body><form id="login" method="post" action="ucp.php?mode=login">
<input type="hidden" name="form_token" value="t1"><input name="username"><input name="password" type="password">
</form></body></html>`

func (b *loginBoard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.Method == http.MethodPost {
		b.posts = append(b.posts, b.clk.Now())
		r.ParseForm()
		b.pw = append(b.pw, r.PostForm.Get("password"))
		if r.Header.Get("User-Agent") != UserAgent("1.2.3") {
			http.Error(w, "no user agent", http.StatusBadRequest)
			return
		}
		switch b.mode {
		case "wrong-password":
			fmt.Fprint(w, strings.Replace(loginFormHTML, "<form", `<div class="error">You have specified an incorrect password. Please check your password and try again.</div><form`, 1))
		case "stale-token":
			fmt.Fprint(w, strings.Replace(loginFormHTML, "<form", `<div class="error">The submitted form was invalid. Try submitting again.</div><form`, 1))
		case "reminder":
			// SMF's answer to a session's third wrong password.
			http.Redirect(w, r, "index.php?action=reminder", http.StatusFound)
		case "5xx":
			http.Error(w, "boom", http.StatusBadGateway)
		case "429":
			w.Header().Set("Retry-After", "20")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		default:
			b.in = true
			http.Redirect(w, r, "index.php", http.StatusFound)
		}
		return
	}
	b.gets = append(b.gets, b.clk.Now())
	if strings.Contains(r.URL.RawQuery, "mode=login") {
		b.loginPages++
	} else if !b.in {
		b.guestPages++
	}
	if b.mode == "odd-once" && strings.Contains(r.URL.RawQuery, "mode=login") {
		// A board busy beside its database: one page with no login form.
		b.mode = "ok"
		fmt.Fprint(w, `<html><head><title>Database Error</title></head><body><p>Please try again.</p></body></html>`)
		return
	}
	if b.mode == "truncated" && strings.Contains(r.URL.RawQuery, "mode=login") {
		fmt.Fprint(w, loginFormHTML[:60]) // cut before the password field
		return
	}
	if b.in {
		fmt.Fprint(w, `<html><body><a href="ucp.php?mode=logout">Logout</a><p>index</p></body></html>`)
		return
	}
	fmt.Fprint(w, loginFormHTML)
}

func newLoginRig(t *testing.T, mode string) (*loginBoard, *Session) {
	return newLoginRigOpt(t, mode, func(*forum.Profile, *Options) {})
}

func newLoginRigOpt(t *testing.T, mode string, tweak func(*forum.Profile, *Options)) (*loginBoard, *Session) {
	t.Helper()
	clk := clock.NewFake(t0)
	b := &loginBoard{clk: clk, mode: mode}
	srv := httptest.NewServer(b)
	t.Cleanup(srv.Close)
	prof, _ := forum.Builtin("phpbb")
	prof.FormWaitSeconds = 0
	opt := Options{Clock: clk, UserAgent: UserAgent("1.2.3"), MinInterval: time.Second}
	tweak(&prof, &opt)
	s, err := NewSession(srv.URL+"/", prof, forum.Credentials{Username: "GMBot", Password: "pw"}, opt)
	if err != nil {
		t.Fatal(err)
	}
	return b, s
}

// Only the board's wrong-password answer holds further logins back; every
// other failure is retried on the next attempt, and logs in once the board
// is well again.
func TestLoginLockoutOnlyOnWrongPassword(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		wantErr error
		lockout bool
	}{
		{"wrong-password", ErrLoginRefused, true},
		{"stale-token", ErrLogin, false},
		{"truncated", ErrUnavailable, false},
		{"5xx", ErrUnavailable, false},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			b, s := newLoginRig(t, tc.mode)
			ctx := context.Background()
			err := s.Login(ctx)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("login: %v, want %v", err, tc.wantErr)
			}
			if errors.Is(err, ErrLoginRefused) != tc.lockout {
				t.Fatalf("refused = %v, want %v (%v)", !tc.lockout, tc.lockout, err)
			}
			b.mu.Lock()
			b.mode = "ok"
			before := len(b.posts) + len(b.gets)
			b.mu.Unlock()
			err = s.Login(ctx)
			b.mu.Lock()
			after := len(b.posts) + len(b.gets)
			b.mu.Unlock()
			if tc.lockout {
				if err == nil || after != before {
					t.Fatalf("a second login right after a wrong password: err %v, %d requests; want held back, none", err, after-before)
				}
				return
			}
			if err != nil {
				t.Fatalf("the login after an ordinary failure: %v", err)
			}
		})
	}
}

// A login page without its form is asked for once more before the login
// fails (an SMF busy beside its database in a CI run answered one); twice
// is a failure that names what the page showed.
func TestLoginAsksAgainForAnOddLoginPage(t *testing.T) {
	b, s := newLoginRig(t, "odd-once")
	if err := s.Login(context.Background()); err != nil {
		t.Fatalf("login after one odd login page: %v", err)
	}
	if b.loginPages != 2 || len(b.posts) != 1 {
		t.Fatalf("%d login pages, %d login posts; want 2 and 1", b.loginPages, len(b.posts))
	}
	b, s = newLoginRig(t, "truncated")
	err := s.Login(context.Background())
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "HTTP 200") || b.loginPages != 2 || len(b.posts) != 0 {
		t.Fatalf("login with the form always cut: %v after %d login pages, %d posts; want ErrUnavailable naming the page after 2, none", err, b.loginPages, len(b.posts))
	}
}

// A redirect the profile's login_refused_text names (SMF sends a session's
// third wrong password to its password reminder, with no error text) is a
// refusal; a redirect it does not name is checked as a login.
func TestLoginRefusedByRedirect(t *testing.T) {
	b, s := newLoginRigOpt(t, "reminder", func(p *forum.Profile, _ *Options) {
		p.LoginRefusedText = append(p.LoginRefusedText, "action=reminder")
	})
	err := s.Login(context.Background())
	if !errors.Is(err, ErrLoginRefused) || !strings.Contains(err.Error(), "action=reminder") {
		t.Fatalf("login redirected to the reminder: %v; want ErrLoginRefused naming it", err)
	}
	if len(b.gets) != 1 {
		t.Errorf("%d GETs; want only the login form's (a refusal needs no check page)", len(b.gets))
	}
}

// Options.Password is asked at each attempt: a password the GM fixes
// while the bot waits out a refusal is the one the next attempt posts.
func TestLoginRereadsPassword(t *testing.T) {
	pw := "wrong"
	b, s := newLoginRigOpt(t, "wrong-password", func(_ *forum.Profile, o *Options) {
		o.Password = func() (string, error) { return pw, nil }
	})
	ctx := context.Background()
	if err := s.Login(ctx); !errors.Is(err, ErrLoginRefused) {
		t.Fatalf("first login: %v", err)
	}
	pw = "right"
	b.mu.Lock()
	b.mode = "ok"
	b.mu.Unlock()
	if err := s.Login(ctx); err == nil {
		t.Fatal("a login within the wait went out")
	}
	b.clk.Advance(time.Hour)
	if err := s.Login(ctx); err != nil {
		t.Fatalf("the login after the wait: %v", err)
	}
	if strings.Join(b.pw, ",") != "wrong,right" {
		t.Errorf("passwords posted %q; want wrong, then right", b.pw)
	}
	// A password that cannot be read: a plain login error, no request.
	s2Board, s2 := newLoginRigOpt(t, "ok", func(_ *forum.Profile, o *Options) {
		o.Password = func() (string, error) { return "", errors.New("the bot's password file x is empty") }
	})
	if err := s2.Login(ctx); !errors.Is(err, ErrLogin) || errors.Is(err, ErrLoginRefused) || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("unreadable password: %v; want ErrLogin naming the cause, not a refusal", err)
	}
	if len(s2Board.posts) != 0 {
		t.Errorf("posted %d logins without a password", len(s2Board.posts))
	}
}

// A 429 with Retry-After on the login POST holds every request to the
// board, the next login's included, until it has passed.
func TestLoginPostRetryAfter(t *testing.T) {
	b, s := newLoginRig(t, "429")
	ctx := context.Background()
	err := s.Login(ctx)
	if !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrLogin) {
		t.Fatalf("login on a 429: %v, want ErrUnavailable (no lockout)", err)
	}
	b.mu.Lock()
	refusedAt := b.posts[len(b.posts)-1]
	b.mode = "ok"
	b.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- s.Login(ctx) }()
	// Nothing may reach the board before the 20 s are up.
	for i := 0; i < 40; i++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			i = 40
		default:
			b.clk.Advance(time.Second)
			time.Sleep(2 * time.Millisecond)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, at := range append(append([]time.Time{}, b.gets...), b.posts...) {
		if at.After(refusedAt) && at.Before(refusedAt.Add(20*time.Second)) {
			t.Errorf("request at +%s inside the 20 s Retry-After", at.Sub(refusedAt))
		}
	}
	if !b.in {
		t.Error("never logged in after the Retry-After")
	}
}

// Games that saw a guest page together wait for one login and go on: the
// login form is fetched once, not once more by each of them to learn the
// first login worked.
func TestManyFetchesOneLogin(t *testing.T) {
	t.Parallel()
	b, s := newLoginRigOpt(t, "ok", func(_ *forum.Profile, o *Options) {
		o.Clock, o.MinInterval = clock.Real{}, time.Millisecond
	})
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pg, err := s.Fetch(context.Background(), "index.php")
			if err == nil && !s.Parser.LoggedIn(pg.Doc) {
				err = errors.New("a guest page")
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t.Logf("%d fetches saw a guest page", b.guestPages)
	if b.loginPages != 1 || len(b.posts) != 1 {
		t.Errorf("%d fetches: the login form fetched %d times and posted %d times, want once each", n, b.loginPages, len(b.posts))
	}
}
