package webdesk

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/rules/protest"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/webdesk/browsertest"
)

// TestDeskInBrowser drives the desk in a real headless Chromium: log in,
// filter the audit log, pause and resume the game through the forms and
// their confirmations, and read the public page, which must name no hidden
// site. With FORUMGM_SCREENSHOTS=DIR it also saves the pages as PNGs there
// (the README's pictures: docs/screenshots).
func TestDeskInBrowser(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a game on the local forum and drives a browser")
	}
	if _, ok := browsertest.Path(); !ok && !browsertest.Required() {
		t.Skip("no Chromium on this machine (apt-get install chromium); browser tests skipped")
	}
	r := newRig(t, playGame(t, "protest", 3), "desk-protest")
	ctx := browsertest.Start(t, 3*time.Minute)
	shots := os.Getenv("FORUMGM_SCREENSHOTS")
	shot := func(name string) {
		t.Helper()
		if shots == "" {
			return
		}
		if err := browsertest.Screenshot(ctx, filepath.Join(shots, name+".png")); err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	texts := func(sel string) []string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(`+"`"+sel+"`"+`)).map(e => e.textContent.trim())`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	location := func() string {
		u, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		return u
	}

	// Log in: a GM page sends the browser to the login, and back after it.
	do("open the game", chromedp.Navigate(r.srv.URL+"/game/desk-protest"), chromedp.WaitVisible(chromedp.CSS("#password")))
	shot("login")
	do("log in", chromedp.SendKeys(chromedp.CSS("#password"), testSecret), chromedp.Click(chromedp.CSS("#login")),
		chromedp.WaitVisible(chromedp.CSS("#audit")))
	if u := location(); !strings.HasSuffix(u, "/game/desk-protest") {
		t.Fatalf("after the login the browser is at %s", u)
	}
	if cd := texts("time.countdown"); len(cd) == 0 || !strings.HasPrefix(cd[0], "in ") {
		t.Errorf("the deadline countdown reads %q", cd)
	}
	shot("audit")

	// Filter the audit log by a player.
	player := r.Board.Seats[1].Name
	do("filter", chromedp.SetValue(chromedp.CSS("#f-player"), player), chromedp.Click(chromedp.CSS("#f-apply")))
	// The old page has an audit log too: wait for the filtered one.
	waitFor(t, ctx, `location.search.includes("player=") && document.readyState === "complete" && !!document.querySelector("#audit")`)
	if u := location(); !strings.Contains(u, "player="+player) {
		t.Errorf("filtering did not go through the form: %s", u)
	}
	by := texts("td.by")
	if len(by) == 0 {
		t.Fatalf("no messages by %s after filtering", player)
	}
	for _, b := range by {
		if b != player {
			t.Errorf("filtered by %s, the log shows a message by %s", player, b)
		}
	}
	shot("audit-filtered")

	// A control: pause, confirm, and see the game paused; then resume.
	do("pause", chromedp.Click(chromedp.CSS("#c-pause")), chromedp.WaitVisible(chromedp.CSS("#question")))
	if st := r.report(t).Status; st != moderator.Running {
		t.Fatalf("the question alone changed the game: %s", st)
	}
	shot("confirm")
	do("confirm pause", chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS("#audit")))
	if st := r.report(t).Status; st != moderator.Paused {
		t.Fatalf("after confirming pause the game is %s", st)
	}
	if b := texts("h1 .badge"); len(b) == 0 || b[0] != "paused" {
		t.Errorf("the page shows the game as %q after pausing", b)
	}
	do("resume", chromedp.Click(chromedp.CSS("#c-resume")), chromedp.WaitVisible(chromedp.CSS("#question")),
		chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS("#audit")))
	if st := r.report(t).Status; st != moderator.Running {
		t.Fatalf("after resuming the game is %s", st)
	}

	// The other pages, for the README.
	for _, p := range []struct{ path, wait, name string }{
		{"/", ".card", "games"},
		{"/game/desk-protest/history", ".phase", "history"},
		{"/game/desk-protest/state", "#state", "state"},
		{"/game/desk-protest/maps", ".turn img", "maps"},
	} {
		do(p.name, chromedp.Navigate(r.srv.URL+p.path), chromedp.WaitVisible(chromedp.CSS(p.wait)))
		shot(p.name)
	}

	// A game whose steps fail says why at the top of the games list.
	var gameID int64
	if err := r.DB.View(context.Background(), func(tx *store.Tx) error {
		g, err := tx.Game("desk-protest")
		if g != nil {
			gameID = g.ID
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	failing := func(msg string) error {
		return r.DB.Tx(context.Background(), func(tx *store.Tx) error {
			if msg == "" {
				return tx.ClearStepError(gameID)
			}
			return tx.RecordStepError(gameID, msg, time.Now())
		})
	}
	if err := failing("posting the reply: the board says: You cannot make another post so soon after your last."); err != nil {
		t.Fatal(err)
	}
	do("a failing game", chromedp.Navigate(r.srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS(".card .steperror")))
	if e := texts(".card .steperror"); len(e) != 1 || !strings.Contains(e[0], "Moderation is failing: posting the reply") {
		t.Errorf("the games list shows the step error as %q", e)
	}
	shot("step-error")
	if err := failing(""); err != nil {
		t.Fatal(err)
	}

	// The public page, as a player opens it: no session, no hidden site.
	do("log out", chromedp.Navigate(r.srv.URL+"/"), chromedp.Click(chromedp.CSS(".logout button")), chromedp.WaitVisible(chromedp.CSS("#password")))
	do("public page", chromedp.Navigate(r.srv.URL+"/p/desk-protest"), chromedp.WaitVisible(chromedp.CSS("#view-map img")))
	waitFor(t, ctx, `document.querySelector("#view-map img").complete`)
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#view-map img").naturalWidth > 0`))
	if err != nil || !loaded {
		t.Errorf("the public map did not load in the browser (%v)", err)
	}
	body, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	st := gameState(t, r.played).(*protest.State)
	revealed := map[string]bool{}
	for _, x := range st.Revealed {
		revealed[x.Hex] = true
	}
	hidden := 0
	for _, site := range st.Sites {
		if !revealed[site] {
			hidden++
			if regexp.MustCompile(`\b` + regexp.QuoteMeta(site) + `\b`).MatchString(body) {
				t.Errorf("the public page shows the hidden site %s", site)
			}
		}
	}
	if hidden == 0 {
		t.Fatal("no hidden site left to look for")
	}
	if strings.Contains(body, "GM-only") || strings.Contains(body, "Log out") {
		t.Error("the public page shows GM parts")
	}
	shot("public")

	// The picture a turn post shows with [img]: the browser renders it.
	do("map picture", chromedp.Navigate(r.srv.URL+"/p/desk-protest/map/3.png"), chromedp.WaitReady(chromedp.CSS("img")))
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.images.length === 1 && document.images[0].complete && document.images[0].naturalWidth > 0`))
	if err != nil || !shown {
		t.Errorf("the public PNG of turn 3 does not show in the browser (%v)", err)
	}
}

// waitFor evaluates a predicate until it holds. Unlike chromedp.Poll it
// survives the navigation a form's submit starts (an evaluation in the
// page being left fails, and is tried again).
func waitFor(t *testing.T, ctx context.Context, js string) {
	t.Helper()
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		if err == nil && ok {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("waiting for %s: %v", js, ctx.Err())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
