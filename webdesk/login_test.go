package webdesk

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/moderator"
)

// loginDesk is a desk for the login's tests: no game needed. Its waits are
// recorded, not slept (wait, when set, answers them instead).
type loginDesk struct {
	*Desk
	mu    sync.Mutex
	waits []time.Duration
	wait  func(ctx context.Context, d time.Duration) error
	now   time.Time
}

func newLoginDesk(t *testing.T, trusted ...string) *loginDesk {
	t.Helper()
	ld := &loginDesk{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	var prefixes []netip.Prefix
	for _, s := range trusted {
		prefixes = append(prefixes, netip.MustParsePrefix(s))
	}
	d, err := New(Config{Moderator: &moderator.Moderator{}, Secret: testSecret, TrustedProxies: prefixes,
		Now: func() time.Time { ld.mu.Lock(); defer ld.mu.Unlock(); return ld.now },
		Sleep: func(ctx context.Context, d time.Duration) error {
			ld.mu.Lock()
			ld.waits = append(ld.waits, d)
			ld.now = ld.now.Add(d)
			w := ld.wait
			ld.mu.Unlock()
			if w != nil {
				return w(ctx, d)
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	ld.Desk = d
	return ld
}

// attempt posts the login form from remote (host:port), with the
// X-Forwarded-For header xff when not empty, and a matching form token.
func (ld *loginDesk) attempt(password, remote, xff string) *httptest.ResponseRecorder {
	form := url.Values{"csrf": {"tok-123"}, "password": {password}, "next": {"/"}}
	req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: loginCookie, Value: "tok-123"})
	req.RemoteAddr = remote
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	w := httptest.NewRecorder()
	ld.Handler().ServeHTTP(w, req)
	return w
}

func (ld *loginDesk) lastWaits() []time.Duration {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	w := ld.waits
	ld.waits = nil
	return w
}

func loggedIn(w *httptest.ResponseRecorder) bool {
	if w.Code != http.StatusSeeOther {
		return false
	}
	for _, c := range w.Result().Cookies() {
		if c.Name == sessionCookie && c.Value != "" {
			return true
		}
	}
	return false
}

// TestLoginSlowsGuessesNeverRefusesRightPassword is issue 22 item 5:
// after 10 failures from one address the desk refused even the right
// password for 10 minutes, and behind a reverse proxy every visitor
// shares one address, so anyone could lock the GM out. Now wrong guesses
// are slowed (after 5 failures in 10 minutes, each attempt from the
// address waits 1 s, doubling up to 8 s, before its password is checked,
// right or wrong alike, so the answer's timing tells nothing), and the
// right password is never refused.
func TestLoginSlowsGuessesNeverRefusesRightPassword(t *testing.T) {
	ld := newLoginDesk(t)
	const proxy = "127.0.0.1:40000"
	var waited []time.Duration
	for i := range 30 {
		w := ld.attempt("guess", proxy, "")
		if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "Wrong password") {
			t.Fatalf("wrong guess %d: %d %q; want 401, the password checked", i+1, w.Code, w.Body.String())
		}
		var d time.Duration
		for _, x := range ld.lastWaits() {
			d += x
		}
		waited = append(waited, d)
	}
	s := time.Second
	want := []time.Duration{0, 0, 0, 0, 0, s, 2 * s, 4 * s, 8 * s, 8 * s}
	for i, d := range want {
		if waited[i] != d {
			t.Errorf("wait before guess %d: %v, want %v (all: %v)", i+1, waited[i], d, waited)
		}
	}
	for i, d := range waited[len(want):] {
		if d != 8*s {
			t.Errorf("wait before guess %d: %v, want the 8 s cap", len(want)+i+1, d)
		}
	}
	w := ld.attempt(testSecret, proxy, "")
	if !loggedIn(w) {
		t.Fatalf("the right password after 30 wrong guesses from the same address: %d %q; want logged in", w.Code, w.Body.String())
	}
	if got := ld.lastWaits(); len(got) != 1 || got[0] != 8*s {
		t.Errorf("the right password waited %v; want the same 8 s as a guess (timing must not tell)", got)
	}
	// The failures age out: 10 minutes after the last, no wait.
	ld.mu.Lock()
	ld.now = ld.now.Add(10 * time.Minute)
	ld.mu.Unlock()
	if w := ld.attempt(testSecret, proxy, ""); !loggedIn(w) || len(ld.lastWaits()) != 0 {
		t.Errorf("10 minutes after the last failure: %d, waits %v; want logged in at once", w.Code, ld.waits)
	}
}

// A client that leaves during its wait has nothing checked: no login, no
// failure counted.
func TestLoginWaitAbandoned(t *testing.T) {
	ld := newLoginDesk(t)
	const from = "198.51.100.9:1000"
	for range 5 {
		ld.attempt("guess", from, "")
	}
	ld.wait = func(context.Context, time.Duration) error { return context.Canceled }
	if w := ld.attempt(testSecret, from, ""); loggedIn(w) {
		t.Error("an attempt whose client left during the wait logged in")
	}
	ld.attempt("guess", from, "")
	ld.wait = nil
	ld.lastWaits()
	ld.attempt("guess", from, "")
	if got := ld.lastWaits(); len(got) != 1 || got[0] != time.Second {
		t.Errorf("after abandoned attempts the next waited %v; want 1 s (abandoned attempts are no failures)", got)
	}
}

// TestLoginTrustedProxy: the client address the proxy reports is believed
// only from a proxy the GM named (--trusted-proxy), and then only its last
// entry not itself a trusted proxy (what comes before is the client's to
// write); without the setting X-Forwarded-For is ignored.
func TestLoginTrustedProxy(t *testing.T) {
	for _, tc := range []struct {
		name, remote, xff string
		trusted           []string
		want              string
	}{
		{"no setting: the header is ignored", "127.0.0.1:4000", "203.0.113.7", nil, "127.0.0.1"},
		{"trusted proxy", "127.0.0.1:4000", "203.0.113.7", []string{"127.0.0.1/32"}, "203.0.113.7"},
		{"an untrusted sender's header is ignored", "192.0.2.5:4000", "203.0.113.7", []string{"127.0.0.1/32"}, "192.0.2.5"},
		{"spoofed entries before the proxy's", "127.0.0.1:4000", "10.9.9.9, 203.0.113.7", []string{"127.0.0.1/32"}, "203.0.113.7"},
		{"a chain of trusted proxies", "127.0.0.1:4000", "198.51.100.1, 10.0.0.2", []string{"127.0.0.1/32", "10.0.0.0/8"}, "198.51.100.1"},
		{"several header lines", "127.0.0.1:4000", "203.0.113.7\x00198.51.100.4", []string{"127.0.0.1/32"}, "198.51.100.4"},
		{"IPv6 with a port", "[::1]:4000", "[2001:db8::7]:5555", []string{"::1/128"}, "2001:db8::7"},
		{"a garbled entry: the proxy's own address", "127.0.0.1:4000", "not-an-address", []string{"127.0.0.1/32"}, "127.0.0.1"},
		{"no header from a trusted proxy", "127.0.0.1:4000", "", []string{"127.0.0.1/32"}, "127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ld := newLoginDesk(t, tc.trusted...)
			req := httptest.NewRequest(http.MethodPost, "/login", nil)
			req.RemoteAddr = tc.remote
			for _, v := range strings.Split(tc.xff, "\x00") {
				if v != "" {
					req.Header.Add("X-Forwarded-For", v)
				}
			}
			if got := ld.clientAddr(req); got != tc.want {
				t.Errorf("client address %q, want %q", got, tc.want)
			}
		})
	}
	// End to end: behind a trusted proxy, a guesser slows only itself.
	ld := newLoginDesk(t, "127.0.0.1/32")
	for range 8 {
		ld.attempt("guess", "127.0.0.1:4000", "203.0.113.66")
	}
	ld.lastWaits()
	if w := ld.attempt(testSecret, "127.0.0.1:4000", "198.51.100.20"); !loggedIn(w) || len(ld.lastWaits()) != 0 {
		t.Errorf("the GM behind the same proxy as a guesser: %d, waited; want logged in at once", w.Code)
	}
	ld.attempt("guess", "127.0.0.1:4000", "203.0.113.66")
	if got := ld.lastWaits(); len(got) != 1 || got[0] != 8*time.Second {
		t.Errorf("the guesser's next attempt waited %v, want 8 s", got)
	}
}

// TestLoginCSRFEmpty: an empty form token with an empty login cookie is no
// token (issue 22 item 5): refused like a missing one, and never a login.
func TestLoginCSRFEmpty(t *testing.T) {
	ld := newLoginDesk(t)
	for _, tc := range []struct {
		name          string
		cookie, field *string
	}{
		{"both empty", ptr(""), ptr("")},
		{"empty cookie, no field", ptr(""), nil},
		{"no cookie, empty field", nil, ptr("")},
		{"mismatch", ptr("a"), ptr("b")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form := url.Values{"password": {testSecret}}
			if tc.field != nil {
				form.Set("csrf", *tc.field)
			}
			req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tc.cookie != nil {
				req.Header.Set("Cookie", loginCookie+"="+*tc.cookie)
			}
			w := httptest.NewRecorder()
			ld.Handler().ServeHTTP(w, req)
			if w.Code != http.StatusForbidden || loggedIn(w) {
				t.Errorf("%d; want 403 and no session", w.Code)
			}
		})
	}
}

func ptr(s string) *string { return &s }
