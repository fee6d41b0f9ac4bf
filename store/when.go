package store

import (
	"strconv"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
)

// unitOf is how long a stamp of precision p spans before the moderator
// narrows it.
var unitOf = map[forum.Precision]time.Duration{
	forum.PrecisionMinute: time.Minute,
	forum.PrecisionHour:   time.Hour,
	forum.PrecisionDay:    24 * time.Hour,
}

// WhenText is the message's board time in loc as finely as the board's
// stamp gives it, then, where forumgm pinned it down further (a PM page's
// minute cut short by the read that first saw the message, or by the post
// before it), the interval it knows to the second:
// "2026-12-06 12:03 (between 12:03:00 and 12:03:41)". layout must hold
// the clock as "15:04:05": it loses the seconds for a stamp to the minute
// or hour and the clock for a stamp to the day.
func (m Message) WhenText(loc *time.Location, layout string) string {
	if loc == nil {
		loc = time.UTC
	}
	st := m.Stamp
	if !st.Known() {
		if !m.Time.IsZero() {
			return m.Time.In(loc).Format(layout)
		}
		if st.Text != "" {
			return "unreadable time " + strconv.Quote(st.Text)
		}
		return "—"
	}
	switch st.Precision {
	case forum.PrecisionMinute, forum.PrecisionHour:
		layout = strings.Replace(layout, "15:04:05", "15:04", 1)
	case forum.PrecisionDay:
		if i := strings.Index(layout, "15:04:05"); i >= 0 {
			head := strings.TrimRight(strings.TrimSuffix(strings.TrimRight(layout[:i], " "), ","), " ")
			layout = head + layout[i+len("15:04:05"):]
		}
	}
	s := st.Earliest.In(loc).Format(layout)
	if u, coarse := unitOf[st.Precision]; coarse && st.Width() > 0 && st.Width() < u {
		s += " (between " + st.Earliest.In(loc).Format("15:04:05") + " and " + st.Latest.In(loc).Format("15:04:05") + ")"
	}
	return s
}
