package webdesk

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/internal/htmlcheck"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestDeskTimesAndStepErrors: a game on a board whose bot account reads
// times in UTC-5 has every time on the desk in UTC-5, the zone named (as
// its posts write them), never in the server's zone; and a game whose
// steps fail shows why on the games list and its own pages, with no
// secret in it.
func TestDeskTimesAndStepErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.SQLite(t)
	board := forumtest.New(clock.Real{}) // the desk shows the game; nothing here polls the board
	m := &moderator.Moderator{DB: db, Clock: clock.Real{}, Connect: func(context.Context, *gameconfig.Site) (moderator.Forum, error) { return board, nil }}
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob", "Carol"}, Options: map[string]any{"rounds": 2, "round_minutes": 10, "break_minutes": 1}, Seed: 3, Start: start}
	fc := gameconfig.ForumConfig{URL: "http://board.example/", Engine: "mybb", Thread: "1", Bot: "GMbot", PasswordEnv: "X", TimeZone: "UTC-5"}
	g, err := m.Create(ctx, "zoned", "nations", gc, fc, []store.Player{{Slot: "Alice", ForumName: "Alice"}, {Slot: "Bob", ForumName: "Bob"}, {Slot: "Carol", ForumName: "Carol"}})
	if err != nil {
		t.Fatal(err)
	}
	failed := time.Date(2026, 3, 1, 12, 3, 4, 0, time.UTC)
	if err := db.Tx(ctx, func(tx *store.Tx) error {
		return tx.RecordStepError(g.ID, moderator.GMError(errString("scraper: logging in at http://board.example/member.php?sid=feedface: the board says: you are banned")), failed)
	}); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, &played{M: m, Name: "zoned", DB: db})
	r.now = start.Add(time.Minute)
	r.login(t)
	// The deadline: 12:10 UTC is 07:10 UTC-5; the failure 12:03:04 UTC.
	for _, path := range []string{"/", "/game/zoned", "/game/zoned/history", "/game/zoned/state"} {
		_, body := r.get(t, path)
		if err := htmlcheck.WellNested(body); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		for _, want := range []string{"Sun 1 Mar 2026, 07:10 UTC-5", "Moderation is failing:", "you are banned", "since Sun 1 Mar 2026, 07:03:04 UTC-5"} {
			if !strings.Contains(body, want) {
				t.Errorf("%s lacks %q", path, want)
			}
		}
		if path != "/" && !strings.Contains(body, "in the board's time zone, UTC-5") {
			t.Errorf("%s does not name the board's time zone", path)
		}
		// The countdown's machine-readable datetime attribute is UTC; what
		// a person reads is not.
		visible := reDatetime.ReplaceAllString(body, "")
		if strings.Contains(body, "feedface") || strings.Contains(visible, "12:10") || strings.Contains(visible, "12:03") || strings.Contains(visible, "T12:") {
			t.Errorf("%s shows a secret or a time outside the board's zone:\n%s", path, body)
		}
	}
	_, body := r.get(t, "/game/zoned/history")
	if !regexp.MustCompile(`thread post · \w{3} \d+ \w{3} \d{4}, \d\d:\d\d:\d\d UTC-5`).MatchString(body) {
		t.Error("the phase history does not write the opening post's time in the board's zone")
	}
	// Once a step succeeds, the error is gone from the desk.
	db.Tx(ctx, func(tx *store.Tx) error { return tx.ClearStepError(g.ID) })
	if _, body := r.get(t, "/"); strings.Contains(body, "Moderation is failing") {
		t.Error("the step error stays on the games list once cleared")
	}
}

var reDatetime = regexp.MustCompile(`datetime="[^"]*"`)

type errString string

func (e errString) Error() string { return string(e) }
