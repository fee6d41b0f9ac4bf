package smftest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// TestCountsAndReminders is realgames' TestCountsAndReminders on real SMF:
// a round of Nations in which Pia and Quin order by PM, Rob asks for a
// count (count 1 says who has ordered), Sue asks again inside the gap (40
// s) and is answered by count 2 once the gap since count 1 on the board has
// passed (their stamps on the board the gap apart at least), the reminder
// PMs 50 s before the deadline reach exactly Rob and Sue, once each, in
// their inboxes in SMF's database, Rob orders, the round closes at its
// deadline and the game (one round) ends, every post and PM once on the
// board. The players post and PM through SMF's own code.
//
// Real-clock cost: a two-minute round, about two and a half minutes.
func TestCountsAndReminders(t *testing.T) {
	matrix.Cell(t, realboardtest.SMF, matrix.Counts)
	matrix.Cell(t, realboardtest.SMF, matrix.Reminders)
	if testing.Short() {
		t.Skip("plays a two-minute round on the real clock")
	}
	t.Parallel()
	const (
		countGap     = 40 * time.Second
		remindBefore = 50 * time.Second
	)
	t0 := time.Now()
	names := []string{"Pia", "Quin", "Rob", "Sue"}
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: names, Subject: "Nations, counted and reminded"})
	setUpBot(t, b)
	before := gameconfig.Offsets{remindBefore.String()}
	gc := gameconfig.GameConfig{Players: names, Seed: 5, Start: time.Now().UTC(),
		Options:   rules.Options{"rounds": 1, "round_minutes": 2, "break_minutes": 0},
		Counts:    &gameconfig.Counts{Gap: countGap.String()},
		Reminders: &gameconfig.Reminders{Before: &before, Prod: "off"}}
	tl := startGame(t, b, "smf-between", "nations", gc)
	tl.waitFor("the opening post on the board", 3*time.Minute, func() bool {
		box := tl.outbox()
		return len(box) > 0 && box[0].State == store.OutboxSent
	})
	eng, _ := rules.Lookup("nations")
	deadline := eng.Status(tl.state(eng)).Deadline
	send := &sender{b: b}
	ctx := context.Background()
	act := func(who, text string, private bool) {
		t.Helper()
		var err error
		if private {
			err = send.PM(ctx, who, text)
		} else {
			err = send.Post(ctx, who, text)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	commands := func() []store.CommandRow {
		var cs []store.CommandRow
		tl.db.View(ctx, func(tx *store.Tx) error {
			var err error
			cs, err = tx.Commands(tl.g.ID, store.CommandFilter{})
			return err
		})
		return cs
	}
	cmd := func(who, kind string) *store.CommandRow {
		for _, c := range commands() {
			if c.Player == who && c.Kind == kind && c.Status == store.CommandAccepted {
				return &c
			}
		}
		return nil
	}
	sentCount := func(n int) *store.OutboxItem {
		for _, it := range tl.outbox() {
			if it.Kind == forum.KindPost && strings.Contains(it.Body, fmt.Sprintf("— count %d[/b]", n)) && it.State == store.OutboxSent {
				return &it
			}
		}
		return nil
	}
	act("Pia", "PROSPER", true)
	act("Quin", "DEFEND", true)
	tl.waitFor("Pia's and Quin's orders read", time.Minute, func() bool { return cmd("Pia", "prosper") != nil && cmd("Quin", "defend") != nil })
	act("Rob", "Where do we stand? [b]VOTECOUNT[/b]", false)
	tl.waitFor("count 1 on the board", time.Minute, func() bool { return sentCount(1) != nil })
	count1 := sentCount(1)
	act("Sue", "[b]count?[/b]", false)
	tl.waitFor("Sue's request read", time.Minute, func() bool { return cmd("Sue", "count") != nil })
	if asked := cmd("Sue", "count"); !asked.Time.Before(count1.SentAt.Add(countGap)) {
		t.Fatalf("Sue's request came %v after count 1 went out, not inside the gap: the machine is too slow for this test", asked.Time.Sub(count1.SentAt))
	}
	tl.waitFor("count 2 on the board", 2*time.Minute, func() bool { return sentCount(2) != nil })
	for who, want := range map[string]string{"Rob": "answered by count 1", "Sue": "answered by count 2"} {
		if c := cmd(who, "count"); c.Reason != want {
			t.Errorf("%s's request: %q, want %q", who, c.Reason, want)
		}
	}
	reminders := func() []store.OutboxItem {
		var out []store.OutboxItem
		for _, it := range tl.outbox() {
			if it.Kind == forum.KindPM && strings.Contains(it.Body, "a reminder") {
				out = append(out, it)
			}
		}
		return out
	}
	tl.waitFor("the reminders sent", time.Until(deadline), func() bool {
		rs := reminders()
		for _, it := range rs {
			if it.State != store.OutboxSent {
				return false
			}
		}
		return len(rs) > 0
	})
	act("Rob", "INVADE Sue", true)
	tl.waitFor("the game's end and its messages sent", 2*time.Minute+time.Until(deadline), func() bool {
		return tl.row().Status == moderator.Finished && tl.drained()
	})
	tl.stop()

	var to []string
	keys := map[string]string{}
	for _, it := range reminders() {
		to = append(to, it.RecipientName)
		keys[it.RecipientName] = it.Marker
	}
	slices.Sort(to)
	if !reflect.DeepEqual(to, []string{"Rob", "Sue"}) {
		t.Errorf("reminders to %v, want Rob and Sue", to)
	}
	for _, name := range names {
		n := 0
		q := fmt.Sprintf("SELECT pm.body FROM {prefix}personal_messages pm JOIN {prefix}pm_recipients r ON r.id_pm = pm.id_pm WHERE r.id_member = %d", b.Player(name).ID)
		for _, r := range b.Query(t, q) {
			body := fmt.Sprint(r["body"])
			for who, k := range keys {
				if forum.HasMarker(body, k) {
					n++
					if who != name {
						t.Errorf("%s's inbox holds %s's reminder", name, who)
					}
					if !strings.Contains(body, "send me your order for round 1 by PM") {
						t.Errorf("%s's reminder on the board says:\n%s", name, body)
					}
				}
			}
		}
		if want := map[bool]int{true: 1, false: 0}[keys[name] != ""]; n != want {
			t.Errorf("%s's inbox on the board holds %d reminders, want %d", name, n, want)
		}
	}

	// The counts on the board: two, the gap apart by SMF's stamps.
	rows := b.Query(t, fmt.Sprintf("SELECT poster_time AS at, body FROM {prefix}messages WHERE id_topic = %d AND id_member = %d", b.ThreadID, b.Bot.ID))
	var at []time.Time
	for _, it := range tl.outbox() {
		if it.Kind != forum.KindPost || !strings.Contains(it.Body, "— count ") {
			continue
		}
		for _, r := range rows {
			if forum.HasMarker(fmt.Sprint(r["body"]), it.Marker) {
				var unix float64 // JSON's number: 1.76463672e+09
				fmt.Sscan(fmt.Sprint(r["at"]), &unix)
				at = append(at, time.Unix(int64(unix), 0))
			}
		}
	}
	if len(at) != 2 {
		t.Fatalf("%d counts on the board, want 2", len(at))
	}
	if d := at[1].Sub(at[0]); d < countGap {
		t.Errorf("the two counts are %v apart on the board, less than the gap %v", d, countGap)
	}
	if c1 := count1.Body; !strings.Contains(c1, "Orders sent (2): Pia, Quin") || !strings.Contains(c1, "Still to send an order (2): Rob, Sue") || !strings.Contains(c1, "(asked for by Rob)") {
		t.Errorf("count 1:\n%s", c1)
	}
	tl.checkExactlyOnce()
	t.Logf("SMF: counts %v apart on the board; reminders to %v; %.0fs in all", at[1].Sub(at[0]), to, time.Since(t0).Seconds())
}
