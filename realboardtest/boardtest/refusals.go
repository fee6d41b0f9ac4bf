//go:build linux

package boardtest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/scraper"
)

// Recorder keeps the last answer the board gave (its HTML), so a case can
// store the refusal page under testdata (FORUMGM_CAPTURE_REFUSALS=dir),
// and can spoil a form field of the next submission that has it (Spoil:
// a token as a session that ended would have it).
type Recorder struct {
	mu    sync.Mutex
	last  []byte                        // the last answer
	post  []byte                        // the first answer to a submission
	spoil func(name, value string) bool // the form field to spoil in the next POST that has it
}

func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	spoil := r.spoil
	if req.Method == http.MethodPost && spoil != nil && req.Body != nil {
		body, _ := io.ReadAll(req.Body)
		vals, err := url.ParseQuery(string(body))
		for name, vs := range vals {
			if err == nil && len(vs) == 1 && spoil(name, vs[0]) {
				vals.Set(name, "0123456789abcdef0123456789abcdef")
				body = []byte(vals.Encode())
				r.spoil = nil
			}
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
	}
	r.mu.Unlock()
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return res, err
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(b))
	r.mu.Lock()
	r.last = b
	if req.Method == http.MethodPost && r.post == nil {
		r.post = b
	}
	r.mu.Unlock()
	return res, nil
}

// capture stores the board's answer to the first submission (else its
// last answer) as a refusal page for the table test
// (poster/testdata/refusals).
func (r *Recorder) Capture(t *testing.T, engine, name string) {
	dir := os.Getenv("FORUMGM_CAPTURE_REFUSALS")
	if dir == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	page := r.post
	if page == nil {
		page = r.last
	}
	// The throwaway board's session ids, tokens and port are no part of
	// the page's meaning.
	page = hexToken.ReplaceAll(page, []byte("0123456789abcdef0123456789abcdef"))
	page = loopback.ReplaceAll(page, []byte("127.0.0.1:8080"))
	if err := os.WriteFile(filepath.Join(dir, engine+"-"+name+".html"), page, 0o644); err != nil {
		t.Error(err)
	}
}

var (
	hexToken = regexp.MustCompile(`\b[0-9a-f]{32}\b`)
	loopback = regexp.MustCompile(`127\.0\.0\.1:\d+`)
)

// ConnectRecorded is Connect through a recorder, the built-in profile
// changed by edit (as a GM's profile file would).
func ConnectRecorded(t testing.TB, b *realboardtest.Board, a realboardtest.Account, edit ...func(*forum.Profile)) (*forumconn.Conn, *Recorder) {
	t.Helper()
	prof, _ := forum.Builtin(b.Engine)
	for _, e := range edit {
		e(&prof)
	}
	rec := &Recorder{}
	c, err := forumconn.Open(b.URL, prof, forum.Credentials{Username: a.Name, Password: a.Password},
		scraper.Options{MinInterval: 20 * time.Millisecond, Retries: 2, Backoff: 200 * time.Millisecond,
			Transport: rec, Log: TestLog(t).With("account", a.Name)})
	if err != nil {
		t.Fatal(err)
	}
	return c, rec
}

// RefusalCase is one refusal a board shows a bot: how to make the board
// show it, what the send does, and what forumgm must make of it.
type RefusalCase struct {
	Name  string
	As    string                                                            // the sending account
	Setup func(t *testing.T, b *realboardtest.Board)                        // makes the board refuse
	Send  func(ctx context.Context, c *forumconn.Conn, rec *Recorder) error // the send
	// want: "rejected" (for good: forum.ErrPermanent with words), "flood"
	// (a *forum.FloodError), "said sent" (forum.ErrSaidSent: never resent),
	// "sent" (landed after the refusal passed).
	Want  string
	Words string // in the error: the board's own words
	Max   int    // at most this many requests for the send
}

// CheckRefusal runs one case and checks what the send made of the board's
// answer, and that the board's words are in it.
func CheckRefusal(t *testing.T, b *realboardtest.Board, tc RefusalCase) {
	ctx := context.Background()
	if tc.Setup != nil {
		tc.Setup(t, b)
	}
	acc := b.Bot
	if tc.As != "" {
		acc = b.Player(tc.As)
	}
	c, rec := ConnectRecorded(t, b, acc)
	if err := c.Session.Login(ctx); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	rec.post = nil // the login's
	rec.mu.Unlock()
	n0 := c.Session.Requests()
	err := tc.Send(ctx, c, rec)
	n := c.Session.Requests() - n0
	rec.Capture(t, b.Engine, tc.Name)
	t.Logf("%s: %d requests: %v", tc.Name, n, err)
	var fe *forum.FloodError
	switch tc.Want {
	case "rejected":
		if !errors.Is(err, forum.ErrPermanent) {
			t.Errorf("%s: err %v, want a refusal for good (ErrPermanent)", tc.Name, err)
		}
	case "flood":
		if !errors.As(err, &fe) {
			t.Errorf("%s: err %v, want a flood refusal", tc.Name, err)
		}
	case "said sent":
		if !errors.Is(err, forum.ErrSaidSent) || errors.Is(err, forum.ErrPermanent) {
			t.Errorf("%s: err %v, want the board's word it has the message (ErrSaidSent)", tc.Name, err)
		}
	case "sent":
		if err != nil {
			t.Errorf("%s: err %v, want it sent", tc.Name, err)
		}
	}
	if tc.Words != "" && (err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.Words))) {
		t.Errorf("%s: the error %v does not carry the board's words %q", tc.Name, err, tc.Words)
	}
	if tc.Max > 0 && n > tc.Max {
		t.Errorf("%s: %d requests, want at most %d", tc.Name, n, tc.Max)
	}
}

// Spoil makes the next submission carrying a form field that spoil
// picks go with a wrong value in it (a stale token).
func (r *Recorder) Spoil(spoil func(name, value string) bool) {
	r.mu.Lock()
	r.spoil = spoil
	r.mu.Unlock()
}
