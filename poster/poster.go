// Package poster submits the bot's posts and PMs through the board's own
// forms, on the scraper's logged-in Session: a fresh form (fresh tokens)
// for every attempt, flood control honoured through the clock, success
// confirmed by the redirect to the new post or by finding the post's
// marker, and a marker in every post and PM so a restarted bot can see
// what it already sent instead of sending it twice.
package poster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/internal/retry"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/scraper"
)

// ValidKey checks a marker key: 1–120 of A-Z a-z 0-9 . _ : / - (nothing
// BBCode or the board could rewrite). The caller chooses keys naming game,
// phase and sequence number, e.g. "g12.round-3.4".
func ValidKey(key string) error {
	if !forum.ValidMarkerKey(key) {
		return fmt.Errorf("marker key %q: want 1-120 of A-Z a-z 0-9 . _ : / -", key)
	}
	return nil
}

// MarkerLine is the short, small-print last line put in every post and PM.
func MarkerLine(key string) string { return "[size=85]" + forum.MarkerPrefix + key + "[/size]" }

// WithMarker appends the marker line to a BBCode body.
func WithMarker(body, key string) string {
	return strings.TrimRight(body, "\n ") + "\n\n" + MarkerLine(key)
}

// FindMarkers returns the marker keys in a rendered body, outside quotes
// (someone quoting the bot's post does not make it the bot's).
func FindMarkers(bodyHTML string) []string {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(bodyHTML))
	if err != nil {
		return nil
	}
	doc.Find(forum.QuoteSelector).Remove()
	return forum.Markers(doc.Text())
}

func hasMarker(bodyHTML, key string) bool {
	for _, k := range FindMarkers(bodyHTML) {
		if k == key {
			return true
		}
	}
	return false
}

// Poster posts replies and sends PMs as the session's account.
type Poster struct {
	Session *scraper.Session
	reader  *scraper.Scraper // the sent folder, for the marker check
	// FloodWait is the least time between two submissions by the bot
	// [profile flood_seconds]; set 0 for a flood-exempt account. A flood
	// error page is still honoured.
	FloodWait time.Duration
	// Attempts bounds the submissions of one post or PM [6].
	Attempts int
	// ScanPages is how many last pages of a thread PostWithMarker reads [2];
	// ScanSent how many sent PMs SentPMWithMarker opens [10].
	ScanPages int
	ScanSent  int
	// Unmarked leaves the marker line out: for accounts that are not the
	// bot (the demo's simulated players), whose posts need no exactly-once
	// check. Confirmation then rests on the board's redirect alone.
	Unmarked bool

	mu         sync.Mutex // one submission at a time (flood pacing)
	lastSubmit time.Time
}

// mark adds the marker line, unless the poster is Unmarked.
func (p *Poster) mark(body, key string) string {
	if p.Unmarked {
		return body
	}
	return WithMarker(body, key)
}

// New makes a poster on a session.
func New(s *scraper.Session) *Poster {
	return &Poster{Session: s, reader: scraper.New(s), FloodWait: time.Duration(s.Profile.FloodSeconds) * time.Second,
		Attempts: 6, ScanPages: 2, ScanSent: 10}
}

// ErrRejected: the board refused the submission for a reason retrying
// will not fix (no permission, a closed topic, an unknown recipient); the
// error text carries the board's message.
var ErrRejected = errors.New("the forum rejected the submission")

// ErrCaptcha: the form asks for a captcha the bot cannot answer (SMF's PM
// form for members with fewer than 5 posts). It is an ErrRejected too.
var ErrCaptcha = fmt.Errorf("%w: the form asks for a captcha", ErrRejected)

// Reply posts a reply to a topic with the marker key as its last line and
// returns the new post's id. It fetches the reply form afresh for every
// attempt, waits out flood control through the clock, and before every
// retry after an unclear outcome looks for the marker, so a post is never
// made twice.
func (p *Poster) Reply(ctx context.Context, topic, key, subject, body string) (string, error) {
	if err := ValidKey(key); err != nil {
		return "", err
	}
	f := p.Session.Profile.Forms.Reply
	page := forum.Expand(f.Page, map[string]string{"topic": topic})
	fields := map[string]string{f.Message: p.mark(body, key)}
	if subject != "" && f.Subject != "" {
		fields[f.Subject] = subject
	}
	check := func() (string, bool, error) { return p.PostWithMarker(ctx, topic, key) }
	return p.submit(ctx, "reply to topic "+topic, page, f, fields, check, true)
}

// SendPM sends a PM with the marker key as its last line and returns its
// id (from the sent folder). phpBB addresses the recipient by user id
// (compose&u=ID), MyBB by name (the "to" field).
func (p *Poster) SendPM(ctx context.Context, to forum.Author, key, subject, body string) (string, error) {
	if err := ValidKey(key); err != nil {
		return "", err
	}
	f := p.Session.Profile.Forms.PM
	if strings.Contains(f.Page, "{user}") && to.ID == "" {
		return "", fmt.Errorf("PM to %q: the %s profile needs the recipient's user id", to.Name, p.Session.Profile.Name)
	}
	page := forum.Expand(f.Page, map[string]string{"user": to.ID, "name": to.Name})
	if subject == "" {
		subject = "Game message"
	}
	fields := map[string]string{f.Message: p.mark(body, key), f.Subject: subject}
	if f.Recipient != "" {
		fields[f.Recipient] = to.Name
	}
	check := func() (string, bool, error) { return p.SentPMWithMarker(ctx, key) }
	return p.submit(ctx, "PM to "+to.Name, page, f, fields, check, false)
}

// submit runs the form loop shared by replies and PMs: before a resubmit
// after an unclear outcome, check for the marker; fetch a fresh form; submit
// it; judge the board's answer.
func (p *Poster) submit(ctx context.Context, what, page string, f forum.Form, fields map[string]string,
	check func() (string, bool, error), isPost bool) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	clk := p.Session.Clock()
	bo := retry.New(2*time.Second, time.Minute)
	unclear := false // a submission may have gone through: check before resubmitting
	var last error
	for attempt := 1; attempt <= max(p.Attempts, 1); attempt++ {
		if unclear {
			id, ok, err := check()
			if err != nil {
				// Whether it went through is unknown: never resubmit blind.
				return "", fmt.Errorf("%s: could not check whether it was posted: %w", what, err)
			}
			if ok {
				return id, nil
			}
			unclear = false
		}
		form, pg, err := p.freshForm(ctx, what, page, f, fields)
		if errors.Is(err, errFlooded) {
			continue
		}
		if err != nil {
			return "", err
		}
		res, err := p.Session.PostForm(ctx, form.Action, form.Values, pg.URL)
		p.lastSubmit = clk.Now()
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			last, unclear = err, true
			if err := wait(ctx, clk, bo, 0); err != nil {
				return "", err
			}
			continue
		}
		a := p.judge(res, f, check, isPost)
		switch {
		case a.id != "":
			return a.id, nil
		case a.rejected != "":
			return "", fmt.Errorf("%s: %w: %s", what, ErrRejected, a.rejected)
		case a.busy:
			if err := wait(ctx, clk, bo, a.retryAfter); err != nil {
				return "", err
			}
		case a.flood:
			if err := p.waitFlood(ctx, a.floodWait); err != nil {
				return "", err
			}
		}
		last, unclear = a.why, a.unclear
	}
	if id, ok, err := check(); err == nil && ok {
		return id, nil
	}
	return "", fmt.Errorf("%s: not confirmed after %d attempts: %w", what, p.Attempts, last)
}

// wait sleeps between submissions after a failure: the backoff's next wait
// (doubling from two seconds up to a minute), or what the board's
// Retry-After asks (at most ten minutes).
func wait(ctx context.Context, clk clock.Clock, bo *retry.Backoff, retryAfter time.Duration) error {
	d := bo.Next()
	if retryAfter > 0 {
		d = min(retryAfter, 10*time.Minute)
	}
	return clk.Sleep(ctx, d)
}

// errFlooded: the form page was a flood notice, already waited out.
var errFlooded = errors.New("flood control")

// freshForm fetches the form page and fills the form in, ready to submit
// after the board's form delay and the bot's flood pacing.
func (p *Poster) freshForm(ctx context.Context, what, page string, f forum.Form, fields map[string]string) (parser.Form, *scraper.Page, error) {
	pg, err := p.Session.Fetch(ctx, page)
	if err != nil {
		// The GET already retried with backoff: the forum is down, or
		// the page is refused. Report it; the caller retries later.
		return parser.Form{}, nil, fmt.Errorf("%s: %w", what, err)
	}
	form, err := parser.FindForm(pg.Doc, pg.URL, f.Selector)
	if err != nil {
		if flood, d := p.Session.Parser.FloodWait(pg.Doc); flood {
			if err := p.waitFlood(ctx, d); err != nil {
				return parser.Form{}, nil, err
			}
			return parser.Form{}, nil, errFlooded
		}
		return parser.Form{}, nil, fmt.Errorf("%s: %w: no form on %s (%s)", what, ErrRejected, page, boardSays(p.Session, pg))
	}
	if p.Session.Parser.Captcha(pg.Doc.Find(f.Selector).First()) {
		return parser.Form{}, nil, fmt.Errorf("%s: %w (profile selector captcha %q matched on %s): give the bot account the posts or rank the board requires, or turn the check off (SMF: pm_spam_settings)",
			what, ErrCaptcha, p.Session.Profile.Selectors.Captcha, page)
	}
	for k, v := range fields {
		form.Values.Set(k, v)
	}
	for k, v := range f.Extra {
		form.Values.Set(k, v)
	}
	if err := p.Session.FormWait(ctx); err != nil {
		return parser.Form{}, nil, err
	}
	if err := p.paceFlood(ctx); err != nil {
		return parser.Form{}, nil, err
	}
	return form, pg, nil
}

// answer is what the board's response to a submission says.
type answer struct {
	id         string        // confirmed: the new post's or PM's id
	rejected   string        // refused for good: the board's words
	busy       bool          // 429 or 5xx: back off
	retryAfter time.Duration // the board's Retry-After, if any
	flood      bool          // flood control: wait floodWait
	floodWait  time.Duration
	why        error // for another attempt: what went wrong
	unclear    bool  // it may have gone through: check the marker first
}

// judge reads the board's answer to a submission.
func (p *Poster) judge(res *scraper.Page, f forum.Form, check func() (string, bool, error), isPost bool) answer {
	if res.Status == http.StatusTooManyRequests || res.Status >= 500 {
		a := answer{busy: true, why: fmt.Errorf("%w: HTTP %d", scraper.ErrUnavailable, res.Status), unclear: true}
		if d, ok := scraper.RetryAfter(res.Header, p.Session.Clock().Now()); ok {
			a.retryAfter = max(d, time.Nanosecond)
		}
		return a
	}
	if flood, d := p.Session.Parser.FloodWait(res.Doc); flood {
		return answer{flood: true, floodWait: d, why: fmt.Errorf("flood control")}
	}
	// Success is the redirect to the new post (an HTTP redirect, or a
	// meta refresh where the board shows a message page first). A PM is
	// confirmed by its marker in the sent folder below; an unmarked one
	// has only the board's redirect to its page to go by.
	for _, u := range []string{res.Location(), parser.MetaRefresh(res.Doc)} {
		id := ""
		switch {
		case isPost:
			id = p.Session.Parser.PostIDFromURL(u)
		case p.Unmarked:
			id = p.Session.Parser.PMIDFromURL(u)
		}
		if id != "" {
			return answer{id: id}
		}
	}
	if _, err := parser.FindForm(res.Doc, res.URL, f.Selector); err == nil && res.Status == http.StatusOK {
		// The form again: a stale token, or phpBB's "new posts since
		// you started" review. Resubmit on a fresh form.
		return answer{why: fmt.Errorf("the board returned the form (%s)", boardSays(p.Session, res))}
	}
	// A message page, a redirect elsewhere: look for the marker.
	if id, ok, err := check(); err == nil && ok {
		return answer{id: id}
	}
	if t := p.Session.Parser.ErrorText(res.Doc); t != "" && res.Status < 300 {
		return answer{rejected: t}
	}
	return answer{why: fmt.Errorf("no confirmation (HTTP %d, %s)", res.Status, boardSays(p.Session, res)), unclear: true}
}

// paceFlood waits until FloodWait has passed since the last submission.
func (p *Poster) paceFlood(ctx context.Context) error {
	if p.lastSubmit.IsZero() || p.FloodWait <= 0 {
		return nil
	}
	if d := p.lastSubmit.Add(p.FloodWait).Sub(p.Session.Clock().Now()); d > 0 {
		return p.Session.Clock().Sleep(ctx, d)
	}
	return nil
}

// waitFlood waits after a flood error: what the board said, else the
// profile's interval (at least one second, so it never spins).
func (p *Poster) waitFlood(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		d = time.Duration(p.Session.Profile.FloodSeconds) * time.Second
	}
	d = max(d, time.Second)
	if p.FloodWait < d {
		// The board is stricter than we thought: remember it.
		p.FloodWait = d
	}
	return p.Session.Clock().Sleep(ctx, d)
}

func boardSays(s *scraper.Session, pg *scraper.Page) string {
	if t := s.Parser.ErrorText(pg.Doc); t != "" {
		return "board says: " + t
	}
	return fmt.Sprintf("HTTP %d", pg.Status)
}

// PostWithMarker looks for the bot's post carrying the marker key on the
// last ScanPages pages of the topic and returns its id.
func (p *Poster) PostWithMarker(ctx context.Context, topic, key string) (string, bool, error) {
	last := forum.Expand(p.Session.Profile.URLs.LastPage, map[string]string{"topic": topic})
	pg, err := p.Session.Fetch(ctx, last)
	if err != nil {
		return "", false, err
	}
	for i := 0; ; i++ {
		t := p.Session.Parser.Thread(pg.Doc)
		// Newest first: the marker is most likely near the end.
		for j := len(t.Posts) - 1; j >= 0; j-- {
			post := t.Posts[j]
			if p.mine(post.Author) && hasMarker(post.BodyHTML, key) {
				return post.ID, true, nil
			}
		}
		if i+1 >= max(p.ScanPages, 1) || t.Page <= 1 {
			return "", false, nil
		}
		pg, err = p.Session.Fetch(ctx, p.Session.Profile.ThreadPageURL(topic, t.Page-1))
		if err != nil {
			return "", false, err
		}
	}
}

// mine: posts by the bot account (a player's post quoting or copying a
// marker is not the bot's).
func (p *Poster) mine(a forum.Author) bool {
	u := p.Session.Username()
	return u == "" || strings.EqualFold(strings.TrimSpace(a.Name), strings.TrimSpace(u))
}

// SentPMWithMarker looks for a sent PM carrying the marker key among the
// newest ScanSent sent PMs and returns its id.
func (p *Poster) SentPMWithMarker(ctx context.Context, key string) (string, bool, error) {
	hs, err := p.reader.Sent(ctx)
	if err != nil {
		return "", false, err
	}
	for i, h := range hs {
		if i >= max(p.ScanSent, 1) {
			break
		}
		m, err := p.reader.ReadSentPM(ctx, h.ID)
		if err != nil {
			return "", false, err
		}
		if hasMarker(m.BodyHTML, key) {
			return h.ID, true, nil
		}
	}
	return "", false, nil
}
