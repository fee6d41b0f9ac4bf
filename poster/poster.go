// Package poster submits the bot's posts and PMs through the board's own
// forms, on the scraper's logged-in Session: a fresh form (fresh tokens)
// for every attempt, flood control learned and honoured without ever
// waiting (a submission not yet allowed is a *forum.FloodError), success
// confirmed by the redirect to the new post or by finding the post's
// marker, and a marker in every post and PM so a restarted bot can see
// what it already sent instead of sending it twice.
package poster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/internal/gate"
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
	// Attempts bounds the submissions of one post or PM [6].
	Attempts int
	// ScanPages is how many last pages of a thread PostWithMarker reads [2];
	// SentPages how many pages of the sent folder's list SentPMWithMarker
	// reads for a marker key in a subject [10]; ScanSent how many sent PMs
	// whose subject carries no key (sent before keys went in subjects, or
	// with a key too long for one) it opens to read their marker [10].
	ScanPages int
	SentPages int
	ScanSent  int
	// Answered, when set, sees each answer the board gave a submission,
	// with the kind of form it answered (the probe checks the board's
	// success page against the profile's error mark).
	Answered func(kind forum.PageKind, res *scraper.Page)
	// Unmarked leaves the marker line out: for accounts that are not the
	// bot (the demo's simulated players), whose posts need no exactly-once
	// check. Confirmation then rests on the board's redirect alone.
	Unmarked bool

	mu    sync.Mutex // guards the fields below
	flood forum.FloodStatus
	// times: when the last submissions went, by kind (flood lane): one
	// lane for all unless the profile counts PMs' flood apart from posts'
	// (pm_flood_apart: MyBB, SMF).
	times map[string]*floodTimes
	// held: a form the board handed back with a flood refusal, kept for
	// the same message's next submission after the wait (heldForm).
	held map[string]heldForm
	// The board's cap on PMs an hour (profile pm_quota_text), learned
	// from its refusal: quota the cap (0: none known), pmTaken the PMs it
	// took in the last hour, quotaUntil and quotaWait a refusal's wait
	// when those do not tell.
	quota      int
	pmTaken    []time.Time
	quotaUntil time.Time
	quotaWait  time.Duration
	// slots: the submissions under way, one at a time unless the account
	// is flood-exempt and the profile's send_depth allows more (depth).
	slots gate.Gate
	// forms: the forms taken for a submission, by kind and the second
	// they were made (takeForm).
	forms    map[string]time.Time
	oneToken bool // the board refused a token another submission had used
	// formAt: once oneToken, when the next form of each kind may be
	// fetched (formTurn): one a second, each of its own second.
	formAt map[string]time.Time
	// lists: the sent-folder listings shared by marker checks.
	lists sentLists
	// limit caps depth while the board answers slower than the sends'
	// deadlines allow (0: no cap); cutAt is when it was last cut.
	limit int
	cutAt time.Time
}

// slowShare: a submission whose answer took more than this share of the
// time its context gave it (from its slot to the board's answer) says the
// board is slower than the submissions under way need; defaultAllow is
// that time for a context without a deadline.
const (
	slowShare    = 0.5
	defaultAllow = 15 * time.Second
)

// depth is how many submissions may be under way at once: the profile's
// send_depth for an account known flood-exempt (its form fetched while
// another waits out its form wait or is confirmed), else one, so a flood
// interval is kept and learned one submission at a time. Called with p.mu
// held.
func (p *Poster) depth() int {
	if p.flood.State == forum.FloodExempt {
		d := p.profileDepth()
		if p.limit > 0 && p.limit < d {
			d = p.limit
		}
		return d
	}
	return 1
}

// profileDepth is the profile's send_depth at the board's pace
// (Profile.Depth at the pacer's rate).
func (p *Poster) profileDepth() int {
	rps := 0.0
	if iv := p.Session.Pacer().Interval(); iv > 0 {
		rps = float64(time.Second) / float64(iv)
	}
	return p.Session.Profile.Depth(rps)
}

// answered adapts depth to the board's pace, as TCP does its window: a
// submission that began at began, in a context that allowed it allow,
// and was answered (or given up) took took. A slow one halves the
// submissions under way, once for those begun before the cut; each quick
// one lets one more go again, up to the profile's send_depth. A board
// slower than requests_per_second (a busy host, one PHP process) would
// otherwise keep every submission waiting for its turn past its deadline,
// and each would be retried, checked for, and late again.
func (p *Poster) answered(began time.Time, allow, took time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.flood.State != forum.FloodExempt {
		return
	}
	if float64(took) > slowShare*float64(allow) {
		if began.Before(p.cutAt) {
			return // under way at the last cut: counted in it
		}
		p.limit = max(p.depth()/2, 1)
		p.cutAt = p.Session.Clock().Now()
		return
	}
	if p.limit > 0 {
		if p.limit++; p.limit >= p.profileDepth() {
			p.limit = 0
		}
	}
}

// acquire waits for a submission slot (depth); release gives it back.
func (p *Poster) acquire(ctx context.Context) (release func(), err error) {
	return p.slots.Take(ctx, func() int {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.depth()
	})
}

// floodTimes is one flood lane's timing.
type floodTimes struct {
	lastSubmit time.Time // the last submission the board may have taken
	lastOK     time.Time // the last one it confirmed
	until      time.Time // a refusal's wait: nothing before it
}

// Flood lanes: one for all, or posts and PMs apart.
const (
	laneAll  = ""
	lanePost = "post"
	lanePM   = "pm"
)

// lane is the flood lane of a post (isPost) or PM.
func (p *Poster) lane(isPost bool) string {
	switch {
	case !p.Session.Profile.PMFloodApart:
		return laneAll
	case isPost:
		return lanePost
	}
	return lanePM
}

// lanes is every lane the profile has.
func (p *Poster) lanes() []string {
	if p.Session.Profile.PMFloodApart {
		return []string{lanePost, lanePM}
	}
	return []string{laneAll}
}

// timesOf is a lane's timing. Called with p.mu held.
func (p *Poster) timesOf(lane string) *floodTimes {
	if p.times == nil {
		p.times = map[string]*floodTimes{}
	}
	t := p.times[lane]
	if t == nil {
		t = &floodTimes{}
		p.times[lane] = t
	}
	return t
}

// submitted records a submission the board may have taken, made at at.
func (p *Poster) submitted(lane string, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := p.timesOf(lane); at.After(t.lastSubmit) {
		t.lastSubmit = at
	}
}

// mark adds the marker line, unless the poster is Unmarked.
func (p *Poster) mark(body, key string) string {
	if p.Unmarked {
		return body
	}
	return forum.WithMarker(p.Session.Profile.MarkerMarkup, body, key)
}

// New makes a poster on a session.
func New(s *scraper.Session) *Poster {
	p := &Poster{Session: s, reader: scraper.New(s), Attempts: 6, ScanPages: 2, SentPages: 10, ScanSent: 10,
		flood: forum.FloodStatus{State: forum.FloodUnknown}, oneToken: s.Profile.PostingLock}
	if s.Profile.AssumeFlood && s.Profile.FloodSeconds > 0 {
		// Spaced from the start (assume_flood), a second over the
		// board's whole seconds (see refused).
		p.flood = forum.FloodStatus{State: forum.FloodLimited, Interval: p.defaultFlood() + time.Second, Source: "profile"}
	}
	return p
}

// SetFlood fixes the account's flood interval as a game file gives it
// (flood_seconds): 0 or less is a flood-exempt account. The board's
// refusals still teach a longer interval.
func (p *Poster) SetFlood(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flood = forum.FloodStatus{State: forum.FloodExempt, Source: "game file"}
	if d > 0 {
		p.flood = forum.FloodStatus{State: forum.FloodLimited, Interval: d, Source: "game file"}
	}
}

// Flood is what the poster knows of the account's flood control, with the
// time the next submission may go.
func (p *Poster) Flood() forum.FloodStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.flood
	s.Depth = p.depth()
	// The latest lane's: the moderator waits for it before it sends the
	// game's next message of either kind (as with one lane).
	var next time.Time
	for _, l := range p.lanes() {
		if n := p.nextAllowed(l); n.After(next) {
			next = n
		}
	}
	if next.After(p.Session.Clock().Now()) {
		s.Next = next
	}
	return s
}

// Patiently runs send again after each flood refusal, sleeping until the
// refusal's time: for accounts with nothing else to do meanwhile (the
// demo's simulated players). The bot never waits; its moderator does other
// work and sends on a later poll.
func Patiently(ctx context.Context, clk clock.Clock, send func() (string, error)) (string, error) {
	for {
		id, err := send()
		var fe *forum.FloodError
		if !errors.As(err, &fe) {
			return id, err
		}
		if err := clk.Sleep(ctx, max(fe.Until.Sub(clk.Now()), time.Millisecond)); err != nil {
			return "", err
		}
	}
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
// attempt and before every retry after an unclear outcome looks for the
// marker, so a post is never made twice. When flood control does not allow
// it yet, it returns a *forum.FloodError at once: nothing was posted.
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
	check := func() (string, bool, error) {
		cctx, cancel := checkContext(ctx)
		defer cancel()
		return p.PostWithMarker(cctx, topic, key)
	}
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
	if to.ID == "" && p.Session.Profile.NamesAreIDs() {
		to.ID = to.Name // user_ids: names
	}
	if strings.Contains(f.Page, "{user}") && to.ID == "" {
		return "", fmt.Errorf("PM to %q: the %s profile needs the recipient's user id", to.Name, p.Session.Profile.Name)
	}
	// A name in the page's query goes in the board's charset, as a
	// browser writes it from the board's pages (scraper.Member does too).
	cs, _ := p.Session.BoardCharset()
	page := forum.Expand(f.Page, map[string]string{"user": parser.EncodeText(to.ID, cs), "name": parser.EncodeText(to.Name, cs)})
	if subject == "" {
		subject = "Game message"
	}
	if !p.Unmarked {
		subject = SubjectWithKey(subject, key, p.Session.Profile.MaxSubjectChars)
	}
	fields := map[string]string{f.Message: p.mark(body, key), f.Subject: subject}
	if f.Recipient != "" {
		fields[f.Recipient] = to.Name
	}
	queued := p.Session.Clock().Now()
	check := func() (string, bool, error) {
		cctx, cancel := checkContext(ctx)
		defer cancel()
		return p.SentPMWithMarker(cctx, key, queued)
	}
	return p.submit(ctx, "PM to "+to.Name, page, f, fields, check, false)
}

// checkLimit bounds a marker check made in a send.
const checkLimit = time.Minute

// checkContext is a send's context for its marker checks: cancelled with
// it, but not ended by its deadline (a fence's budget, which bounds when
// a submission may reach the board). A check only reads, and each one
// the send makes follows a submission the board has answered or comes
// before any resubmission, so it may outlast that budget (up to
// checkLimit) rather than leave a message the board took unconfirmed
// because the board was slow to list it.
func checkContext(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkLimit)
	stop := context.AfterFunc(ctx, func() {
		// Nor by a stop that lets what is on its way end (forum.
		// ErrStopping): the check reads an answer the board already gave.
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) && !errors.Is(context.Cause(ctx), forum.ErrStopping) {
			cancel()
		}
	})
	return c, func() { stop(); cancel() }
}

// submit runs the form loop shared by replies and PMs: before a resubmit
// after an unclear outcome, check for the marker; fetch a fresh form; submit
// it; judge the board's answer.
func (p *Poster) submit(ctx context.Context, what, page string, f forum.Form, fields map[string]string,
	check func() (string, bool, error), isPost bool) (string, error) {
	release, err := p.acquire(ctx)
	if err != nil {
		// Ended while it waited for a slot: nothing of it left.
		return "", fmt.Errorf("%s: %w: waiting for its turn: %w", what, forum.ErrNotSubmitted, err)
	}
	defer release()
	clk := p.Session.Clock()
	lane := p.lane(isPost)
	p.mu.Lock()
	n := p.nextAllowed(lane)
	p.mu.Unlock()
	if n.After(clk.Now()) {
		// Not yet: the board is not touched.
		return "", &forum.FloodError{Until: n}
	}
	if !isPost {
		p.mu.Lock()
		q := p.quotaNext(clk.Now())
		p.mu.Unlock()
		if q.After(clk.Now()) {
			return "", &forum.FloodError{Until: q, PMsOnly: true}
		}
	}
	began, allow := clk.Now(), defaultAllow
	if dl, ok := ctx.Deadline(); ok {
		allow = dl.Sub(began)
	}
	timed := false // one answer per call tells the pace
	pace := func() {
		if !timed {
			timed = true
			p.answered(began, allow, clk.Now().Sub(began))
		}
	}
	bo := retry.New(2*time.Second, time.Minute)
	unclear := false   // a submission may have gone through: check before resubmitting
	uncertain := false // some submission of this call had an unclear outcome
	var last error
	for attempt := 1; attempt <= max(p.Attempts, 1); attempt++ {
		if unclear {
			id, ok, err := check()
			if err != nil {
				// Whether it went through is unknown: never resubmit blind;
				// the caller checks again later.
				return "", fmt.Errorf("%s: %w: could not check whether it was posted: %w", what, forum.ErrUnconfirmed, err)
			}
			if ok {
				return id, nil
			}
			unclear = false
		}
		form, pg, shared, err := p.heldOrFresh(ctx, what, page, f, fields, lane)
		var fe *forum.FloodError
		if errors.As(err, &fe) {
			fe.Uncertain = uncertain
			return "", fe
		}
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				pace() // its deadline passed waiting for the form
			}
			if (ctx.Err() != nil || errors.Is(err, errNoTurn)) && !uncertain {
				// Its deadline, or a stop, came before anything of it
				// left: nothing to look for later.
				return "", fmt.Errorf("%s: %w: waiting for its form: %w", what, forum.ErrNotSubmitted, err)
			}
			return "", err
		}
		at := clk.Now()
		res, err := p.Session.PostForm(ctx, form.Action, form.Values, pg.URL)
		pace()
		if errors.Is(err, scraper.ErrNotSent) && !uncertain {
			return "", fmt.Errorf("%s: %w: %w", what, forum.ErrNotSubmitted, err)
		}
		if err != nil {
			p.submitted(lane, clk.Now()) // no answer: the board may have it until now
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			last, unclear, uncertain = err, true, true
			if err := wait(ctx, clk, bo, 0); err != nil {
				return "", err
			}
			continue
		}
		if !res.Sent.IsZero() {
			at = res.Sent // after the board's pacer: when the board got it
		}
		if p.Answered != nil {
			p.Answered(p.formKind(f), res)
		}
		a := p.judge(res, f, check, isPost, forum.ConfirmsLater(ctx) && p.Session.Profile.ConfirmLater)
		if a.formAgain && shared {
			// The token another submission had was refused: this board
			// takes one once; from now on each submission waits for a
			// form of its own.
			p.mu.Lock()
			p.oneToken = true
			p.mu.Unlock()
		}
		if a.quota {
			// Over the board's PMs an hour: not taken; this PM and the
			// next wait, posts do not.
			return "", &forum.FloodError{Until: p.quotaRefused(a.quotaCap, res.Received), PMsOnly: true, Said: a.said, Uncertain: uncertain}
		}
		if a.flood {
			// Refused, so not taken: the board's last-post time is
			// unchanged and the message is safe to send later, on the
			// form the refusal came with if it did (heldForm).
			until := p.refused(lane, a.floodWait, res.Received)
			p.hold(page, f, fields, res, until)
			return "", &forum.FloodError{Until: until, Uncertain: uncertain, Said: a.said}
		}
		// The flood interval counts from the board's answer: the board
		// took it somewhere before then (its clock read when it got to
		// it, which a busy board does late), so the next goes no sooner
		// than the interval after that (a clean-clone CI run's SMF
		// refused a post spaced from the submission's start).
		p.submitted(lane, res.Received)
		switch {
		case a.id != "":
			p.taken(lane, at)
			p.tookPM(isPost, at)
			return a.id, nil
		case a.later:
			p.taken(lane, at)
			p.tookPM(isPost, at)
			return "", fmt.Errorf("%s: %w", what, forum.ErrConfirmLater)
		case a.sent:
			// The board said it took it: never resubmitted, whatever the
			// marker check said (forum.ErrSaidSent).
			p.taken(lane, at)
			p.tookPM(isPost, at)
			return "", fmt.Errorf("%s: %w (%w): %w", what, forum.ErrUnconfirmed, forum.ErrSaidSent, a.why)
		case a.tooLong != nil:
			return "", fmt.Errorf("%s: %w: %w", what, ErrRejected, a.tooLong)
		case a.rejected != "":
			return "", fmt.Errorf("%s: %w: %s", what, ErrRejected, a.rejected)
		case a.busy:
			if err := wait(ctx, clk, bo, a.retryAfter); err != nil {
				return "", err
			}
		}
		last, unclear = a.why, a.unclear
		uncertain = uncertain || a.unclear
	}
	id, ok, err := check()
	if err == nil && ok {
		return id, nil
	}
	if err != nil && uncertain {
		// One of the submissions may have gone through and the check
		// could not tell: not a failure, to be checked again later.
		return "", fmt.Errorf("%s: %w after %d attempts (%w): the check failed: %w", what, forum.ErrUnconfirmed, p.Attempts, last, err)
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

// freshForm fetches the form page and fills the form in, ready to submit
// after the board's form delay; shared says another submission used a
// form of the same kind and second (takeForm). A flood notice instead of
// the form is a *forum.FloodError.
func (p *Poster) freshForm(ctx context.Context, what, page string, f forum.Form, fields map[string]string, lane string) (form parser.Form, pg *scraper.Page, shared bool, err error) {
	for tries := 0; ; tries++ {
		if err := p.formTurn(ctx, f); err != nil {
			return form, pg, false, err
		}
		form, pg, err = p.oneForm(ctx, what, page, f, fields, lane)
		if err != nil {
			return form, pg, false, err
		}
		ok, shared := p.takeForm(f, form)
		if ok || tries >= 3 {
			return form, pg, shared, nil
		}
		// The board takes a token once, and another submission has a
		// form of this kind made in the same second: the same token
		// (phpBB's is the user's, the form's name and its second). This
		// one waited out that second (FormWait): the next form is newer.
	}
}

// tookPM records a PM the board took, for its cap on PMs an hour.
func (p *Poster) tookPM(isPost bool, at time.Time) {
	if isPost {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pmTaken = append(p.pmTaken, at)
	p.quotaWait = 0
	p.prunePMs(at)
}

// prunePMs drops PMs taken more than an hour before now (and keeps at
// most a few hundred). Called with p.mu held.
func (p *Poster) prunePMs(now time.Time) {
	i := 0
	for i < len(p.pmTaken) && now.Sub(p.pmTaken[i]) > time.Hour {
		i++
	}
	if len(p.pmTaken)-i > 500 {
		i = len(p.pmTaken) - 500
	}
	p.pmTaken = p.pmTaken[i:]
}

// quotaNext is when the board's cap on PMs an hour lets the next PM go
// (zero: now): once the oldest of the last quota PMs is an hour old (and
// a second, the board's whole seconds), or a refusal's wait. Called with
// p.mu held.
func (p *Poster) quotaNext(now time.Time) time.Time {
	n := p.quotaUntil
	if p.quota <= 0 {
		return n
	}
	p.prunePMs(now)
	if k := len(p.pmTaken); k >= p.quota {
		if t := p.pmTaken[k-p.quota].Add(time.Hour + time.Second); t.After(n) {
			n = t
		}
	}
	return n
}

// quotaRefused learns from the board's refusal of a PM over its cap on
// PMs an hour (limit: what it names, 0 none) and returns when to try
// again: when the PMs the bot sent age out, or, where they do not tell
// (sent before it started, or by another client), after a wait doubling
// from five minutes to an hour.
func (p *Poster) quotaRefused(limit int, at time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if limit > 0 {
		p.quota = limit
	} else if p.quota == 0 {
		p.quota = max(len(p.pmTaken), 1)
	}
	p.quotaUntil = time.Time{}
	if n := p.quotaNext(at); n.After(at) {
		p.quotaUntil = n
		return n
	}
	p.quotaWait = min(max(2*p.quotaWait, 5*time.Minute), time.Hour)
	p.quotaUntil = at.Add(p.quotaWait)
	return p.quotaUntil
}

// heldForm is a form the board handed back with a flood refusal (MyBB
// shows the form again, its key the session's): the same message's next
// submission, after the wait, goes on it, with no new fetch: three
// requests for a send refused once (form, refused submission, submission)
// instead of four.
type heldForm struct {
	form parser.Form
	pg   *scraper.Page
	at   time.Time
}

// heldKeep is how long a held form is used: well within a session, on a
// board whose forms carry no time of their own.
const heldKeep = 10 * time.Minute

func heldKey(page string, f forum.Form, fields map[string]string) string {
	return page + "\x00" + fields[f.Message]
}

// hold keeps the form a flood refusal came with, for the same message:
// the retry is its submission alone (MyBB and phpBB hand the form back
// with the refusal; phpBB's, made as it refused, has a token and a
// creation time of its own, and a refused submission took no posting
// lock).
func (p *Poster) hold(page string, f forum.Form, fields map[string]string, res *scraper.Page, until time.Time) {
	if res.Status != http.StatusOK || until.Sub(res.Received) > heldKeep {
		return
	}
	form, err := parser.FindForm(res.Doc, res.URL, f.Selector)
	if err != nil {
		return
	}
	now := p.Session.Clock().Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == nil {
		p.held = map[string]heldForm{}
	}
	for k, h := range p.held {
		if now.Sub(h.at) > heldKeep {
			delete(p.held, k)
		}
	}
	p.held[heldKey(page, f, fields)] = heldForm{form: form, pg: res, at: now}
}

// heldOrFresh is the form a flood refusal of this message came with, if
// one is held and young enough, filled in again; else a fresh one. A held
// form the board no longer takes (a new session) is refused as stale and
// the next attempt fetches one.
func (p *Poster) heldOrFresh(ctx context.Context, what, page string, f forum.Form, fields map[string]string, lane string) (parser.Form, *scraper.Page, bool, error) {
	key := heldKey(page, f, fields)
	p.mu.Lock()
	h, ok := p.held[key]
	delete(p.held, key)
	p.mu.Unlock()
	if !ok || p.Session.Clock().Now().Sub(h.at) > heldKeep {
		return p.freshForm(ctx, what, page, f, fields, lane)
	}
	form := h.form
	form.Values = url.Values{}
	for k, v := range h.form.Values {
		form.Values[k] = append([]string(nil), v...)
	}
	for k, v := range fields {
		form.Values.Set(k, v)
	}
	for k, v := range f.Extra {
		form.Values.Set(k, v)
	}
	if ok, shared := p.takeForm(f, form); ok {
		return form, h.pg, shared, nil
	}
	// Another submission has a form of the same second (a board that
	// takes a token once): a fresh one.
	return p.freshForm(ctx, what, page, f, fields, lane)
}

// takeForm notes a form by its kind and creation second (the profile's
// form_time_field) for a submission, and says whether another had one of
// the same (shared). Once the board has refused a shared one (oneToken),
// a form another has is not taken (ok false). phpBB 3.3.10 takes a token
// again within its lifetime (check_form_key); forumsim, as a posting lock
// would, once.
func (p *Poster) takeForm(f forum.Form, form parser.Form) (ok, shared bool) {
	field := p.Session.Profile.FormTimeField
	made := form.Values.Get(field)
	if field == "" || made == "" {
		return true, false
	}
	key := f.Page + "@" + made
	now := p.Session.Clock().Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, taken := p.forms[key]; taken {
		return !p.oneToken, true
	}
	if p.forms == nil {
		p.forms = map[string]time.Time{}
	}
	for k, at := range p.forms {
		if now.Sub(at) > formKeep {
			delete(p.forms, k)
		}
	}
	p.forms[key] = now
	return true, false
}

// formTurn waits, on a board that takes a form's token once (oneToken),
// until no other form of f's kind was fetched in the last second, and
// takes the turn: the board makes one token a second for a kind, so a
// form fetched in a second another has is refused when submitted, and
// fetched again (at 200 games, 70 requests for each post that landed).
// One form a second is the board's own pace for the account. A turn that
// would come after ctx's deadline is not taken: the send ends
// unsubmitted, its slot left to another.
func (p *Poster) formTurn(ctx context.Context, f forum.Form) error {
	clk := p.Session.Clock()
	p.mu.Lock()
	if !p.oneToken {
		p.mu.Unlock()
		return nil
	}
	now := clk.Now()
	at := now
	if next := p.formAt[f.Page]; next.After(at) {
		at = next
	}
	if dl, ok := ctx.Deadline(); ok && at.After(dl) {
		p.mu.Unlock()
		return errNoTurn
	}
	if p.formAt == nil {
		p.formAt = map[string]time.Time{}
	}
	p.formAt[f.Page] = at.Add(time.Second)
	p.mu.Unlock()
	if wait := at.Sub(now); wait > 0 {
		if err := clk.Sleep(ctx, wait); err != nil {
			return fmt.Errorf("waiting for its turn for a form: %w", err)
		}
	}
	return nil
}

// errNoTurn: a send's turn for a form would come after its deadline.
var errNoTurn = errors.New("its turn for a form (one a second on this board) comes after its deadline")

// formKeep is how long a form's second stays taken: longer than a phpBB
// token lives (form_token_lifetime, 2 hours by default).
const formKeep = 3 * time.Hour

// oneForm is one fetch of the form page, filled in and waited for.
func (p *Poster) oneForm(ctx context.Context, what, page string, f forum.Form, fields map[string]string, lane string) (parser.Form, *scraper.Page, error) {
	pg, err := p.Session.FetchAs(ctx, page, p.formKind(f))
	if err != nil {
		// The GET already retried with backoff: the forum is down, or
		// the page is refused. Report it; the caller retries later.
		return parser.Form{}, nil, fmt.Errorf("%s: %w", what, err)
	}
	form, err := parser.FindForm(pg.Doc, pg.URL, f.Selector)
	if err != nil {
		said := p.Session.Parser.ErrorTextOn(p.formKind(f), pg.Doc)
		if flood, d := p.Session.Parser.FloodWait(pg.Doc); flood {
			return parser.Form{}, nil, &forum.FloodError{Until: p.refused(lane, d, pg.Received), Said: said}
		}
		if q, n := p.Session.Profile.SaysPMQuota(said); q && lane != lanePost {
			// SMF says so on the PM form's page already.
			return parser.Form{}, nil, &forum.FloodError{Until: p.quotaRefused(n, pg.Received), PMsOnly: true, Said: said}
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
	if err := p.fitBytes(what, f, form, pg); err != nil {
		return parser.Form{}, nil, err
	}
	if err := p.Session.FormWait(ctx, pg, form.Values); err != nil {
		return parser.Form{}, nil, err
	}
	return form, pg, nil
}

// formKind is the kind of page a form's page is, for its marks.
func (p *Poster) formKind(f forum.Form) forum.PageKind {
	if f.Page == p.Session.Profile.Forms.Reply.Page {
		return forum.PagePostForm
	}
	return forum.PagePMForm
}

// fitBytes holds a filled form to the profile's limits in bytes of the
// charset it will go out in (each character the charset lacks as its
// numeric reference, as the board stores it): the subject is shortened
// to max_subject_bytes, keeping a PM's marker key at its end; a message
// over max_message_bytes (max_pm_bytes) is refused before it is sent, as
// the board would refuse it, naming a limit in the units the message is
// cut by, so it goes out in parts that fit. A board that keeps a
// subject in a 64-byte column answered a longer one with HTTP 500.
func (p *Poster) fitBytes(what string, f forum.Form, form parser.Form, pg *scraper.Page) error {
	prof := p.Session.Profile
	cs := p.Session.SubmitCharset(pg.URL, form.Action)
	if max := prof.MaxSubjectBytes; max > 0 && f.Subject != "" {
		if subj := form.Values.Get(f.Subject); subj != "" {
			form.Values.Set(f.Subject, FitSubject(subj, max, cs))
		}
	}
	limit := prof.MaxMessageBytes
	if pm := prof.MaxPMBytes; p.formKind(f) == forum.PagePMForm && pm > 0 && (limit <= 0 || pm < limit) {
		limit = pm
	}
	msg := form.Values.Get(f.Message)
	if limit <= 0 || msg == "" || cs == parser.UTF8 {
		// In UTF-8 the message was cut to the limit when it was queued.
		return nil
	}
	n := forum.MessageSize(parser.EncodeText(msg, cs))
	if n <= limit {
		return nil
	}
	// The limit as forum.MessageSize counts the text (the moderator cuts
	// by it), scaled by how much longer the charset makes it.
	scaled := int(int64(limit) * int64(forum.MessageSize(msg)) / int64(n))
	return fmt.Errorf("%s: %w: %w", what, ErrRejected, &forum.TooLongError{Max: scaled,
		Said: fmt.Sprintf("not sent: %d bytes in %s, over the profile's limit of %d bytes", n, cs, limit)})
}

// FitSubject shortens subject to at most max bytes in the charset cs (as
// parser.EncodeText writes it), keeping a marker key at its end
// (SubjectWithKey) whole, ending what was cut with "…" (or "..." where
// the charset lacks it).
func FitSubject(subject string, max int, cs string) string {
	size := func(s string) int { return len(parser.EncodeText(s, cs)) }
	if size(subject) <= max {
		return subject
	}
	head, tail := subject, ""
	if k := SubjectKey(subject); k != "" {
		i := strings.LastIndex(subject, " #")
		head, tail = subject[:i], subject[i:]
	}
	ell := "…"
	if size(ell) > len("...") {
		ell = "..."
	}
	r := []rune(head)
	for len(r) > 0 {
		r = r[:len(r)-1]
		if s := strings.TrimSpace(string(r)) + ell + tail; size(s) <= max {
			return s
		}
	}
	if size(tail) <= max {
		return strings.TrimSpace(tail)
	}
	return subject // no room for the key: the board cuts it, and the PM is opened to confirm it
}

// answer is what the board's response to a submission says.
type answer struct {
	id         string        // confirmed: the new post's or PM's id
	rejected   string        // refused for good: the board's words
	busy       bool          // 429 or 5xx: back off
	retryAfter time.Duration // the board's Retry-After, if any
	flood      bool          // flood control: floodWait says how long
	floodWait  parser.FloodNotice
	why        error // for another attempt: what went wrong
	unclear    bool  // it may have gone through: check the marker first
	formAgain  bool  // the form again: not taken (a stale or used token)
	// sent: the board's success page, but the marker check did not
	// confirm it (why says how): taken, not confirmed.
	sent bool
	// later: the board's success, naming no id, under
	// forum.ConfirmLater: its marker is looked for later.
	later   bool
	tooLong *forum.TooLongError // refused as too long
	// quota: over the board's PMs an hour, quotaCap the cap it names.
	quota    bool
	quotaCap int
	said     string // the board's words (flood, quota)
}

// judge reads the board's answer to a submission.
func (p *Poster) judge(res *scraper.Page, f forum.Form, check func() (string, bool, error), isPost, later bool) answer {
	if res.Status == http.StatusInternalServerError {
		return p.failed(res, f, check)
	}
	if res.Status == http.StatusTooManyRequests || res.Status >= 500 {
		a := answer{busy: true, why: fmt.Errorf("%w: HTTP %d", scraper.ErrUnavailable, res.Status), unclear: true}
		if d, ok := scraper.RetryAfter(res.Header, p.Session.Clock().Now()); ok {
			a.retryAfter = max(d, time.Nanosecond)
		}
		return a
	}
	if closed, said := p.Session.Parser.Closed(res.Doc); closed {
		// Closed for maintenance as it came in: away, like a 503, and
		// whether it was taken is for the marker check once it reopens.
		return answer{busy: true, why: fmt.Errorf("%w (board says: %s)", scraper.ErrClosed, said), unclear: true}
	}
	if flood, d := p.Session.Parser.FloodWait(res.Doc); flood {
		return answer{flood: true, floodWait: d, why: fmt.Errorf("flood control"), said: p.Session.Parser.ErrorTextOn(p.formKind(f), res.Doc)}
	}
	// Success is the redirect to the new post or PM (an HTTP redirect, or
	// a meta refresh where the board shows a message page first: phpBB's
	// "This message has been sent successfully" refreshes to the new PM,
	// ucp_pm_compose.php). Where the board names no new PM (MyBB, SMF),
	// its marker is looked for in the sent folder below, or later.
	for _, u := range []string{res.Location(), parser.MetaRefresh(res.Doc)} {
		id := ""
		if isPost {
			id = p.Session.Parser.PostIDFromURL(u)
		} else {
			id = p.Session.Parser.PMIDFromURL(u)
		}
		if id != "" {
			return answer{id: id}
		}
	}
	boxes := p.Session.Parser.ErrorTextOn(p.formKind(f), res.Doc)
	if q, n := p.Session.Profile.SaysPMQuota(boxes); q && !isPost {
		return answer{quota: true, quotaCap: n, said: boxes}
	}
	if tl, max := p.Session.Profile.TooLong(boxes); tl && res.Status < 300 {
		// Shown on the form again (phpBB): the same text is refused
		// however often it is resubmitted.
		return answer{tooLong: &forum.TooLongError{Max: max, Said: boxes}}
	}
	if res.Status < 300 && p.Session.Profile.SaysRefused(boxes) {
		// Refused for good, with the form (a recipient's full inbox) or
		// on an error page (a locked topic, no permission): not taken,
		// so no marker to look for.
		return answer{rejected: boxes}
	}
	if res.Status < 300 && p.Session.Profile.SaysStale(boxes) {
		// The form's token or session ended: not taken; a fresh form.
		return answer{why: fmt.Errorf("the board refused the form as stale (%s)", boardSays(p.Session, res)), formAgain: true}
	}
	if _, err := parser.FindForm(res.Doc, res.URL, f.Selector); err == nil && res.Status == http.StatusOK {
		// The form again: a stale token, or phpBB's "new posts since
		// you started" review. Resubmit on a fresh form.
		return answer{why: fmt.Errorf("the board returned the form (%s)", boardSays(p.Session, res)), formAgain: true}
	}
	if later {
		// The board's success, naming no id, for a message the sender
		// confirms later with others (forum.ConfirmLater): no look for
		// its marker now.
		said := boxes
		if said == "" && res.Doc != nil {
			said = res.Doc.Text()
		}
		if p.Session.Profile.SentAt(res.Location()) || (res.Status < 300 && p.Session.Profile.SaysSent(said)) {
			return answer{later: true}
		}
	}
	// A message page, a redirect elsewhere: look for the marker. When
	// the check cannot tell (an incomplete page, the board failing), the
	// outcome stays unclear: never read as a refusal.
	id, ok, cerr := check()
	if cerr == nil && ok {
		return answer{id: id}
	}
	// The board's own success page is never a refusal, though its
	// message box is where refusals are shown too.
	said := boxes
	if said == "" {
		said = res.Doc.Text() // a redirect page without a message box (MyBB)
	}
	if res.Status < 300 && p.Session.Profile.SaysSent(said) {
		why := fmt.Errorf("the board said it was sent (%s), but its marker was not found", boardSays(p.Session, res))
		if cerr != nil {
			why = fmt.Errorf("the board said it was sent (%s), but the marker check failed: %w", boardSays(p.Session, res), cerr)
		}
		return answer{sent: true, why: why}
	}
	if cerr != nil {
		return answer{why: fmt.Errorf("no confirmation (HTTP %d), and the check failed: %w", res.Status, cerr), unclear: true}
	}
	if boxes != "" && res.Status < 300 {
		return answer{rejected: boxes}
	}
	return answer{why: fmt.Errorf("no confirmation (HTTP %d, %s)", res.Status, boardSays(p.Session, res)), unclear: true}
}

// failed reads an HTTP 500 answer to a submission: the board's own code
// failed on it (a subject too long for its database column, a bad
// character), and the same text fails again, so it is a refusal recorded
// with the board's words, never resubmitted as it is. The failure may
// have come after the board stored the message, so its marker is looked
// for first, as after a lost answer: found, it was sent; a check that
// cannot tell leaves it unconfirmed (checked again before anything else).
func (p *Poster) failed(res *scraper.Page, f forum.Form, check func() (string, bool, error)) answer {
	said := p.Session.Parser.ErrorTextOn(p.formKind(f), res.Doc)
	if said == "" && res.Doc != nil {
		said = pageWords(res.Doc)
	}
	if r := []rune(said); len(r) > 300 {
		said = string(r[:300]) + "…"
	}
	id, ok, err := check()
	switch {
	case err == nil && ok:
		return answer{id: id}
	case err != nil:
		return answer{why: fmt.Errorf("HTTP 500 (%s), and the marker check failed: %w", said, err), unclear: true}
	}
	if said == "" {
		said = "no text"
	}
	return answer{rejected: "HTTP 500, the board's own error: " + said}
}

// pageWords is the visible text of a page without a box the profile
// names: its body's text nodes, one space between them.
func pageWords(doc *goquery.Document) string {
	var words []string
	doc.Find("body").Contents().Each(func(_ int, s *goquery.Selection) {
		var rec func(n *html.Node)
		rec = func(n *html.Node) {
			if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style") {
				return
			}
			if n.Type == html.TextNode {
				words = append(words, strings.Fields(n.Data)...)
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				rec(c)
			}
		}
		for _, n := range s.Nodes {
			rec(n)
		}
	})
	return strings.Join(words, " ")
}

// nextAllowed is when flood control lets the next submission go: after
// a refusal's wait, and for a limited account its interval after the last
// submission the board may have taken.
func (p *Poster) nextAllowed(lane string) time.Time {
	lt := p.timesOf(lane)
	n := lt.until
	if p.flood.State == forum.FloodLimited && !lt.lastSubmit.IsZero() {
		if t := lt.lastSubmit.Add(p.flood.Interval); t.After(n) {
			n = t
		}
	}
	return n
}

// maxFloodSpan: a message the bot sent longer ago than this is not what a
// refusal counts from (no board's flood limit is that long); another client
// of the account must have posted since.
const maxFloodSpan = 10 * time.Minute

// defaultFlood is the board's usual interval: the profile's flood_seconds.
func (p *Poster) defaultFlood() time.Duration {
	return time.Duration(p.Session.Profile.FloodSeconds) * time.Second
}

// refused learns from a flood refusal: the account is not exempt. A board
// that names its interval is waited that long; one that names the seconds
// left (MyBB) counts them from the last message it took, so its interval
// is from that one (sent at lastOK) to the wait's end, asked being when the
// board's refusal was in: from the first request's start to the second's
// answer, an interval never learned short however slowly the board took
// either (it may be long by their round trips); one that names neither is
// waited the profile's
// interval. At least a second, so a refusal never spins; the interval only
// grows. It returns when to try again.
func (p *Poster) refused(lane string, n parser.FloodNotice, asked time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	lt := p.timesOf(lane)
	var d, interval time.Duration
	switch since := asked.Sub(lt.lastOK); {
	case n.Interval > 0:
		// The board's whole interval, in its whole seconds: it forgets
		// the last one only once more than that has passed (SMF deletes
		// its flood log's rows older than the wait, then refuses): a
		// second more, or the try at the end is refused too.
		d = n.Interval + time.Second
		interval = d
	case n.Left > 0:
		d = n.Left
		if !lt.lastOK.IsZero() && since >= 0 && since < maxFloodSpan {
			interval = since + n.Left
		} else {
			// What it counts from is not known (a message sent before
			// this poster began): the seconds left are only a floor. The
			// profile's interval, and a second more (MyBB refuses at the
			// interval itself: TIME_NOW - lastpost <= postfloodsecs), or
			// the next one is refused too.
			interval = max(n.Left, p.defaultFlood()+time.Second)
		}
	default:
		d = p.defaultFlood()
		interval = d
	}
	d = max(d, time.Second)
	interval = max(interval, d)
	if p.flood.State == forum.FloodLimited {
		interval = max(interval, p.flood.Interval)
	}
	now := p.Session.Clock().Now()
	p.flood = forum.FloodStatus{State: forum.FloodLimited, Interval: interval, Source: "refused", Learned: now}
	lt.until = now.Add(d)
	return lt.until
}

// taken learns from a submission the board confirmed: taken sooner after
// the previous one than the interval it would enforce (the one learned, or
// the profile's), the account is exempt. A configured or learned limit is
// never tried sooner, so only an unknown account learns this way; and
// only from two of one lane (MyBB takes a PM right after a post from an
// account it limits: it counts them apart).
func (p *Poster) taken(lane string, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	lt := p.timesOf(lane)
	prev := lt.lastOK
	if at.Before(prev) {
		return // confirmed after a later one (several under way)
	}
	lt.lastOK = at
	if p.flood.State != forum.FloodUnknown || prev.IsZero() {
		return
	}
	if at.Sub(prev) < p.defaultFlood() {
		p.flood = forum.FloodStatus{State: forum.FloodExempt, Source: "taken back-to-back", Learned: at}
	}
}

func boardSays(s *scraper.Session, pg *scraper.Page) string {
	if t := s.Parser.ErrorText(pg.Doc); t != "" {
		return "board says: " + t
	}
	return fmt.Sprintf("HTTP %d", pg.Status)
}

// ErrIncomplete: a page the marker check read came cut short (no footer,
// no closing </html>), so the marker's absence there proves nothing.
// Whether the submission went through is unknown: it is never resubmitted
// on such a page, and the check is made again later.
var ErrIncomplete = scraper.ErrIncomplete

// PostWithMarker looks for the bot's post carrying the marker key on the
// last ScanPages pages of the topic and returns its id. A marker found is
// proof wherever it is; its absence counts only when every page read was
// complete (parser.Complete): an incomplete page is read again, up to
// three times, then the answer is ErrIncomplete.
func (p *Poster) PostWithMarker(ctx context.Context, topic, key string) (string, bool, error) {
	page := forum.Expand(p.Session.Profile.URLs.LastPage, map[string]string{"topic": topic})
	for i := 0; ; i++ {
		var t parser.Thread
		for read := 1; ; read++ {
			pg, err := p.Session.FetchAs(ctx, page, forum.PageThread)
			if err != nil {
				return "", false, err
			}
			t = p.Session.Parser.Thread(pg.Doc)
			// Newest first: the marker is most likely near the end.
			for j := len(t.Posts) - 1; j >= 0; j-- {
				post := t.Posts[j]
				if p.mine(post.Author) && hasMarker(post.BodyHTML, key) {
					return post.ID, true, nil
				}
			}
			if p.Session.Parser.CompleteOn(forum.PageThread, pg.Body, pg.Doc) {
				break
			}
			if read == 3 {
				return "", false, fmt.Errorf("marker %s in topic %s: %w (%s, read %d times)", key, topic, ErrIncomplete, pg.URL, read)
			}
		}
		if i+1 >= max(p.ScanPages, 1) || t.Page <= 1 {
			return "", false, nil
		}
		page = p.Session.Profile.ThreadPageURL(topic, t.Page-1)
	}
}

// mine: posts by the bot account (a player's post quoting or copying a
// marker is not the bot's).
func (p *Poster) mine(a forum.Author) bool {
	u := p.Session.Username()
	return u == "" || strings.EqualFold(strings.TrimSpace(a.Name), strings.TrimSpace(u))
}

// SubjectWithKey ends a PM subject with its marker key ("… #key#": the
// closing # tells a key the board cut short from a whole one),
// shortening the subject so the whole fits in maxChars (0: 80) characters:
// the sent folder's list then confirms the PM without opening it. A key
// too long to fit leaves the subject as it is (the PM is then opened).
func SubjectWithKey(subject, key string, maxChars int) string {
	if maxChars <= 0 {
		maxChars = 80
	}
	tail := " #" + key + "#"
	room := maxChars - utf8.RuneCountInString(tail)
	if room < 8 {
		return subject
	}
	if r := []rune(subject); len(r) > room {
		subject = strings.TrimSpace(string(r[:room-1])) + "…"
	}
	return subject + tail
}

// SubjectKey is the marker key at the end of a subject ("" when none or
// cut short).
func SubjectKey(subject string) string {
	i := strings.LastIndex(subject, " #")
	if i < 0 {
		return ""
	}
	k, whole := strings.CutSuffix(strings.TrimSpace(subject[i+2:]), "#")
	if whole && forum.ValidMarkerKey(k) {
		return k
	}
	return "" // none, or cut short by the board: the PM is opened instead
}

// SentPMWithMarker looks for a sent PM carrying the marker key and returns
// its id. It reads the sent folder's list, page after page (SentPages),
// for the key at the end of a subject, so confirming a PM costs one list
// read however many PMs other games sent meanwhile, and checks asked while
// a listing is read share the next one (sentLists); only rows without a key
// in their subject are opened (at most ScanSent) to read their marker.
// since is when the message was queued (zero: unknown): on a board that
// deletes the oldest sent PMs once the folder is full (profile
// sent_folder_size), a full folder reaching back no further than since
// proves nothing by not holding the key, and the answer is ErrUnchecked,
// never "not sent".
func (p *Poster) SentPMWithMarker(ctx context.Context, key string, since time.Time) (string, bool, error) {
	l, id, err := p.list(ctx, key, since)
	if err != nil {
		return "", false, err
	}
	if id != "" {
		return id, true, nil
	}
	if l.err != nil {
		return "", false, l.err
	}
	var found string
	var legacy []string
	listed := map[string]bool{} // the outbox and the sent folder may list a PM twice
	var oldest time.Time
	for _, h := range l.rows {
		listed[h.ID] = true
		if !h.Time.IsZero() && (oldest.IsZero() || h.Time.Before(oldest)) {
			oldest = h.Time
		}
		if k := SubjectKey(h.Subject); k == key {
			found = h.ID
			break
		} else if k == "" && len(legacy) < max(p.ScanSent, 1) {
			legacy = append(legacy, h.ID)
		}
	}
	ended, full := l.ended, l.full
	if found != "" {
		return found, true, nil
	}
	if back, newest := p.reachBack(since, !since.IsZero()); !ended && newest && readBack(l.rows, back) {
		// Newest first, read back past when it was queued: a PM the
		// board took after then would have been listed before.
		ended = true
	}
	for _, id := range legacy {
		m, err := p.reader.ReadSentPM(ctx, id)
		if err != nil {
			return "", false, err
		}
		if hasMarker(m.BodyHTML, key) {
			return id, true, nil
		}
	}
	if !ended {
		// More of the folder than was read: absence proves nothing, and
		// a resend could send it twice.
		return "", false, fmt.Errorf("%w: the sent folder is longer than the %d pages read (set urls.sent_page, urls.sent_one_page or urls.sent_newest_first in the profile: docs/profiles.md)", ErrUnchecked, max(p.SentPages, 1))
	}
	size := p.Session.Profile.SentFolderSize
	if full && size == 0 {
		// The board keeps no copy of a PM sent while the folder is full
		// (MyBB's pmquota): a resend could send it twice.
		return "", false, fmt.Errorf("%w: the board says the bot's PM folders are full, and it keeps no copy of a PM sent then: empty them", ErrUnchecked)
	}
	// The board's own word, whatever limit its admin set, or the profile's
	// size reached.
	if (full || size > 0 && len(listed) >= size) && !since.IsZero() && (oldest.IsZero() || oldest.After(since)) {
		// The board may have deleted it to make room: a resend could
		// send it twice.
		reach := "its list shows no times to tell how far back it reaches"
		if !oldest.IsZero() {
			reach = "it reaches back only to " + oldest.UTC().Format(time.RFC3339) + ", after the message was queued"
		}
		return "", false, fmt.Errorf("%w: the sent folder is full (%d PMs) and %s", ErrUnchecked, len(listed), reach)
	}
	return "", false, nil
}

// ErrUnchecked: whether a PM went out could not be told from the sent
// folder (it is longer than the pages read); the caller must not resend.
var ErrUnchecked = fmt.Errorf("the sent PM could not be checked for: %w", forum.ErrNoProof)
