package poster_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/scraper"
)

// sentFolderRT fails every read of the bot's sent and outbox folders while
// broken (the marker check after a PM), and counts the submissions.
type sentFolderRT struct {
	broken bool
	posts  int
}

func (s *sentFolderRT) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "ucp.php") && r.URL.Query().Get("mode") == "compose" {
		s.posts++
	}
	if f := r.URL.Query().Get("folder"); s.broken && r.Method == http.MethodGet && (f == "sentbox" || f == "outbox") {
		return nil, errors.New("connection reset by peer")
	}
	return http.DefaultTransport.RoundTrip(r)
}

// A PM the board took ("This message has been sent successfully.") while
// the sent-folder check fails is unconfirmed, never refused: one PM on the
// board, found by the next check.
func TestSentPageWithFailedCheckIsUnconfirmed(t *testing.T) {
	b := newBoard(t, pmSentNamesNone)
	rt := &sentFolderRT{broken: true}
	prof, _ := forum.Builtin("phpbb")
	s, err := scraper.NewSession(b.baseURL, prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"},
		scraper.Options{Clock: b.clk, Transport: rt})
	if err != nil {
		t.Fatal(err)
	}
	p := poster.New(s)
	ctx := context.Background()
	_, err = p.SendPM(ctx, forum.Author{Name: "Alice", ID: fmt.Sprint(b.alice)}, "m1.role.alice", "Your role", "You are [b]Town[/b].")
	if !errors.Is(err, forum.ErrUnconfirmed) || errors.Is(err, poster.ErrRejected) {
		t.Fatalf("err = %v, want unconfirmed and not a refusal", err)
	}
	if !strings.Contains(err.Error(), "This message has been sent successfully") {
		t.Errorf("err %q does not say what the board said", err)
	}
	if rt.posts != 1 || len(b.sim.Inbox(b.alice)) != 1 {
		t.Fatalf("%d submissions, %d PMs in Alice's inbox; want 1 and 1", rt.posts, len(b.sim.Inbox(b.alice)))
	}
	rt.broken = false
	id, ok, err := p.SentPMWithMarker(ctx, "m1.role.alice", time.Time{})
	if err != nil || !ok || id != fmt.Sprint(b.sim.Inbox(b.alice)[0].ID) {
		t.Errorf("the next check: %q %v %v", id, ok, err)
	}
}

// A message over the board's limit is refused as too long, with the limit
// the board names, after one submission (the same text is never resent).
func TestTooLongIsTypedWithTheBoardsLimit(t *testing.T) {
	for _, kind := range []string{"reply", "pm"} {
		t.Run(kind, func(t *testing.T) {
			b := newBoard(t)
			if err := b.sim.SetExempt(b.bot, true); err != nil {
				t.Fatal(err)
			}
			rt := &sentFolderRT{}
			prof, _ := forum.Builtin("phpbb")
			s, err := scraper.NewSession(b.baseURL, prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"},
				scraper.Options{Clock: b.clk, Transport: rt})
			if err != nil {
				t.Fatal(err)
			}
			p := poster.New(s)
			body := strings.Repeat("RECEIPT line accepted\n", 3200) // 70,400 characters
			before := len(b.sim.Posts(b.topic))
			if kind == "reply" {
				_, err = p.Reply(context.Background(), b.topicStr, "m1.long.1", "", body)
			} else {
				_, err = p.SendPM(context.Background(), forum.Author{Name: "Alice", ID: fmt.Sprint(b.alice)}, "m1.long.1", "Receipt", body)
			}
			var tl *forum.TooLongError
			if !errors.As(err, &tl) || tl.Max != 60000 || !errors.Is(err, poster.ErrRejected) {
				t.Fatalf("err = %v, want a TooLongError with max 60000", err)
			}
			if len(b.sim.Posts(b.topic)) != before || len(b.sim.Inbox(b.alice)) != 0 {
				t.Error("the board took the too-long message")
			}
			if kind == "pm" && rt.posts != 1 {
				t.Errorf("%d submissions, want 1", rt.posts)
			}
		})
	}
}
