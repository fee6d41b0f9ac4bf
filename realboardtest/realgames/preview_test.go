package realgames

import (
	"context"
	"errors"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
	"github.com/forumgm/forumgm/store"
)

// TestPreviewThenResolveNow is issue 18's "done when" for the safe GM
// actions, on both real boards: a Protest turn whose players sent scans by
// PM (the resolution posts the turn and PMs their results), with deadlines
// on a GM's schedule two days off, so nothing resolves by itself and the
// next turn's deadline is the same slot whenever it is computed. With the
// moderator running as `forumgm run` does:
//   - the preview of resolve-now for the turn (what `forumgm preview`
//     prints) saves and sends nothing;
//   - resolve-now for that turn queues exactly the previewed posts and PMs,
//     and the board ends up holding exactly their previewed text, each once;
//   - the same resolve-now again, now stale, is refused naming the current
//     turn, and changes nothing.
//
// Real-clock cost: the boards' start, two player PMs, and sending five
// messages (two receipts, the turn post, two results): well under a minute
// a board, the two in parallel.
func TestPreviewThenResolveNow(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a turn on real boards")
	}
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			playPreview(t, engine)
		})
	}
}

func playPreview(t *testing.T, engine string) {
	matrix.Cell(t, engine, matrix.ResolveNow)
	ctx := context.Background()
	names := []string{"Pia", "Quin", "Rob", "Sue"}
	b := realboardtest.Start(t, engine, realboardtest.Options{Players: names, Subject: "Protest, previewed"})
	b.ExemptBot(t)
	now := time.Now().UTC()
	// Every day at the minute 50 h 15 m from now, at least 48 hours: each
	// turn's deadline is that slot, about two days and two hours off (the
	// "in …" of the deadline line is in days and hours, a quarter of an
	// hour from changing).
	slot := now.Add(50*time.Hour + 15*time.Minute)
	gc := gameconfig.GameConfig{Players: names, Seed: 5, Start: now,
		Options:   map[string]any{"turn_hours": 1, "sites": 3},
		Setup:     map[string]any{"map": map[string]any{"columns": 5, "rows": 4, "layout": "odd-q"}, "sites": []any{"A1", "C2", "E4"}},
		Deadlines: &gameconfig.Deadlines{At: slot.Format("15:04"), Zone: "UTC", Minimum: "48h"}}
	zero := 0.0
	tb := setup(t, b, "protest", gc, &zero)
	name := tb.g.Name
	tb.opened()
	st := tb.eng.Status(tb.state())
	if want := slot.Truncate(time.Minute); st.Phase != "turn-1" || !st.Deadline.Equal(want) {
		t.Fatalf("the first turn: %s until %v, want turn-1 until the schedule's slot %v", st.Phase, st.Deadline, want)
	}

	ps := newPlayers(t, b, 15*time.Second)
	ps.PM(ctx, "Pia", "A 1 B2\nPROTEST C2")
	ps.PM(ctx, "Quin", "A 2 D3")
	for _, err := range ps.close() {
		t.Fatal(err)
	}
	waitFor(t, "the scans applied and their receipts sent", 60*time.Second, func() bool {
		accepted := 0
		for _, c := range tb.commands(store.CommandFilter{}) {
			if c.Status == store.CommandAccepted {
				accepted++
			}
		}
		return accepted == 3 && tb.drained()
	})
	before := tb.outbox()

	p, err := tb.m.Preview(ctx, name, "turn-1")
	if err != nil {
		t.Fatal(err)
	}
	if after := tb.outbox(); len(after) != len(before) || tb.eng.Status(tb.state()).Phase != "turn-1" {
		t.Fatalf("the preview queued %d messages or resolved the turn", len(after)-len(before))
	}
	kinds := map[forum.MessageKind]int{}
	for _, it := range p.Messages {
		kinds[it.Kind]++
	}
	if kinds[forum.KindPost] != 1 || kinds[forum.KindPM] != 2 {
		t.Fatalf("the preview holds %v, want the turn's post and Pia's and Quin's results", kinds)
	}
	if _, err := tb.m.ResolvePhase(ctx, name, p.Phase); err != nil {
		t.Fatal(err)
	}
	box := tb.outbox()
	queued := box[len(before):]
	if len(queued) != len(p.Messages) {
		t.Fatalf("the resolution queued %d messages, the preview showed %d", len(queued), len(p.Messages))
	}
	for i, it := range queued {
		pv := p.Messages[i]
		if it.Kind != pv.Kind || it.RecipientName != pv.RecipientName || it.RecipientID != pv.RecipientID || it.Subject != pv.Subject ||
			it.Body != pv.Body || it.Marker != pv.Marker || !it.NotBefore.Equal(pv.NotBefore) {
			t.Errorf("message %d: the resolution queued\n%+v\nthe preview showed\n%+v", i+1, it, pv)
		}
	}

	// Stale: the turn is resolved; the same click again is refused.
	_, err = tb.m.ResolvePhase(ctx, name, p.Phase)
	var stale *moderator.StalePhaseError
	if !errors.As(err, &stale) || !strings.Contains(err.Error(), "has moved past phase turn-1: the current phase is turn-2") {
		t.Errorf("a stale resolve-now --phase turn-1: %v", err)
	}
	if n := len(tb.outbox()); n != len(box) || tb.eng.Status(tb.state()).Phase != "turn-2" {
		t.Errorf("the refused resolve-now changed the game")
	}

	waitFor(t, "the turn's post and results sent", 60*time.Second, tb.drained)
	tb.checkExactlyOnce()
	// What the board holds is what the preview showed: each message by its
	// marker, the board's own copy (the thread's post, the recipient's PM)
	// read back to its BBCode.
	q := boardQueries[b.Engine]
	for i, it := range p.Messages {
		var rows []boardRow
		if it.Kind == "post" {
			rows = threadRows(t, b)
		} else {
			rows = queryRows(t, b, fmt.Sprintf(q.userPMs, b.Player(it.RecipientName).ID))
		}
		found := 0
		for _, r := range rows {
			if hasKey(r.Body, it.Marker) {
				found++
				// MyBB merges the bot's consecutive posts into one (with
				// [hr] between them): there the message is one of several.
				got, want := squeeze(bbcodeOf(r.Body)), squeeze(p.Sent(i))
				if len(forum.Markers(r.Body)) > 1 && strings.Contains(got, want) {
					continue
				}
				if got != want {
					t.Errorf("message %d (%s) on the board:\n%s\nthe preview:\n%s", i+1, it.Marker, bbcodeOf(r.Body), p.Sent(i))
				}
			}
		}
		if found != 1 {
			t.Errorf("message %d (%s) is on the board %d times", i+1, it.Marker, found)
		}
	}
}

func hasKey(body, key string) bool {
	for _, k := range forum.Markers(body) {
		if k == key {
			return true
		}
	}
	return false
}

var xmlTag = regexp.MustCompile(`<[^>]*>`)

// bbcodeOf is a stored body as the BBCode it was posted as: MyBB keeps the
// BBCode; phpBB keeps it inside its parsed XML (<r><B><s>[b]</s>…), whose
// tags and entities come off.
func bbcodeOf(body string) string {
	if strings.HasPrefix(body, "<r>") || strings.HasPrefix(body, "<t>") {
		body = html.UnescapeString(xmlTag.ReplaceAllString(body, ""))
	}
	return body
}

// squeeze drops white space, which boards store as they like (\r\n).
func squeeze(s string) string { return strings.Join(strings.Fields(s), "") }
