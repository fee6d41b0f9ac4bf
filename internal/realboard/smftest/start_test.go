package smftest

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/internal/realboard"
)

// TestStart brings an SMF board up and checks what Start promises: the
// thread page is served with the opening post at the copy's own URL, the
// accounts exist with their ids, PHP snippets run inside the board, and
// Stop ends the server.
func TestStart(t *testing.T) {
	b := realboard.Start(t, realboard.SMF, realboard.Options{Players: []string{"Alice", "Bjørn"}})
	page := get(t, b.URL+"index.php?topic="+b.ThreadIDString()+".0")
	for _, want := range []string{"Welcome to the game", "GMBot", b.URL + "index.php?topic=" + b.ThreadIDString()} {
		if !strings.Contains(page, want) {
			t.Errorf("thread page lacks %q", want)
		}
	}
	ids := b.Bot.IDString() + "," + b.Player("Alice").IDString() + "," + b.Player("Bjørn").IDString()
	rows := b.Query(t, "SELECT id_member AS id, member_name AS name FROM {prefix}members WHERE id_member IN ("+ids+")")
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
