package webdesk

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// TestDeskBetween: on a Resistance game played for two proposals, the GM's
// activity page and the commands as CSV, the count button (asked, then
// queued), and the public vote log: served only for a public game, every
// thread command of the game and no PM command (those only as a number),
// the counts under their phase.
func TestDeskBetween(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a game on the local forum")
	}
	p := playGame(t, "resistance", 2)
	r := newRig(t, p, "desk-resistance")
	ctx := context.Background()

	anon := newRigClient(r)
	if resp, _ := anon.get(t, "/game/desk-resistance/commands.csv"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the CSV without a session: %s, want a redirect to the login", resp.Status)
	}
	closed := newRig(t, p)
	if resp, _ := closed.get(t, "/p/desk-resistance/log"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the vote log of a game not public: %s, want 404", resp.Status)
	}

	csrf := r.login(t)
	resp, body := r.get(t, "/game/desk-resistance/activity")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Last heard from") || !strings.Contains(body, "Mission 1, proposal 1") {
		t.Errorf("the activity page: %s\n%s", resp.Status, body)
	}
	for _, pl := range []string{"Ann", "Ben", "Cat"} {
		if !strings.Contains(body, "<td>"+pl+"</td>") {
			t.Errorf("the activity page does not list %s", pl)
		}
	}

	resp, body = r.get(t, "/game/desk-resistance/commands.csv")
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") || err != nil || len(rows) < 5 || rows[0][0] != "phase" {
		t.Fatalf("the CSV: %s %v %v, %d rows", resp.Status, resp.Header, err, len(rows))
	}
	pms := 0
	for _, row := range rows[1:] {
		if row[4] == "PM" {
			pms++
		}
	}
	if pms == 0 {
		t.Errorf("the GM's CSV has no PM command:\n%s", body)
	}

	before := r.report(t).Pending
	_, confirm := r.post(t, "/game/desk-resistance/do/count", url.Values{"csrf": {csrf}})
	if !strings.Contains(confirm, "Post a count of the current phase of desk-resistance") {
		t.Fatalf("the count's question:\n%s", confirm)
	}
	resp, _ = r.post(t, "/game/desk-resistance/do/count", url.Values{"csrf": {csrf}, "confirm": {"yes"}})
	if resp.StatusCode != http.StatusSeeOther || r.report(t).Pending != before+1 {
		t.Fatalf("the count: %s, %d waiting (was %d)", resp.Status, r.report(t).Pending, before)
	}
	if err := r.M.Tick(ctx, gameID(t, p)); err != nil {
		t.Fatal(err)
	}

	resp, body = anon.get(t, "/p/desk-resistance")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `href="/p/desk-resistance/log"`) {
		t.Errorf("the public page (%s) does not link the vote log", resp.Status)
	}
	resp, body = anon.get(t, "/p/desk-resistance/log")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "desk-resistance: vote log") || !strings.Contains(body, "— count 1") {
		t.Fatalf("the vote log: %s\n%s", resp.Status, body)
	}
	var public, private int
	var cmds []store.CommandRow
	p.DB.View(ctx, func(tx *store.Tx) error {
		var err error
		cmds, err = tx.Commands(gameID(t, p), store.CommandFilter{})
		return err
	})
	for _, c := range cmds {
		switch {
		case c.Status == store.CommandIgnored || (c.Status == store.CommandSuperseded && c.Kind == ""):
		case c.Channel == string(rules.Public):
			public++
		default:
			private++
		}
	}
	if n := strings.Count(body, `<td class="when">`); n != public || public == 0 {
		t.Errorf("the vote log shows %d commands; the thread had %d", n, public)
	}
	if private == 0 || !strings.Contains(body, "by PM (private)") {
		t.Errorf("the vote log does not count the %d PM commands", private)
	}
	// A PM command's reason must not be there, unless a thread command
	// was refused for the same reason ("no team has been proposed yet"
	// answers a vote by either way): that one is the thread's to show.
	publicReasons := map[string]bool{}
	for _, c := range cmds {
		if c.Channel == string(rules.Public) {
			publicReasons[c.Reason] = true
		}
	}
	for _, c := range cmds {
		if c.Channel != string(rules.Public) && c.Reason != "" && !publicReasons[c.Reason] && strings.Contains(body, c.Reason) {
			t.Errorf("the vote log holds a PM command's reason %q", c.Reason)
		}
	}
}

func gameID(t *testing.T, p *played) int64 {
	t.Helper()
	var g *store.Game
	if err := p.DB.View(context.Background(), func(tx *store.Tx) error { var err error; g, err = tx.Game(p.Name); return err }); err != nil {
		t.Fatal(err)
	}
	return g.ID
}
