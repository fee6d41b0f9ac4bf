package nodebb

import (
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/forumgm/forumgm/forum"
)

// floodState is what the client has learned of the account's flood
// control: NodeBB's postDelay between two posts ("You can only post once
// every 10 second(s)"), and its chat limit ("You have sent too many
// messages, please wait awhile.", which names no wait).
type floodState struct {
	mu       sync.Mutex
	prof     time.Duration // the profile's flood_seconds
	status   forum.FloodStatus
	until    time.Time // nothing before it (a refusal's wait)
	lastSent time.Time // the last write the board may have taken
	lastOK   time.Time
	chatWait time.Duration // the last chat refusal's wait (doubles)
}

var intervalRe = regexp.MustCompile(`(?i)once every (\d+) second`)

// set configures a known interval (the game file's flood_seconds).
func (f *floodState) set(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d <= 0 {
		f.status = forum.FloodStatus{State: forum.FloodExempt, Source: "game file"}
		return
	}
	f.status = forum.FloodStatus{State: forum.FloodLimited, Interval: d, Source: "game file"}
}

// next is when the next write may go.
func (f *floodState) next() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.until
	if f.status.State == forum.FloodLimited && !f.lastSent.IsZero() {
		if t := f.lastSent.Add(f.status.Interval); t.After(n) {
			n = t
		}
	}
	return n
}

func (f *floodState) get() forum.FloodStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.status
	if s.State == "" {
		s.State = forum.FloodUnknown
	}
	n := f.until
	if s.State == forum.FloodLimited && !f.lastSent.IsZero() {
		if t := f.lastSent.Add(s.Interval); t.After(n) {
			n = t
		}
	}
	s.Next = n
	return s
}

// refused learns from a flood refusal whose words are said, at now, and
// returns when to try again.
func (f *floodState) refused(said string, chat bool, now time.Time) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	var d time.Duration
	if m := intervalRe.FindStringSubmatch(said); m != nil {
		n, _ := strconv.Atoi(m[1])
		d = time.Duration(n) * time.Second
		interval := max(d, f.status.Interval)
		f.status = forum.FloodStatus{State: forum.FloodLimited, Interval: interval, Source: "refused", Learned: now}
		if !f.lastOK.IsZero() && now.Sub(f.lastOK) < d {
			d -= now.Sub(f.lastOK) // counted from the last post it took
		}
	} else if chat {
		// The chat limit names no wait: 2 s, doubling while refused, at
		// most two minutes (a new member's is 120 s).
		f.chatWait = min(max(2*f.chatWait, 2*time.Second), 2*time.Minute)
		d = f.chatWait
	} else {
		d = max(f.prof, time.Second)
	}
	d = max(d, time.Second)
	if t := now.Add(d); t.After(f.until) {
		f.until = t
	}
	return f.until
}

// submitted records a write the board may have taken.
func (f *floodState) submitted(at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if at.After(f.lastSent) {
		f.lastSent = at
	}
}

// taken records a write the board took: one sooner after the last than the
// profile's interval makes an account not known limited exempt.
func (f *floodState) taken(at time.Time, chat bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if chat {
		f.chatWait = 0
	}
	prev := f.lastOK
	if at.After(prev) {
		f.lastOK = at
	}
	if chat || f.status.State != "" && f.status.State != forum.FloodUnknown || prev.IsZero() {
		return
	}
	if at.Sub(prev) < f.prof {
		f.status = forum.FloodStatus{State: forum.FloodExempt, Source: "taken back-to-back", Learned: at}
	}
}
