package forumsim

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func cookie(c *client, base, name string) string {
	u, _ := url.Parse(base)
	for _, ck := range c.hc.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

func TestLoginForm(t *testing.T) {
	b := newBoard(t, Options{})
	c := b.client()
	p := c.get("ucp.php?mode=login")
	_, v := p.form(t, "login")
	for _, f := range []string{"username", "password", "redirect", "sid", "creation_time", "form_token"} {
		if _, ok := v[f]; !ok {
			t.Errorf("login form lacks %s", f)
		}
	}
	if len(v.Get("form_token")) != 40 {
		t.Errorf("form_token %q is not sha1 hex", v.Get("form_token"))
	}
	guestSID := cookie(c, b.ts.URL, CookieSession)
	if guestSID == "" || cookie(c, b.ts.URL, CookieUser) != "1" || v.Get("sid") != guestSID {
		t.Error("guest session cookies phpbb3_u=1 and phpbb3_sid expected, sid in the form")
	}
}

func TestLogin(t *testing.T) {
	tests := []struct {
		name     string
		user, pw string
		wait     time.Duration
		reuse    bool // submit the token of a form used before
		wantErr  string
	}{
		{"ok", "Alice", "alice-pw", time.Second, false, ""},
		{"case-insensitive name", "aLiCe", "alice-pw", 2 * time.Second, false, ""},
		{"same second", "Alice", "alice-pw", 0, false, MsgFormInvalid},
		{"token expired", "Alice", "alice-pw", 3 * time.Hour, false, MsgFormInvalid},
		{"wrong password", "Alice", "nope", time.Second, false, MsgLoginPassword},
		{"unknown user", "Zed", "x", time.Second, false, MsgLoginUser},
		{"reused token", "Alice", "alice-pw", time.Second, true, MsgFormInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBoard(t, Options{})
			c := b.client()
			p := c.get("ucp.php?mode=login")
			act, v := p.form(t, "login")
			v.Set("username", tc.user)
			v.Set("password", tc.pw)
			v.Set("login", "Login")
			b.clk.Advance(tc.wait)
			if tc.reuse {
				// A wrong password does not spend the token; a success does.
				// Spend it with the right password, log out, replay it.
				r := c.post(act, v)
				if r.status != http.StatusFound {
					t.Fatalf("first login: %d %s", r.status, errorText(r))
				}
				// Put the guest session back so only the single-use rule
				// can refuse the replay (the token is bound to its sid).
				b.s.mu.Lock()
				b.s.sessions[v.Get("sid")] = &session{id: v.Get("sid"), userID: 1, last: b.clk.Now()}
				b.s.mu.Unlock()
				u, _ := url.Parse(b.ts.URL)
				c.hc.Jar.SetCookies(u, []*http.Cookie{{Name: CookieSession, Value: v.Get("sid"), Path: "/"}, {Name: CookieUser, Value: "1", Path: "/"}})
			}
			r := c.post(act, v)
			if tc.wantErr == "" {
				if r.status != http.StatusFound || r.loc != b.ts.URL+"/index.php" {
					t.Fatalf("status %d loc %q err %q", r.status, r.loc, errorText(r))
				}
				if cookie(c, b.ts.URL, CookieUser) != "2" || cookie(c, b.ts.URL, CookieSession) == v.Get("sid") {
					t.Error("login must set phpbb3_u to the user and start a new session id")
				}
				if !loggedIn(c.get("index.php")) {
					t.Error("index does not show logged-in markers")
				}
				return
			}
			if r.status != 200 || !strings.Contains(errorText(r), tc.wantErr) {
				t.Fatalf("want div.error %q, got status %d %q", tc.wantErr, r.status, errorText(r))
			}
			if byID(r.doc, "login") == nil {
				t.Error("failed login must show the form again")
			}
			if loggedIn(c.get("index.php")) {
				t.Error("logged in after a failure")
			}
		})
	}
}

func TestLoginRedirectAndLoginBox(t *testing.T) {
	b := newBoard(t, Options{})
	tid := b.thread(2)
	c := b.client()
	// A guest opening the reply form gets the login box, redirecting back.
	p := c.get("posting.php?mode=reply&t=1")
	act, v := p.form(t, "login")
	if v.Get("redirect") != "posting.php?mode=reply&t=1" || !strings.Contains(p.body, "You need to login in order to reply") {
		t.Fatalf("login box: redirect %q", v.Get("redirect"))
	}
	v.Set("username", "Bob")
	v.Set("password", "bob-pw")
	v.Set("login", "Login")
	b.clk.Advance(time.Second)
	r := c.post(act, v)
	if r.loc != b.ts.URL+"/posting.php?mode=reply&t=1" {
		t.Fatalf("redirect to %q", r.loc)
	}
	if byID(c.get(strings.TrimPrefix(r.loc, b.ts.URL+"/")).doc, "postform") == nil {
		t.Error("no reply form after login")
	}
	_ = tid
	// Off-site redirects are refused.
	c2 := b.client()
	p = c2.get("ucp.php?mode=login&redirect=" + url.QueryEscape("http://evil.example/"))
	act, v = p.form(t, "login")
	v.Set("username", "Bob")
	v.Set("password", "bob-pw")
	v.Set("login", "Login")
	b.clk.Advance(time.Second)
	if r := c2.post(act, v); r.loc != b.ts.URL+"/index.php" {
		t.Errorf("off-site redirect followed: %q", r.loc)
	}
}

func TestLogout(t *testing.T) {
	b := newBoard(t, Options{})
	c := b.client()
	c.login("Alice")
	p := c.get("index.php")
	if !loggedIn(p) {
		t.Fatal("not logged in")
	}
	sid := cookie(c, b.ts.URL, CookieSession)
	if !strings.Contains(p.body, "./ucp.php?mode=logout&amp;sid="+sid) {
		t.Error("navbar logout link must carry the sid")
	}
	r := c.get("ucp.php?mode=logout&sid=wrong")
	if !strings.Contains(text(byID(r.doc, "message")), "You were not logged out") || !loggedIn(c.get("index.php")) {
		t.Error("logout with a wrong sid must fail")
	}
	r = c.get("ucp.php?mode=logout&sid=" + sid)
	if r.status != http.StatusFound {
		t.Fatalf("logout status %d", r.status)
	}
	if loggedIn(c.get("index.php")) {
		t.Error("still logged in after logout")
	}
}

func TestForceLogoutAndAutologin(t *testing.T) {
	b := newBoard(t, Options{})
	// Remember me: the key revives the session after it expires.
	c := b.client()
	p := c.get("ucp.php?mode=login")
	act, v := p.form(t, "login")
	v.Set("username", "GM Bot")
	v.Set("password", "gmbot-pw")
	v.Set("autologin", "on")
	v.Set("login", "Login")
	b.clk.Advance(time.Second)
	c.post(act, v)
	if cookie(c, b.ts.URL, CookieKey) == "" {
		t.Fatal("autologin must set phpbb3_k")
	}
	old := cookie(c, b.ts.URL, CookieSession)
	b.clk.Advance(2 * time.Hour) // past session_length
	if !loggedIn(c.get("index.php")) {
		t.Error("autologin key did not revive the session")
	}
	if cookie(c, b.ts.URL, CookieSession) == old {
		t.Error("a revived session gets a new sid")
	}
	// Without the key, an idle session expires.
	c2 := b.client()
	c2.login("Alice")
	b.clk.Advance(61 * time.Minute)
	if loggedIn(c2.get("index.php")) {
		t.Error("session outlived session_length")
	}
	// Forced logout ends sessions and keys.
	c2.login("Alice")
	b.s.ForceLogout(b.ids["GM Bot"])
	if loggedIn(c.get("index.php")) {
		t.Error("forced logout did not end the bot's session")
	}
	if !loggedIn(c2.get("index.php")) {
		t.Error("forced logout of one user ended another's session")
	}
	// A reply form fetched before a forced logout gets the login box back.
	tid := b.thread(1)
	act, fv := c2.replyForm(tid)
	b.s.ForceLogout(b.ids["Alice"])
	vals := urlValues(fv)
	vals.Set("message", "after logout")
	vals.Set("post", "Submit")
	b.clk.Advance(time.Second)
	r := c2.post(act, vals)
	if r.status != http.StatusOK || byID(r.doc, "login") == nil || len(b.s.Posts(tid)) != 1 {
		t.Errorf("post after forced logout: %d, login form %v", r.status, byID(r.doc, "login") != nil)
	}
}
