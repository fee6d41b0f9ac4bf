package smftest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestSentFolderLimit: SMF 2.1.4 limits PM folders per membergroup
// (max_messages), but only the recipients' inboxes: the sender's sent
// copies are never dropped (Subs-Post.php sendpm). With every group
// limited to 3, the bot sends Alice 5 PMs: the first 3 arrive once and are
// confirmed in the sent folder, where the first is still found after the
// others; the 4th and 5th are refused by the board naming the full inbox
// (never in her inbox): a final refusal (profile refused_text), not a stale
// form submitted again and again.
func TestSentFolderLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: []string{"Alice"}})
	// 5 posts: no PM captcha; a plain member, so the limits apply to it.
	b.Query(t, fmt.Sprintf("UPDATE {prefix}members SET posts = 5 WHERE id_member = %d", b.Bot.ID))
	b.Query(t, "UPDATE {prefix}membergroups SET max_messages = 3")
	alice := b.Player("Alice")
	c := boardtest.Connect(t, b, b.Bot)
	since := time.Now()
	var keys []string
	var errs []error
	for i := 0; i < 5; i++ {
		key := fmt.Sprintf("sf.t/pm/%d", i)
		keys = append(keys, key)
		_, err := c.SendPM(ctx, forum.Author{Name: alice.Name, ID: alice.IDString()}, "your role", fmt.Sprintf("Message %d", i), key)
		t.Logf("PM %d: %v", i, err)
		errs = append(errs, err)
	}
	inbox := map[string]int{}
	for _, r := range b.Query(t, fmt.Sprintf("SELECT pm.body FROM {prefix}personal_messages pm JOIN {prefix}pm_recipients r ON r.id_pm = pm.id_pm WHERE r.id_member = %d", alice.ID)) {
		for _, k := range forum.Markers(fmt.Sprint(r["body"])) {
			inbox[k]++
		}
	}
	for i, k := range keys {
		want := 1
		if i >= 3 {
			want = 0
		}
		if inbox[k] != want {
			t.Errorf("PM %s in Alice's inbox %d times, want %d", k, inbox[k], want)
		}
		if (errs[i] == nil) != (want == 1) {
			t.Errorf("PM %s: %v; want sent %v", k, errs[i], want == 1)
		}
	}
	for _, err := range errs[3:] {
		// A final refusal (the moderator marks it failed for the GM), in
		// the board's words, at the first submission.
		if !errors.Is(err, forum.ErrPermanent) || !strings.Contains(err.Error(), "'Alice' as their inbox is full") {
			t.Errorf("PM to a full inbox: %v; want the board's refusal naming Alice's full inbox, final", err)
		}
	}
	if _, ok, err := c.FindSentPM(ctx, keys[0], since); !ok || err != nil {
		t.Errorf("the first PM in the sent folder after the others: %v, %v; want found (SMF drops no sent copy)", ok, err)
	}
}
