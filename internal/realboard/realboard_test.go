package realboard_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/internal/realboard"
)

// TestStart brings each board up and checks what Start promises: the
// thread page is served with the opening post, the accounts exist with
// their ids, PHP snippets run inside the board, and Stop ends the server.
func TestStart(t *testing.T) {
	for _, engine := range []string{realboard.PhpBB, realboard.MyBB} {
		t.Run(engine, func(t *testing.T) {
			b := realboard.Start(t, engine, realboard.Options{Players: []string{"Alice", "Bjørn"}})
			page := get(t, b.URL+map[string]string{
				realboard.PhpBB: "viewtopic.php?t=",
				realboard.MyBB:  "showthread.php?tid=",
			}[engine]+b.ThreadIDString())
			for _, want := range []string{"Welcome to the game", "GMBot"} {
				if !strings.Contains(page, want) {
					t.Errorf("thread page lacks %q", want)
				}
			}
			users := map[string]string{realboard.PhpBB: "SELECT user_id AS id, username AS name FROM {prefix}users WHERE user_id IN (%s)",
				realboard.MyBB: "SELECT uid AS id, username AS name FROM {prefix}users WHERE uid IN (%s)"}[engine]
			ids := b.Bot.IDString() + "," + b.Player("Alice").IDString() + "," + b.Player("Bjørn").IDString()
			rows := b.Query(t, strings.Replace(users, "%s", ids, 1))
			names := map[string]bool{}
			for _, r := range rows {
				names[r["name"].(string)] = true
			}
			if len(rows) != 3 || !names["GMBot"] || !names["Alice"] || !names["Bjørn"] {
				t.Errorf("accounts in the database: %v", rows)
			}
			if got := strings.TrimSpace(b.PHP(t, "echo 6*7;")); got != "42" {
				t.Errorf("PHP snippet printed %q", got)
			}
			b.Stop()
			if _, err := http.Get(b.URL); err == nil {
				t.Errorf("the board still answers after Stop")
			}
		})
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	return string(body)
}
