package poster_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/scraper"
)

// failRT answers every reply submission with HTTP 500, the board's own
// error page, after passing it on to the board (stored) or not.
type failRT struct {
	mu     sync.Mutex
	stored bool
	posts  int
}

func (f *failRT) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "posting.php") {
		return http.DefaultTransport.RoundTrip(r)
	}
	f.mu.Lock()
	f.posts++
	f.mu.Unlock()
	if f.stored {
		res, err := http.DefaultTransport.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	body := "<!DOCTYPE html><html><head><title>General Error</title></head><body><h1>General Error</h1><p>SQL ERROR [ mysqli ]</p><p>Data too long for column 'post_subject' at row 1 [1406]</p></body></html>"
	return &http.Response{StatusCode: http.StatusInternalServerError, Status: "500 Internal Server Error", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"text/html; charset=UTF-8"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// An HTTP 500 answer to a submission (issue 44, point 3) is the board's
// refusal with its words, submitted once, never again by itself; unless
// the message's marker shows the board stored it before it failed: then it
// was sent, once.
func TestHTTP500IsARefusalAfterTheMarkerCheck(t *testing.T) {
	for _, stored := range []bool{false, true} {
		b := newBoard(t)
		if err := b.sim.SetExempt(b.bot, true); err != nil {
			t.Fatal(err)
		}
		rt := &failRT{stored: stored}
		prof, _ := forum.Builtin("phpbb")
		s, err := scraper.NewSession(b.baseURL, prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"}, scraper.Options{Clock: b.clk, Transport: rt})
		if err != nil {
			t.Fatal(err)
		}
		before := len(b.sim.Posts(b.topic))
		id, err := poster.New(s).Reply(context.Background(), b.topicStr, "m1/day-1/5", "", "The day ends.")
		after := len(b.sim.Posts(b.topic))
		switch {
		case rt.posts != 1:
			t.Errorf("stored %v: %d submissions, want 1", stored, rt.posts)
		case stored && (err != nil || id == "" || after != before+1):
			t.Errorf("stored before the 500: id %q, err %v, %d posts more; want sent, once", id, err, after-before)
		case !stored && (!errors.Is(err, poster.ErrRejected) || !strings.Contains(err.Error(), "HTTP 500") || !strings.Contains(err.Error(), "Data too long for column 'post_subject'") || after != before):
			t.Errorf("not stored: err %v, %d posts more; want refused with the board's words", err, after-before)
		}
	}
}
