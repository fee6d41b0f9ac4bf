package nodebb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/internal/retry"
	"github.com/forumgm/forumgm/scraper"
)

// alreadyPosting is NodeBB's refusal of a write while another of the
// account's is under way ([[error:already-posting]]).
var alreadyPosting = []string{"You are already posting", "already-posting"}

// Attempts is how many times a write is submitted in one send, a marker
// check before each one after the first.
const Attempts = 3

// checkLimit bounds a marker check made in a send (it may outlast the
// send's own deadline, as the poster's do: it only reads).
const checkLimit = time.Minute

// checkTries bounds the marker checks of one unclear write while the
// board is away (about 45 s of waits between them).
const checkTries = 8

// ErrQueued: the board put a reply in its post queue instead of the topic
// (a moderator must approve it). It is not posted, and sending it again
// would queue another: a refusal for the GM to hear about.
var ErrQueued = errors.New("the board put it in its post queue for a moderator to approve: it is not in the topic (turn the post queue off for the bot)")

// write submits one post or chat message, exactly once as far as the board
// can tell: an answer that leaves unclear whether it was taken (no answer,
// a 5xx) is followed by a marker check (check) before any resubmission;
// a refusal is never resubmitted. id reads the new item's id from the
// write API's response.
func (c *Client) write(ctx context.Context, what, rel string, body any, chat bool,
	check func(context.Context) (string, bool, error), id func(json.RawMessage) (string, error)) (string, error) {
	clk := c.opt.Clock
	if n := c.flood.next(); n.After(clk.Now()) {
		return "", &forum.FloodError{Until: n}
	}
	checkCtx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.WithoutCancel(ctx), checkLimit)
	}
	bo := retry.New(2*time.Second, time.Minute)
	unclear, uncertain := false, false
	var last error
	for attempt := 1; attempt <= Attempts; attempt++ {
		if unclear {
			cctx, cancel := checkCtx()
			got, ok, err := c.checkThrough(cctx, check)
			cancel()
			if err != nil {
				return "", fmt.Errorf("%s: %w: could not check whether it went out: %w", what, forum.ErrUnconfirmed, err)
			}
			if ok {
				return got, nil
			}
			unclear = false
		}
		at := clk.Now()
		r, err := c.call(ctx, http.MethodPost, rel, body, true)
		if errors.Is(err, scraper.ErrNotSent) && !uncertain {
			return "", fmt.Errorf("%s: %w: %w", what, forum.ErrNotSubmitted, err)
		}
		if errors.Is(err, ErrForbidden) || errors.Is(err, scraper.ErrLogin) {
			// Refused before anything was done (no session): not taken.
			if uncertain {
				return "", fmt.Errorf("%s: %w: %w", what, forum.ErrUnconfirmed, err)
			}
			return "", fmt.Errorf("%s: %w", what, err)
		}
		if err != nil {
			c.flood.submitted(at)
			if ctx.Err() != nil {
				if uncertain || !errors.Is(err, scraper.ErrNotSent) {
					return "", fmt.Errorf("%s: %w: %w", what, forum.ErrUnconfirmed, ctx.Err())
				}
				return "", ctx.Err()
			}
			last, unclear, uncertain = err, true, true
			if err := clk.Sleep(ctx, bo.Next()); err != nil {
				return "", fmt.Errorf("%s: %w: %w", what, forum.ErrUnconfirmed, err)
			}
			continue
		}
		switch {
		case r.status == http.StatusOK || r.status == http.StatusAccepted:
			c.flood.submitted(r.sent)
			var env envelope
			if err := json.Unmarshal(r.body, &env); err != nil {
				last, unclear, uncertain = fmt.Errorf("an answer that is not the write API's: %w", err), true, true
				continue
			}
			var q struct {
				Queued bool `json:"queued"`
			}
			if r.status == http.StatusAccepted || json.Unmarshal(env.Response, &q) == nil && q.Queued {
				// Taken, but into the queue: 202 Accepted, or 200 with "queued".
				return "", fmt.Errorf("%s: %w: %w", what, forum.ErrPermanent, ErrQueued)
			}
			got, err := id(env.Response)
			if err != nil || got == "" {
				last, unclear, uncertain = fmt.Errorf("the write API's answer names no id: %v", err), true, true
				continue
			}
			c.flood.taken(r.sent, chat)
			return got, nil
		case r.status >= 500 || r.status == http.StatusTooManyRequests:
			c.flood.submitted(r.sent)
			if r.maintenance {
				// The maintenance mode refuses before anything is done:
				// not taken, nothing to look for before the next try.
				last = fmt.Errorf("%w: HTTP %d", scraper.ErrClosed, r.status)
			} else {
				last, unclear, uncertain = fmt.Errorf("%w: HTTP %d", scraper.ErrUnavailable, r.status), true, true
			}
			d := bo.Next()
			if ra, ok := scraper.RetryAfter(r.header, clk.Now()); ok {
				d = min(max(ra, time.Second), 10*time.Minute)
			}
			if err := clk.Sleep(ctx, d); err != nil {
				return "", fmt.Errorf("%s: %w: %w", what, forum.ErrUnconfirmed, err)
			}
		default:
			// A refusal (400 with the board's words): not taken.
			said := refusalText(r.body)
			if forum.Mentions(said, alreadyPosting) != "" {
				// Another post or chat of the account's is under way
				// (NodeBB locks a member's posting while one is): not
				// taken, and nothing learned; again in a moment.
				return "", &forum.FloodError{Until: clk.Now().Add(time.Second), Uncertain: uncertain, Said: said}
			}
			if forum.Mentions(said, c.prof.FloodText) != "" {
				return "", &forum.FloodError{Until: c.flood.refused(said, chat, clk.Now()), Uncertain: uncertain, Said: said}
			}
			if tl, max := c.prof.TooLong(said); tl {
				return "", fmt.Errorf("%s: %w", what, &forum.TooLongError{Max: max, Said: said})
			}
			return "", fmt.Errorf("%s: %w: %w", what, forum.ErrPermanent, &Refusal{Status: r.status, Message: said})
		}
	}
	cctx, cancel := checkCtx()
	defer cancel()
	got, ok, err := check(cctx)
	if err == nil && ok {
		return got, nil
	}
	if uncertain {
		return "", fmt.Errorf("%s: %w after %d attempts (%w)", what, forum.ErrUnconfirmed, Attempts, last)
	}
	return "", fmt.Errorf("%s: not confirmed after %d attempts: %w", what, Attempts, last)
}

// SetFlood sets the account's flood interval (the game file's
// flood_seconds; 0: exempt).
func (c *Client) SetFlood(d time.Duration) { c.flood.set(d) }

// Flood is what the client has learned of the account's flood control
// (forum.BoardSender).
func (c *Client) Flood() forum.FloodStatus { return c.flood.get() }

// checkThrough runs a marker check, again while the board is away for a
// moment (a 5xx or no answer, as when it restarts after the write that
// made the check needed), until ctx ends: a check that gives up at the
// first 502 leaves a send unconfirmed that a few seconds would settle.
// A board closed for maintenance is not waited for here.
func (c *Client) checkThrough(ctx context.Context, check func(context.Context) (string, bool, error)) (string, bool, error) {
	bo := retry.New(time.Second, 10*time.Second)
	for try := 1; ; try++ {
		got, ok, err := check(ctx)
		if err == nil || try == checkTries || !errors.Is(err, scraper.ErrUnavailable) || errors.Is(err, scraper.ErrClosed) {
			return got, ok, err
		}
		if c.opt.Clock.Sleep(ctx, bo.Next()) != nil {
			return got, ok, err
		}
	}
}
