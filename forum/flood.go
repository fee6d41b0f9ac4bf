package forum

import (
	"errors"
	"fmt"
	"time"
)

// ErrFlood: the board's flood control does not allow the bot's next post or
// PM yet. The message was not taken (never submitted, or refused), so it is
// safe to send it later. Errors carrying it are *FloodError.
var ErrFlood = errors.New("flood control: not yet")

// FloodError says when the next post or PM may go.
type FloodError struct {
	Until time.Time
	// Uncertain: an earlier submission of the same message, in the same
	// call, had an unclear outcome the marker check did not settle; check
	// for the marker again before resending.
	Uncertain bool
	// PMsOnly: the wait is the board's cap on PMs an hour (SMF's
	// pm_posts_per_hour), not its flood interval: posts may go meanwhile,
	// and other PMs wait for the same time.
	PMsOnly bool
	// Said is the board's words when it refused ("" when forumgm
	// foresaw the wait and did not ask the board).
	Said string
}

func (e *FloodError) Error() string {
	what := "flood control: the next post or PM"
	if e.PMsOnly {
		what = "the board's PMs an hour: the next PM"
	}
	msg := what + " may go at " + e.Until.UTC().Format(time.RFC3339)
	if e.Said != "" {
		msg += " (board says: " + e.Said + ")"
	}
	return msg
}

// Is makes errors.Is(err, ErrFlood) true.
func (e *FloodError) Is(target error) bool { return target == ErrFlood }

// FloodState is what the bot knows of its account's flood control.
type FloodState string

const (
	FloodUnknown FloodState = "unknown" // nothing learned yet: treated as exempt (try at once)
	FloodExempt  FloodState = "exempt"  // the board took posts sooner than its limit
	FloodLimited FloodState = "limited" // the board refused one: Interval between submissions
)

// FloodStatus is the bot account's flood control as learned or configured.
type FloodStatus struct {
	State    FloodState    `json:"state"`
	Interval time.Duration `json:"interval,omitempty"` // FloodLimited: least time between two posts/PMs
	Source   string        `json:"source,omitempty"`   // how it is known: "game file", "refused", "taken back-to-back"
	Learned  time.Time     `json:"learned,omitempty"`  // when it was learned (zero when configured)
	Next     time.Time     `json:"next,omitempty"`     // the next post or PM may go then (zero: now)
	// Depth is how many submissions the account may have under way at
	// once now (0: one): more for an exempt account, as the board's pace
	// allows (Profile.Depth).
	Depth int `json:"depth,omitempty"`
}

// String is the one line `forumgm status` shows.
func (s FloodStatus) String() string {
	how := ""
	switch {
	case !s.Learned.IsZero():
		how = " (learned " + s.Learned.UTC().Format("2006-01-02 15:04:05Z") + ")"
	case s.Source != "":
		how = " (" + s.Source + ")"
	}
	switch s.State {
	case FloodExempt:
		return "exempt" + how
	case FloodLimited:
		return fmt.Sprintf("%g s between posts%s", s.Interval.Seconds(), how)
	}
	return "unknown (tried as exempt until the board refuses)"
}
