package webdesk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/gamelog"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/nations"
	"github.com/forumgm/forumgm/rules/protest"
	"github.com/forumgm/forumgm/rules/resistance"
	"github.com/forumgm/forumgm/store"
)

const testSecret = "correct horse battery staple"

// rig is a desk over a played game, served by httptest, and a browser-like
// client with its own cookies.
type rig struct {
	*played
	desk *Desk
	srv  *httptest.Server
	c    *http.Client
	now  time.Time
}

func newRig(t *testing.T, p *played, public ...string) *rig {
	t.Helper()
	r := &rig{played: p, now: time.Now()}
	pub := map[string]bool{}
	for _, n := range public {
		pub[n] = true
	}
	d, err := New(Config{Moderator: p.M, Secret: testSecret, Public: pub, Now: func() time.Time { return r.now }})
	if err != nil {
		t.Fatal(err)
	}
	r.desk = d
	r.srv = httptest.NewServer(d.Handler())
	t.Cleanup(r.srv.Close)
	r.c = client()
	return r
}

func client() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func (r *rig) get(t *testing.T, path string) (*http.Response, string) {
	t.Helper()
	resp, err := r.c.Get(r.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func (r *rig) post(t *testing.T, path string, form url.Values) (*http.Response, string) {
	t.Helper()
	resp, err := r.c.PostForm(r.srv.URL+path, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

var reCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func csrfOf(t *testing.T, body string) string {
	t.Helper()
	m := reCSRF.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token in the page:\n%s", body)
	}
	return m[1]
}

// login logs the rig's client in and returns the session's CSRF token.
func (r *rig) login(t *testing.T) string {
	t.Helper()
	_, body := r.get(t, "/login")
	resp, _ := r.post(t, "/login", url.Values{"csrf": {csrfOf(t, body)}, "password": {testSecret}, "next": {"/"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %s", resp.Status)
	}
	resp, body = r.get(t, "/")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("games page after login: %s", resp.Status)
	}
	return csrfOf(t, body)
}

func (r *rig) report(t *testing.T) moderator.GameReport {
	t.Helper()
	rs, err := r.M.Report(context.Background(), r.Name)
	if err != nil {
		t.Fatal(err)
	}
	return rs[0]
}

func TestDeskResistance(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a game on the local forum")
	}
	r := newRig(t, playGame(t, "resistance", 2), "desk-resistance")

	t.Run("headers", func(t *testing.T) {
		resp, _ := r.get(t, "/login")
		for h, want := range map[string]string{
			"Content-Security-Policy": "frame-ancestors 'none'",
			"X-Frame-Options":         "DENY",
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "no-referrer",
		} {
			if got := resp.Header.Get(h); !strings.Contains(got, want) {
				t.Errorf("%s = %q, want it to contain %q", h, got, want)
			}
		}
		if strings.Contains(resp.Header.Get("Content-Security-Policy"), "unsafe-inline") {
			t.Error("the pages' CSP allows inline code")
		}
	})

	t.Run("login", func(t *testing.T) {
		c := newRigClient(r)
		resp, _ := c.get(t, "/game/desk-resistance")
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
			t.Fatalf("a GM page without a session: %s to %q, want a redirect to the login", resp.Status, resp.Header.Get("Location"))
		}
		_, body := c.get(t, "/login") // a session and its token exist; the post below leaves the token out
		csrfOf(t, body)
		if resp, _ := c.post(t, "/login", url.Values{"password": {testSecret}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("login without the form's token: %s, want 403", resp.Status)
		}
		_, body = c.get(t, "/login")
		tok := csrfOf(t, body)
		if resp, _ := c.post(t, "/login", url.Values{"csrf": {tok}, "password": {testSecret + "x"}}); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("a wrong password: %s, want 401", resp.Status)
		}
		_, body = c.get(t, "/login")
		resp, _ = c.post(t, "/login", url.Values{"csrf": {csrfOf(t, body)}, "password": {testSecret}, "next": {"//evil.example/"}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
			t.Errorf("login with an off-site next: %s to %q, want / ", resp.Status, resp.Header.Get("Location"))
		}
		var sc *http.Cookie
		for _, ck := range resp.Cookies() {
			if ck.Name == sessionCookie {
				sc = ck
			}
		}
		if sc == nil || !sc.HttpOnly || sc.SameSite != http.SameSiteStrictMode || sc.MaxAge <= 0 {
			t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Strict, an expiry", sc)
		}
		if resp, _ := c.get(t, "/"); resp.StatusCode != http.StatusOK {
			t.Fatalf("games page with a session: %s", resp.Status)
		}
		// The session expires.
		r.now = r.now.Add(13 * time.Hour)
		defer func() { r.now = r.now.Add(-13 * time.Hour) }()
		if resp, _ := c.get(t, "/"); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("an expired session: %s, want a redirect to the login", resp.Status)
		}
	})

	csrf := r.login(t)

	t.Run("games page", func(t *testing.T) {
		_, body := r.get(t, "/")
		rep := r.report(t)
		for _, want := range []string{"desk-resistance", rep.Rules.Title, `class="countdown"`, "posts and PMs read", "sent,"} {
			if !strings.Contains(body, want) {
				t.Errorf("games page lacks %q", want)
			}
		}
		for _, p := range rep.Rules.Waiting {
			if !strings.Contains(body, p) {
				t.Errorf("games page does not name %s, who has not acted", p)
			}
		}
	})

	t.Run("board health", func(t *testing.T) {
		// The game has been read: the games list and the game page say so.
		for _, path := range []string{"/", "/game/desk-resistance"} {
			if _, body := r.get(t, path); !strings.Contains(body, "read fine, last ") {
				t.Errorf("%s: no board health while the board reads fine", path)
			}
		}
		// Reads failing: since when, why, the last good read and the next try.
		var id int64
		var saved store.Health
		since := time.Date(2026, 3, 1, 12, 8, 0, 0, time.UTC)
		err := r.DB.Tx(context.Background(), func(tx *store.Tx) error {
			g, err := tx.Game(r.Name)
			if err != nil {
				return err
			}
			id = g.ID
			if saved, err = tx.Health(id); err != nil {
				return err
			}
			return tx.SaveHealth(store.Health{GameID: id, LastGoodRead: since.Add(-time.Minute), LastError: "the thread: 503 <Service Unavailable>",
				FailingSince: since, Failures: 4, LastFailure: since.Add(3 * time.Minute), NextRetry: since.Add(4 * time.Minute)})
		})
		if err != nil {
			t.Fatal(err)
		}
		defer r.DB.Tx(context.Background(), func(tx *store.Tx) error { return tx.SaveHealth(saved) })
		for _, path := range []string{"/", "/game/desk-resistance"} {
			_, body := r.get(t, path)
			for _, want := range []string{"not readable since " + stamp(since), "(4 failed reads)", "503 &lt;Service Unavailable&gt;", "last good read " + stamp(since.Add(-time.Minute)), "next try " + stamp(since.Add(4*time.Minute))} {
				if !strings.Contains(body, want) {
					t.Errorf("%s lacks %q", path, want)
				}
			}
		}
		if _, body := newRigClient(r).get(t, "/p/desk-resistance"); strings.Contains(body, "Service Unavailable") {
			t.Error("the public page shows the board's health")
		}
		// The thread reads and the PM inbox does not (issue 22 item 7):
		// which page, why, and what waits.
		err = r.DB.Tx(context.Background(), func(tx *store.Tx) error {
			return tx.SaveHealth(store.Health{GameID: id, LastGoodRead: since, InboxFailingSince: since.Add(-2 * time.Minute), InboxFailures: 3,
				InboxError: "the PM inbox fails: http://board/ucp.php?i=pm&folder=inbox: not found on the forum (HTTP 404)"})
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/", "/game/desk-resistance"} {
			_, body := r.get(t, path)
			for _, want := range []string{"read fine, last " + stamp(since), "PM inbox not readable since " + stamp(since.Add(-2*time.Minute)), "(3 failed reads)",
				"folder=inbox: not found on the forum (HTTP 404)", "a phase that takes orders by PM waits past its deadline"} {
				if !strings.Contains(body, want) {
					t.Errorf("%s lacks %q", path, want)
				}
			}
		}
		if _, body := newRigClient(r).get(t, "/p/desk-resistance"); strings.Contains(body, "HTTP 404") {
			t.Error("the public page shows the inbox's health")
		}
	})

	t.Run("audit filters", func(t *testing.T) {
		all, _, err := r.M.Audit(context.Background(), r.Name, gamelog.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		var player string
		statuses := map[store.CommandStatus]int{}
		for _, a := range all {
			if len(a.Commands) > 0 && player == "" {
				player = a.Message.AuthorName
			}
			for _, c := range a.Commands {
				statuses[c.Status]++
			}
		}
		if player == "" || statuses[store.CommandAccepted] == 0 {
			t.Fatalf("the played game has no accepted commands to show: %v", statuses)
		}
		_, body := r.get(t, "/game/desk-resistance?player="+url.QueryEscape(player))
		authors := regexp.MustCompile(`<td class="by"><bdi>([^<]*)</bdi></td>`).FindAllStringSubmatch(body, -1)
		if len(authors) == 0 {
			t.Fatalf("no rows for %s", player)
		}
		for _, a := range authors {
			if a[1] != player {
				t.Errorf("filtered by %s, the log shows a message by %s", player, a[1])
			}
		}
		for st, n := range statuses {
			_, body := r.get(t, "/game/desk-resistance?status="+string(st))
			got := regexp.MustCompile(`<span class="status ([a-z]+)">`).FindAllStringSubmatch(body, -1)
			if len(got) != n {
				t.Errorf("status=%s shows %d commands, the audit has %d", st, len(got), n)
			}
			for _, g := range got {
				if g[1] != string(st) {
					t.Errorf("status=%s shows a %s command", st, g[1])
				}
			}
		}
		if _, body := r.get(t, "/game/desk-resistance"); !strings.Contains(body, "viewtopic.php?p=") {
			t.Error("the audit log does not link posts on the board")
		}
	})

	t.Run("csrf refused", func(t *testing.T) {
		for _, tok := range []string{"", "forged"} {
			resp, _ := r.post(t, "/game/desk-resistance/do/pause", url.Values{"csrf": {tok}, "confirm": {"yes"}})
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("pause with token %q: %s, want 403", tok, resp.Status)
			}
		}
		if st := r.report(t).Status; st != moderator.Running {
			t.Fatalf("a refused form changed the game: %s", st)
		}
	})

	t.Run("controls", func(t *testing.T) {
		before := r.report(t).Rules.Deadline
		resp, body := r.post(t, "/game/desk-resistance/do/extend", url.Values{"csrf": {csrf}, "by": {"2d"}})
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Move the deadline of desk-resistance by 48h0m0s?") {
			t.Fatalf("extend did not ask first: %s\n%s", resp.Status, body)
		}
		if got := r.report(t).Rules.Deadline; !got.Equal(before) {
			t.Fatal("the question alone moved the deadline")
		}
		resp, _ = r.post(t, "/game/desk-resistance/do/extend", url.Values{"csrf": {csrfOf(t, body)}, "by": {"2d"}, "confirm": {"yes"}, "back": {"/game/desk-resistance"}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("confirmed extend: %s", resp.Status)
		}
		if got := r.report(t).Rules.Deadline; !got.Equal(before.Add(48 * time.Hour)) {
			t.Errorf("deadline %v after extending %v by 2d", got, before)
		}
		_, body = r.get(t, "/game/desk-resistance")
		if !strings.Contains(body, "The deadline is now") {
			t.Error("the game page does not say what the control did")
		}

		r.post(t, "/game/desk-resistance/do/pause", url.Values{"csrf": {csrf}, "confirm": {"yes"}})
		if st := r.report(t).Status; st != moderator.Paused {
			t.Fatalf("after pause: %s", st)
		}
		r.post(t, "/game/desk-resistance/do/pause", url.Values{"csrf": {csrf}, "confirm": {"yes"}})
		_, body = r.get(t, "/game/desk-resistance")
		if !strings.Contains(body, "not running") {
			t.Error("pausing a paused game: the desk does not show the moderator's refusal")
		}
		r.post(t, "/game/desk-resistance/do/resume", url.Values{"csrf": {csrf}, "confirm": {"yes"}})
		if st := r.report(t).Status; st != moderator.Running {
			t.Fatalf("after resume: %s", st)
		}

		// Void: an accepted command of the current phase.
		rows, _, _ := r.M.Audit(context.Background(), r.Name, gamelog.Filter{Phase: r.report(t).Rules.Phase})
		var id int64
		for _, a := range rows {
			for _, c := range a.Commands {
				if c.Status == store.CommandAccepted {
					id = c.ID
				}
			}
		}
		if id != 0 {
			r.post(t, "/game/desk-resistance/do/void", url.Values{"csrf": {csrf}, "confirm": {"yes"}, "command": {jsonNum(id)}, "reason": {"test"}})
			rows, _, _ = r.M.Audit(context.Background(), r.Name, gamelog.Filter{})
			for _, a := range rows {
				for _, c := range a.Commands {
					if c.ID == id && c.Status != store.CommandVoided {
						t.Errorf("command %d is %s after void", id, c.Status)
					}
				}
			}
		}
	})

	t.Run("pages", func(t *testing.T) {
		for path, want := range map[string]string{
			"/game/desk-resistance/history": "Phase history",
			"/game/desk-resistance/state":   "Roles (GM only)",
			"/game/desk-resistance/maps":    "has no map",
		} {
			resp, body := r.get(t, path)
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, want) {
				t.Errorf("%s: %s, want %q in it", path, resp.Status, want)
			}
		}
	})

	t.Run("preview and resolve-now", func(t *testing.T) {
		rep := r.report(t)
		phase := rep.Rules.Phase
		_, body := r.get(t, "/game/desk-resistance")
		if !strings.Contains(body, `<input type="hidden" name="phase" value="`+phase+`"><button id="c-resolve">`) || !strings.Contains(body, `id="c-preview"`) {
			t.Fatalf("the game page's resolve-now does not send the phase it shows (%s), or has no preview button", phase)
		}
		if resp, _ := newRigClient(r).get(t, "/game/desk-resistance/preview?phase="+phase); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("the preview without a GM session: %s, want a redirect to the login", resp.Status)
		}
		resp, body := r.get(t, "/game/desk-resistance/preview?phase="+url.QueryEscape(phase))
		for _, want := range []string{"Resolving <strong>" + rep.Rules.Title + "</strong> (" + phase + ") now would make", "Nothing has been sent or saved",
			"PMs are private", "Deadline:", `name="phase" value="` + phase + `"`, "BBCode as sent"} {
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, want) {
				t.Errorf("the preview page (%s) lacks %q", resp.Status, want)
			}
		}
		if after := r.report(t); after.Rules.Phase != phase || after.Pending != rep.Pending {
			t.Fatalf("the preview changed the game: %s, %d pending; was %s, %d", after.Rules.Phase, after.Pending, phase, rep.Pending)
		}
		if resp, _ := r.post(t, "/game/desk-resistance/do/resolve-now", url.Values{"csrf": {csrf}, "confirm": {"yes"}}); resp.StatusCode != http.StatusSeeOther || r.report(t).Rules.Phase != phase {
			t.Fatalf("a resolve-now without the phase it showed was not refused: %s, now %s", resp.Status, r.report(t).Rules.Phase)
		}
		r.post(t, "/game/desk-resistance/do/resolve-now", url.Values{"csrf": {csrf}, "confirm": {"yes"}, "phase": {phase}})
		next := r.report(t).Rules.Phase
		if next == phase {
			t.Fatalf("resolve-now for the phase shown did not resolve it")
		}
		// The same click again (a second tab, a double submit): refused.
		r.post(t, "/game/desk-resistance/do/resolve-now", url.Values{"csrf": {csrf}, "confirm": {"yes"}, "phase": {phase}})
		_, body = r.get(t, "/game/desk-resistance")
		if !strings.Contains(body, "has moved past phase "+phase+": the current phase is "+next) || r.report(t).Rules.Phase != next {
			t.Errorf("a stale resolve-now: the game is at %s (want %s), and the page does not say why it was refused", r.report(t).Rules.Phase, next)
		}
		if _, body := r.get(t, "/game/desk-resistance/preview?phase="+url.QueryEscape(phase)); !strings.Contains(body, `id="stale"`) || strings.Contains(body, "c-resolve") {
			t.Errorf("the preview of a phase the game has left offers to resolve it")
		}
	})

	t.Run("public page has no secrets", func(t *testing.T) {
		st := gameState(t, r.played).(*resistance.State)
		anon := newRigClient(r)
		resp, body := anon.get(t, "/p/desk-resistance")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("public page: %s", resp.Status)
		}
		if !strings.Contains(body, st.Seats.Display(st.Order[0])) {
			t.Error("the public page does not show the players")
		}
		for _, secret := range []string{">roles<", ">hands<", ">deck<", ">chain<", ">orders<", `"spy"`, ">spy<"} {
			if strings.Contains(body, secret) {
				t.Errorf("the public page shows %s", secret)
			}
		}
		for _, secret := range []string{"GM only", "Roles and what each player knows", "Deck, in dealing order", "Cards played by PM"} {
			if strings.Contains(body, secret) {
				t.Errorf("the public page shows %q", secret)
			}
		}
		// Who holds which plot card is public as the thread told it (the
		// rulings: "cards dealt and who received them"); the page shows a
		// card in a player's hands only when a thread post gave it to them,
		// and a hand is never shown as the state holds it.
		var thread strings.Builder
		g, err := r.M.Desk(context.Background(), r.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range g.Outbox {
			if it.Kind == "post" && it.State == store.OutboxSent {
				thread.WriteString(it.Body)
			}
		}
		doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
		held := doc.Find("#view-plot-cards table").First().Find("tbody tr")
		if held.Length() != len(st.Seats.IDs()) {
			t.Errorf("the public page lists the cards of %d players, not each of the %d", held.Length(), len(st.Seats.IDs()))
		}
		held.Each(func(_ int, row *goquery.Selection) {
			who := row.Find("th").Text()
			for _, card := range strings.Split(row.Find("td").Text(), ", ") {
				if card == "nothing" || card == resistance.DoubleVote {
					continue
				}
				if !strings.Contains(thread.String(), "gives [b]"+card+"[/b] to "+who) {
					t.Errorf("the public page shows %s holding %s, which no thread post gave them", who, card)
				}
			}
		})
		if strings.Contains(body, `name="csrf"`) || strings.Contains(body, "/do/") {
			t.Error("the public page has GM forms")
		}
	})

	t.Run("public page off by default", func(t *testing.T) {
		r2 := newRig(t, r.played)
		resp, _ := r2.get(t, "/p/desk-resistance")
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("a game not made public: %s, want 404", resp.Status)
		}
	})

	t.Run("logout", func(t *testing.T) {
		r.post(t, "/logout", url.Values{"csrf": {csrf}})
		if resp, _ := r.get(t, "/"); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("after logout: %s, want the login", resp.Status)
		}
	})
}

func TestDeskProtestMaps(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a game on the local forum")
	}
	r := newRig(t, playGame(t, "protest", 2), "desk-protest")
	r.login(t)
	_, body := r.get(t, "/game/desk-protest/maps")
	for _, want := range []string{"/game/desk-protest/map/2.svg", "/game/desk-protest/map/2-gm.svg", "/game/desk-protest/map/0.svg"} {
		if !strings.Contains(body, want) {
			t.Errorf("maps page lacks %s", want)
		}
	}
	st := gameState(t, r.played).(*protest.State)
	pub, gm, err := protest.Pictures(st, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, got := r.get(t, "/game/desk-protest/map/2-gm.svg"); got != string(gm) {
		t.Error("the GM map is not the game's GM picture")
	}

	anon := newRigClient(r)
	resp, page := anon.get(t, "/p/desk-protest")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("public page: %s", resp.Status)
	}
	revealed := map[string]bool{}
	for _, x := range st.Revealed {
		revealed[x.Hex] = true
	}
	hidden := 0
	for _, site := range st.Sites {
		if revealed[site] {
			continue
		}
		hidden++
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(site) + `\b`).MatchString(page) {
			t.Errorf("the public page names the hidden site %s", site)
		}
	}
	if hidden == 0 {
		t.Fatal("no hidden sites left to check")
	}
	if strings.Contains(page, ">sites<") || strings.Contains(page, "-gm.svg") {
		t.Error("the public page shows the sites or links a GM picture")
	}
	if resp, got := anon.get(t, "/p/desk-protest/map/2.svg"); resp.StatusCode != http.StatusOK || got != string(pub) {
		t.Errorf("public map: %s; equal to the public picture: %v", resp.Status, got == string(pub))
	}
	if resp, _ := anon.get(t, "/p/desk-protest/map/2-gm.svg"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the GM picture through the public page: %s, want 404", resp.Status)
	}
	for _, pic := range []string{"2-gm.png", "2.PNG", "02.png", "-1.png", "99.png"} {
		if resp, _ := anon.get(t, "/p/desk-protest/map/"+pic); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s through the public page: %s, want 404", pic, resp.Status)
		}
	}

	// The PNG the turn posts show with [img]: the public picture, pixel
	// for pixel, and no hidden site on it (each hidden site's centre has
	// the colour of the public picture, never the GM's mark).
	pubPNG, gmPNG, err := protest.PicturesPNG(st, 2)
	if err != nil {
		t.Fatal(err)
	}
	resp, got := anon.get(t, "/p/desk-protest/map/2.png")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" || got != string(pubPNG) {
		t.Fatalf("public PNG: %s %s; equal to the public picture: %v", resp.Status, resp.Header.Get("Content-Type"), got == string(pubPNG))
	}
	served, err := png.Decode(strings.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	gmImg, err := png.Decode(bytes.NewReader(gmPNG))
	if err != nil {
		t.Fatal(err)
	}
	for _, site := range st.Sites {
		if revealed[site] {
			continue
		}
		h, err := st.Map.Parse(site)
		if err != nil {
			t.Fatal(err)
		}
		x, y := st.Map.Center(h, 12)
		if served.At(int(x), int(y)) == gmImg.At(int(x), int(y)) {
			t.Errorf("the public PNG marks the hidden site %s as the GM picture does", site)
		}
	}
	if resp, _ := anon.get(t, "/game/desk-protest/map/2-gm.svg"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the GM picture without logging in: %s, want the login", resp.Status)
	}
}

func newRigClient(r *rig) *rig {
	c := *r
	c.c = client()
	return &c
}

func gameState(t *testing.T, p *played) rules.State {
	t.Helper()
	var row *store.Game
	if err := p.DB.View(context.Background(), func(tx *store.Tx) error { var err error; row, err = tx.Game(p.Name); return err }); err != nil {
		t.Fatal(err)
	}
	eng, _ := rules.Lookup(row.Kind)
	st, err := eng.Decode(row.State)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func jsonNum(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestLoadSecret(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	os.WriteFile(good, []byte(testSecret+"\n"), 0o600)
	open := filepath.Join(dir, "open")
	os.WriteFile(open, []byte(testSecret), 0o644)
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("hunter2"), 0o600)
	t.Setenv("DESK_TEST_SECRET", testSecret)
	t.Setenv("DESK_TEST_EMPTY", "")
	for _, c := range []struct {
		env, file, want, err string
	}{
		{file: good, want: testSecret},
		{env: "DESK_TEST_SECRET", want: testSecret},
		{env: "DESK_TEST_SECRET", file: good, want: testSecret},
		{file: open, err: "can be read by others"},
		{file: short, err: "too short"},
		{file: filepath.Join(dir, "none"), err: "no such file"},
		{env: "DESK_TEST_EMPTY", err: "set DESK_TEST_EMPTY"},
		{err: "no desk password"},
	} {
		got, err := LoadSecret(c.env, c.file)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("LoadSecret(%q, %q) error %v, want %q", c.env, c.file, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("LoadSecret(%q, %q) = %q, %v", c.env, c.file, got, err)
		}
	}
}

func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{
		"/game/x?phase=1": "/game/x?phase=1", "": "/", "//evil.example": "/", "https://evil.example/": "/", `/\evil`: "/",
	} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTreeEscapes(t *testing.T) {
	got := string(tree(map[string]any{"<b>": []any{"<script>", 1.0, map[string]any{"x": "&"}}}))
	if strings.Contains(got, "<script>") || strings.Contains(got, "<b>") || !strings.Contains(got, "&lt;script&gt;") || !strings.Contains(got, "&amp;") {
		t.Errorf("tree does not escape: %s", got)
	}
}

// TestPublicByGameFile: a game with public_url has its public page served
// without --public (its posts link pictures there); others stay off.
func TestPublicByGameFile(t *testing.T) {
	d := &Desk{cfg: Config{Public: map[string]bool{"opened": true}}}
	for _, tc := range []struct {
		rep  moderator.GameReport
		want bool
	}{
		{moderator.GameReport{Name: "closed"}, false},
		{moderator.GameReport{Name: "opened"}, true},
		{moderator.GameReport{Name: "pictured", PublicURL: "https://desk.example.org"}, true},
	} {
		if got := d.public(tc.rep); got != tc.want {
			t.Errorf("%s: public %v, want %v", tc.rep.Name, got, tc.want)
		}
	}
}

// TestDeskNationsChart: a Nations game with public_url: every [img] its
// round reports carry answers, through the public page, the chart the game
// draws for that round as image/png; a round not yet resolved, a round
// whose report is still held back (the desk's clock before its time), the
// GM's name for it and a game whose public page is not opened answer 404
// as Protest's maps do.
func TestDeskNationsChart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a game on the local forum")
	}
	const base = "https://desk.example.org"
	p := startGameWith(t, "nations", "desk-nations", func(gc *gameconfig.GameConfig) { gc.PublicURL = base })
	p.play(t, 2, false)
	r := newRig(t, p) // not opened with --public: public_url opens it
	var posts []string
	p.DB.View(context.Background(), func(tx *store.Tx) error {
		items, err := tx.Outbox(p.id)
		for _, it := range items {
			if it.Kind == forum.KindPost && it.State == store.OutboxSent {
				posts = append(posts, it.Body)
			}
		}
		return err
	})
	imgs := regexp.MustCompile(`\[img\]([^\[]+)\[/img\]`).FindAllStringSubmatch(strings.Join(posts, "\n"), -1)
	if len(imgs) != 2 {
		t.Fatalf("%d pictures in the posts, want 2 (rounds 1 and 2):\n%s", len(imgs), strings.Join(posts, "\n----\n"))
	}
	st := gameState(t, p)
	anon := newRigClient(r)
	for i, m := range imgs {
		turn := i + 1
		want := fmt.Sprintf("%s/p/desk-nations/map/%d.png", base, turn)
		if m[1] != want {
			t.Errorf("picture %d: %s, want %s", turn, m[1], want)
		}
		pics, err := nations.Game{}.Draw(st, turn)
		if err != nil {
			t.Fatal(err)
		}
		resp, got := anon.get(t, strings.TrimPrefix(m[1], base))
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("%s: %s %s", m[1], resp.Status, resp.Header.Get("Content-Type"))
		}
		if got != string(pics[1].Data) || pics[1].Format != "png" {
			t.Errorf("%s is not the game's chart after round %d", m[1], turn)
		}
		if _, err := png.Decode(strings.NewReader(got)); err != nil {
			t.Errorf("%s: %v", m[1], err)
		}
	}
	for _, path := range []string{"/p/desk-nations/map/3.png", "/p/desk-nations/map/2-gm.svg", "/p/nosuch/map/1.png"} {
		if resp, _ := anon.get(t, path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %s, want 404", path, resp.Status)
		}
	}
	// Round 2's report held for a break: its chart is not out before it.
	shown := nations.Game{}.ShownAt(st, 2)
	r.now = shown.Add(-time.Second)
	if resp, _ := anon.get(t, "/p/desk-nations/map/2.png"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("round 2's chart before its report: %s, want 404", resp.Status)
	}
	if resp, _ := anon.get(t, "/p/desk-nations/map/1.png"); resp.StatusCode != http.StatusOK {
		t.Errorf("round 1's chart during round 2's break: %s", resp.Status)
	}
	r.login(t)
	if resp, _ := r.get(t, "/game/desk-nations/map/2.svg"); resp.StatusCode != http.StatusOK {
		t.Errorf("the GM's copy of round 2's chart before its report: %s", resp.Status)
	}
	r.now = time.Now()
	if _, page := r.get(t, "/game/desk-nations/maps"); strings.Contains(page, "-gm.svg") {
		t.Error("the GM's maps page links a GM chart there is none of")
	}

	// The same game without public_url and not opened: no picture, no page.
	closed := startGameWith(t, "nations", "desk-nations-closed", nil)
	rc := newRig(t, closed)
	for _, path := range []string{"/p/desk-nations-closed/map/0.png", "/p/desk-nations-closed"} {
		if resp, _ := rc.get(t, path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s of a game not opened: %s, want 404", path, resp.Status)
		}
	}
}
