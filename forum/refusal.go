package forum

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// TooLongError: the board refused a post or PM as longer than it takes.
// Retrying the same text will not help (errors.Is(err, ErrPermanent)), but
// the same message in shorter parts will.
type TooLongError struct {
	// Max is the board's limit as its page states it (characters; a byte
	// limit at least as strict), 0 when the page names none.
	Max int
	// Said is the board's words.
	Said string
}

func (e *TooLongError) Error() string {
	if e.Max > 0 {
		return fmt.Sprintf("the board refused the message as too long (its limit: %d characters): %s", e.Max, e.Said)
	}
	return "the board refused the message as too long: " + e.Said
}

// Is makes errors.Is(err, ErrPermanent) true: the same text is refused again.
func (e *TooLongError) Is(target error) bool { return target == ErrPermanent }

// ErrUnconfirmed: a send may well have gone out (the board's answer was a
// success page, or could not be judged) but the check for its marker could
// not be made. It is neither sent nor failed: check again later, and never
// resend before a check has answered.
var ErrUnconfirmed = errors.New("sent, but not confirmed yet")

// ErrSaidSent: the board answered a submission with its own page saying it
// took the message, but the message's marker was not found after it (or
// could not be looked for). Always with ErrUnconfirmed. The message is
// never sent again by itself: the GM is told, and may `forumgm retry` it
// after looking. (Resending it cost duplicates on a board whose charset
// garbled the marker: the board took every copy.)
var ErrSaidSent = errors.New("the board said it took it")

// ErrConfirmLater: a message sent under ConfirmLater that the board
// answered with its success, naming no id: it went out, and its marker is
// looked for later (found: its id; not found where the board would show
// it: the GM is told, as for ErrSaidSent). Never sent again by itself.
var ErrConfirmLater = errors.New("the board took it; its marker is looked for later")

// ErrNotSubmitted: a send's time ran out before anything of it reached the
// board (its form, or its submission's turn, came too late). It is no
// attempt: the message goes back to the queue, with no check needed.
var ErrNotSubmitted = errors.New("not submitted: its time ran out before it reached the board")

// TooLong reports whether the text of a page the board answered a
// submission with is its "message too long" refusal, and the limit it
// names (0: none named).
func (p Profile) TooLong(pageText string) (bool, int) {
	hit := Mentions(pageText, p.TooLongText) != ""
	if !hit || p.TooLongLimitRegexp == "" {
		return hit, 0
	}
	text := strings.ToLower(strings.Join(strings.Fields(pageText), " "))
	re, err := compiled("(?i)" + p.TooLongLimitRegexp)
	if err != nil {
		return true, 0
	}
	m := re.FindStringSubmatch(text)
	for _, g := range m[min(1, len(m)):] {
		digits := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, g) // "65,535"
		if n, err := strconv.Atoi(digits); err == nil && n > 0 {
			return true, n
		}
	}
	return true, 0
}

// SaysSent reports whether a page is the board's "your post/PM was sent"
// page (phpBB's "This message has been sent successfully."): an answer
// meaning the submission was taken, never a refusal.
func (p Profile) SaysSent(pageText string) bool { return Mentions(pageText, p.SentText) != "" }

// SentAt reports whether the Location a board redirected a submission to
// is where it sends a browser once it has taken the message
// (sent_location_regexp).
func (p Profile) SentAt(location string) bool {
	if p.SentLocationRegexp == "" || location == "" {
		return false
	}
	re, err := compiled(p.SentLocationRegexp)
	return err == nil && re.MatchString(location)
}

// compiledRes keeps the profiles' regexps asked for per submission
// compiled once, by their text (a board's profiles have a few).
var compiledRes sync.Map // string → *regexp.Regexp

// compiled is regexp.Compile(expr), once for each expr that compiles.
func compiled(expr string) (*regexp.Regexp, error) {
	if re, ok := compiledRes.Load(expr); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	compiledRes.Store(expr, re)
	return re, nil
}

// SaysRefused reports whether the board's answer to a post or PM refuses
// it for a reason no resubmission changes, with the form again or on an
// error page (profile refused_text: an unknown recipient, a full inbox, a
// locked topic, no permission, a ban).
func (p Profile) SaysRefused(boxText string) bool { return Mentions(boxText, p.RefusedText) != "" }

// SaysStale reports whether the board's answer to a post or PM refuses
// its form's token or session as ended (profile stale_text): not taken,
// to be submitted again on a fresh form.
func (p Profile) SaysStale(boxText string) bool { return Mentions(boxText, p.StaleText) != "" }

// SaysPMQuota reports whether the board's answer to a PM refuses it as
// over the board's cap on PMs an hour (profile pm_quota_text), and the cap
// it names (0: none).
func (p Profile) SaysPMQuota(boxText string) (bool, int) {
	ph := Mentions(boxText, p.PMQuotaText)
	if ph == "" {
		return false, 0
	}
	if m := firstNumber.FindString(boxText); m != "" {
		n, _ := strconv.Atoi(m)
		return true, n
	}
	return true, 0
}

var firstNumber = regexp.MustCompile(`\d+`)

// Mentions is the first of phrases (the profile's wordings of a board's
// answer) that text holds, case-insensitively, with the text's runs of
// white space read as one space; "" when none.
func Mentions(text string, phrases []string) string {
	text = strings.ToLower(strings.Join(strings.Fields(text), " "))
	for _, ph := range phrases {
		if ph != "" && strings.Contains(text, strings.ToLower(ph)) {
			return ph
		}
	}
	return ""
}
