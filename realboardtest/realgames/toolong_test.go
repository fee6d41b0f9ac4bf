package realgames

import (
	"context"
	"errors"
	"fmt"
	"html"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
)

// tooLongBoard is how an engine limits a message's length: the setting
// (phpBB's config max_post_chars, posts and PMs alike; MyBB's
// maxmessagelength, posts only, a PM's limit being the 65,535 bytes of its
// database column), and the refusal's words naming the limit (from the
// engines' language files: phpBB TOO_MANY_CHARS_LIMIT, MyBB
// postdata_message_too_long).
type tooLongBoard struct {
	setting string
	said    string // with %d for the limit
	// exempt: the bot may be flood-exempt. MyBB exempts moderators from
	// maxmessagelength (inc/datahandlers/post.php verify_message), so its
	// bot is a plain member there, with the flood limits lowered instead.
	exempt bool
	// pmSetting: PMs are held to the setting too (phpBB); else pmLimit is
	// the board's fixed PM limit.
	pmSetting bool
	pmLimit   int
}

var tooLongBoards = map[string]tooLongBoard{
	realboardtest.PhpBB: {setting: "max_post_chars", said: "The maximum number of allowed characters is %d.", exempt: true, pmSetting: true},
	realboardtest.MyBB:  {setting: "maxmessagelength", said: "Please enter a message shorter than %d characters", pmLimit: 65535},
}

// TestTooLong lowers each real board's message length limit below a
// Resistance opening post (1,504 bytes for five players) and plays the
// start of the game through the moderator: the board's own refusal is read
// as too long, the limit it names is learned for the game, the opening goes
// out in parts within it, in order and each once, holding the whole text;
// the role PMs behind it go out, and the players' proposal and votes after
// it are applied (the first proposal resolves). Then PMs: on phpBB (one
// limit for posts and PMs) the limit is lowered again and a GM PM longer
// than it, queued behind nothing, is refused, cut under the new limit and
// delivered in order, while the PMs queued behind it and to another player
// still go out, and a PM short in bytes but over the limit as phpBB counts
// (after HTML-escaping: " is 6 characters) goes out in parts too; on MyBB
// (PMs held only to 65,535 bytes) the bot's PM form is sent a longer PM
// and its refusal read as too long with that limit.
func TestTooLong(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays the start of a game in real time")
	}
	for _, eng := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(eng, func(t *testing.T) {
			t.Parallel()
			tooLongGame(t, eng)
		})
	}
}

func tooLongGame(t *testing.T, engine string) {
	const limit = 1200 // under the opening post, over every role PM
	bl := tooLongBoards[engine]
	ctx := context.Background()
	g, err := rules.Lookup("resistance")
	if err != nil {
		t.Fatal(err)
	}
	demo := g.(rules.Demo).DemoTable(1)
	demo.Players = demo.Players[:5]
	b := realboardtest.Start(t, engine, realboardtest.Options{Players: demo.Players, Subject: demo.Title,
		Opening: "Sign-ups are closed. The game starts below; forumgm is your GM."})
	flood := 0.0
	switch engine {
	case realboardtest.PhpBB:
		b.Setting(t, "flood_interval", "2")
	case realboardtest.MyBB:
		// Its least post flood time (MyBB allows 1 s) and no PM flood
		// limit: the bot's dozen PMs would take half a minute at 2 s.
		b.Setting(t, "postfloodsecs", "1")
		b.Setting(t, "pmfloodsecs", "0")
		flood = 1.5
	}
	if bl.exempt {
		b.ExemptBot(t)
	}
	b.Setting(t, bl.setting, fmt.Sprint(limit))
	// Phases of three minutes: the first proposal resolves as soon as
	// every vote is in.
	gc := gameconfig.GameConfig{Players: demo.Players, Options: rules.Options{"phase_hours": 3.0 / 60}, Seed: 3, Start: time.Now().UTC()}
	tb := setup(t, b, "resistance", gc, &flood)
	t0 := time.Now()

	// The opening: refused, cut, every part on the board.
	var root store.OutboxItem
	waitFor(t, "the opening post refused as too long and all its parts sent", 90*time.Second, func() bool {
		box := tb.outbox()
		root = box[0]
		if root.State == store.OutboxFailed || root.State == store.OutboxSent {
			t.Fatalf("the opening post is %s (%s); want it refused as too long and split", root.State, root.LastError)
		}
		parts := boardtest.PartsOf(box, root.ID)
		return root.State == store.OutboxSplit && len(parts) > 0 && allSent(parts)
	})
	t.Logf("opening split after %.1fs: %s", time.Since(t0).Seconds(), root.LastError)
	if learned := tb.row().MessageLimit; learned != limit {
		t.Errorf("learned limit %d, want the board's %s = %d", learned, bl.setting, limit)
	}
	boardtest.CheckSaid(t, root.LastError, fmt.Sprintf(bl.said, limit))
	checkParts(t, tb, root, limit)

	// The game goes on: the players' proposal and votes after the split
	// opening are applied and the first proposal resolves.
	ps := newPlayers(t, b, 3*time.Second)
	pctx, cancel := context.WithCancel(ctx)
	t.Cleanup(func() { cancel(); ps.close() })
	sim := &simplayers.Table{Game: g, Seed: 3}
	send := &uniquePosts{players: ps}
	first := g.Status(tb.state()).Phase
	waitFor(t, "the first proposal resolved", 2*time.Minute, func() bool {
		if g.Status(tb.state()).Phase != first {
			return tb.drained()
		}
		if _, err := sim.Act(pctx, tb.state(), send); err != nil {
			t.Errorf("simulated players: %v", err)
		}
		return false
	})
	accepted := 0
	for _, c := range tb.commands(store.CommandFilter{}) {
		if c.Status == store.CommandAccepted {
			accepted++
		}
	}
	if accepted < len(demo.Players) {
		t.Errorf("%d commands accepted after the split opening, want at least a vote from each of %d players", accepted, len(demo.Players))
	}
	t.Logf("phase %s → %s after %.1fs; %d commands accepted", first, g.Status(tb.state()).Phase, time.Since(t0).Seconds(), accepted)
	cancel()
	for _, err := range ps.close() {
		t.Errorf("a player's move failed on the board: %v", err)
	}

	if bl.pmSetting {
		tooLongPM(t, tb, bl, 1000)
	} else {
		tooLongPMForm(t, b, bl.pmLimit)
	}
	waitFor(t, "the outbox drained", 90*time.Second, tb.drained)
	tb.stop()
	checkParts(t, tb, root, limit) // again: now with the thread's later posts
	tb.checkExactlyOnce()
	t.Logf("done in %.1fs", time.Since(t0).Seconds())
}

// tooLongPM lowers the board's limit under what the game has learned and
// queues a GM PM between the two: the board refuses it, the lower limit is
// learned, and it goes out in parts; a PM behind it in its lane waits for
// them, one to another player does not.
func tooLongPM(t *testing.T, tb *table, bl tooLongBoard, limit int) {
	b := tb.b
	b.Setting(t, bl.setting, fmt.Sprint(limit))
	learned := tb.row().MessageLimit
	var long strings.Builder
	for i := 1; long.Len() < limit; i++ {
		fmt.Fprintf(&long, "Line %02d of the GM's long word to Ann.\n", i)
	}
	if len(forum.SplitMessage(long.String(), learned)) != 1 || len(forum.WithMarker(markupOf(b.Engine), long.String(), "k")) <= limit {
		t.Fatalf("the test's PM (%d bytes) must fit the learned %d and not the board's %d", long.Len(), learned, limit)
	}
	name := strings.SplitN(tb.outbox()[0].Marker, "/", 2)[0]
	ann, ben := b.Players[0], b.Players[1]
	pm := func(to realboardtest.Account, n int, body string) store.OutboxItem {
		return store.OutboxItem{GameID: tb.g.ID, Kind: "pm", Recipient: to.Name, RecipientName: to.Name, RecipientID: to.IDString(),
			Subject: fmt.Sprintf("[%s] From the GM %d", tb.g.Name, n), Body: body, Marker: fmt.Sprintf("%s/toolong/%d", name, n)}
	}
	items := []store.OutboxItem{pm(ann, 1, long.String()), pm(ann, 2, "After the long one."), pm(ben, 3, "To Ben.")}
	if err := tb.db.Tx(context.Background(), func(tx *store.Tx) error { return tx.Save(&store.Changes{Outbox: items}) }); err != nil {
		t.Fatal(err)
	}
	var got map[int64]store.OutboxItem
	waitFor(t, "the long PM refused, split and sent, and the PMs behind it", 60*time.Second, func() bool {
		got = map[int64]store.OutboxItem{}
		for _, it := range tb.outbox() {
			got[it.ID] = it
		}
		if it := got[items[0].ID]; it.State == store.OutboxFailed || it.State == store.OutboxSent {
			t.Fatalf("the long PM is %s (%s); want it refused as too long and split", it.State, it.LastError)
		}
		parts := boardtest.PartsOf(tb.outbox(), items[0].ID)
		return got[items[0].ID].State == store.OutboxSplit && len(parts) > 0 && allSent(parts) &&
			got[items[1].ID].State == store.OutboxSent && got[items[2].ID].State == store.OutboxSent
	})
	root := got[items[0].ID]
	t.Logf("PM split: %s", root.LastError)
	if l := tb.row().MessageLimit; l != limit {
		t.Errorf("learned limit after the PM %d, want the board's new %d", l, limit)
	}
	boardtest.CheckSaid(t, root.LastError, fmt.Sprintf(bl.said, limit))
	parts := checkParts(t, tb, root, limit)
	if last, behind := parts[len(parts)-1], got[items[1].ID]; behind.SentAt.Before(last.SentAt) {
		t.Errorf("the PM behind the long one went out at %v, before its last part (%v)", behind.SentAt, last.SentAt)
	}

	// phpBB counts a message after HTML-escaping it (request_var):
	// each " is 6 characters, & 5. A PM well under the limit in bytes but
	// over it as phpBB counts goes out in parts too, not refused for good.
	var quoted strings.Builder
	for i := 1; quoted.Len() < limit*3/4; i++ {
		fmt.Fprintf(&quoted, "%02d: Ann said \"yes\" & Ben said \"no\".\n", i)
	}
	qs := []store.OutboxItem{pm(ben, 4, quoted.String())}
	if err := tb.db.Tx(context.Background(), func(tx *store.Tx) error { return tx.Save(&store.Changes{Outbox: qs}) }); err != nil {
		t.Fatal(err)
	}
	q := qs[0]
	waitFor(t, "the quoted PM sent in parts", 60*time.Second, func() bool {
		for _, it := range tb.outbox() {
			if it.ID == q.ID {
				q = it
			}
		}
		if q.State == store.OutboxFailed || q.State == store.OutboxSent {
			t.Fatalf("a %d-byte PM phpBB counts as %d characters is %s (%s); want it sent in parts", len(quoted.String()),
				len(html.EscapeString(quoted.String())), q.State, q.LastError)
		}
		parts := boardtest.PartsOf(tb.outbox(), q.ID)
		return q.State == store.OutboxSplit && len(parts) > 0 && allSent(parts)
	})
	checkParts(t, tb, q, limit)
}

// tooLongPMForm sends the bot's PM form a PM longer than the board's
// fixed PM limit: the refusal is read as too long, naming that limit.
func tooLongPMForm(t *testing.T, b *realboardtest.Board, pmLimit int) {
	c := boardtest.Connect(t, b, b.Bot)
	c.Poster.SetFlood(1500 * time.Millisecond)
	body := strings.Repeat("A long line of a very long PM to Ann.\n", pmLimit/38+10)
	ann := b.Players[0]
	_, err := poster.Patiently(context.Background(), clock.Real{}, func() (string, error) {
		return c.Poster.SendPM(context.Background(), forum.Author{Name: ann.Name, ID: ann.IDString()}, "toolong-form", "A long PM", body)
	})
	var tl *forum.TooLongError
	if !errors.As(err, &tl) {
		t.Fatalf("a %d-byte PM: %v; want the board's refusal read as too long", len(body), err)
	}
	t.Logf("a %d-byte PM: %v", len(body), tl)
	if tl.Max != pmLimit {
		t.Errorf("the PM refusal names the limit %d, want %d", tl.Max, pmLimit)
	}
}

func allSent(items []store.OutboxItem) bool {
	for _, it := range items {
		if it.State != store.OutboxSent {
			return false
		}
	}
	return true
}

// checkParts checks the parts of a split item (boardtest.CheckParts):
// posts in the thread, PMs in the recipient's inbox.
func checkParts(t *testing.T, tb *table, root store.OutboxItem, limit int) []store.OutboxItem {
	t.Helper()
	b := tb.b
	var rows []boardRow
	if root.Kind == "post" {
		rows = threadRows(t, b)
	} else {
		var id int
		fmt.Sscan(root.RecipientID, &id)
		rows = queryRows(t, b, fmt.Sprintf(boardQueries[b.Engine].userPMs, id))
	}
	return boardtest.CheckParts(t, tb.outbox(), root, limit, rows, b.Bot.ID)
}

// uniquePosts numbers the players' thread posts: MyBB refuses a member's
// post with the same text as one of theirs in the last ten minutes
// ("You have already posted this reply", newreply.php), which a simulated
// player changing a vote back would meet, and its error page is not a
// refusal the player's poster can read (it resubmits until it gives up).
type uniquePosts struct {
	*players
	mu sync.Mutex
	n  int
}

func (u *uniquePosts) Post(ctx context.Context, name, text string) error {
	u.mu.Lock()
	u.n++
	n := u.n
	u.mu.Unlock()
	return u.players.Post(ctx, name, fmt.Sprintf("%s\n\n(move %d)", text, n))
}
