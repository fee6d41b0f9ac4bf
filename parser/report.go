package parser

import (
	"fmt"
	"time"

	"github.com/forumgm/forumgm/forum"
)

// Report is what `forumgm parse` prints for a page: a thread page's posts
// with their command segments, an inbox's PM headers, or one PM's lines.
type Report struct {
	Kind     string `json:"kind"` // thread, inbox, pm
	Page     int    `json:"page,omitempty"`
	Pages    int    `json:"pages,omitempty"`
	LoggedIn bool   `json:"logged_in"`
	// Incomplete: the page came cut short (Complete: no closing </html>
	// near its end, or no page_end footer). The live reader refuses such
	// a page and reads it again later; what is on it may be cut, and what
	// is not on it may still be on the board.
	Incomplete bool          `json:"incomplete,omitempty"`
	Posts      []ReportPost  `json:"posts,omitempty"`
	Messages   []ReportPMRow `json:"messages,omitempty"`
	PM         *ReportPM     `json:"pm,omitempty"`
}

// ReportPost is one post in a Report.
type ReportPost struct {
	ID       string   `json:"id"`
	Author   string   `json:"author"`
	AuthorID string   `json:"author_id"`
	Time     string   `json:"time"`
	Until    string   `json:"until,omitempty"`
	TimeErr  string   `json:"time_error,omitempty"`
	Edited   bool     `json:"edited"`
	Segments []string `json:"segments"`
	// Unreadable is why the post could not be read (nested deeper than
	// the HTML parser takes): the live reader records it so, and reads no
	// command from it.
	Unreadable string `json:"unreadable,omitempty"`
}

// ReportPMRow is one inbox row in a Report.
type ReportPMRow struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	From    string `json:"from"`
	FromID  string `json:"from_id"`
	Time    string `json:"time"`
	Until   string `json:"until,omitempty"`
	TimeErr string `json:"time_error,omitempty"`
	Unread  bool   `json:"unread"`
}

// ReportPM is one PM in a Report.
type ReportPM struct {
	ID      string   `json:"id"`
	Subject string   `json:"subject"`
	From    string   `json:"from"`
	FromID  string   `json:"from_id"`
	Time    string   `json:"time"`
	Until   string   `json:"until,omitempty"`
	TimeErr string   `json:"time_error,omitempty"`
	Lines   []string `json:"lines"`
	// Unreadable: as ReportPost's.
	Unreadable string `json:"unreadable,omitempty"`
}

// whyUnreadable is the reason an unreadable body (forum.UnreadableBody)
// holds, as text; "" for a readable body.
func whyUnreadable(body string) string { return forum.UnreadableReason(body) }

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// times is a stamp as a report shows it: its start, its end when it is an
// interval (a minute, "9 hours ago"), and why it could not be read.
func times(s forum.Stamp) (from, until, err string) {
	if !s.Exact() {
		until = stamp(s.Latest)
	}
	return stamp(s.Earliest), until, s.Err
}

// MakeReport parses a page of any known kind with no fetch time (relative
// times are reported unreadable; see MakeReportAt).
func (x *Parser) MakeReport(page []byte) (Report, error) { return x.MakeReportAt(page, Fetch{}) }

// MakeReportAt parses a page of any known kind fetched at f.
func (x *Parser) MakeReportAt(page []byte, f Fetch) (Report, error) {
	doc, err := Doc(page)
	if err != nil {
		return Report{}, err
	}
	r := Report{Kind: x.Kind(doc)}
	// The marks of the kind of page it is (page_marks).
	kind := map[string]forum.PageKind{"thread": forum.PageThread, "pm": forum.PagePM, "inbox": forum.PagePMFolder}[r.Kind]
	r.LoggedIn, r.Incomplete = x.LoggedInOn(kind, doc), !x.CompleteOn(kind, page, doc)
	switch r.Kind {
	case "thread":
		t := x.ThreadAt(doc, f)
		r.Page, r.Pages = t.Page, t.Pages
		r.Posts = []ReportPost{}
		for i, p := range t.Posts {
			segs := t.Segments(i)
			if segs == nil {
				segs = []string{}
			}
			rp := ReportPost{ID: p.ID, Author: p.Author.Name, AuthorID: p.Author.ID, Edited: p.Edited, Segments: segs,
				Unreadable: whyUnreadable(p.BodyHTML)}
			rp.Time, rp.Until, rp.TimeErr = times(p.Stamp)
			r.Posts = append(r.Posts, rp)
		}
	case "inbox":
		for _, h := range x.InboxAt(doc, f) {
			row := ReportPMRow{ID: h.ID, Subject: h.Subject, From: h.From.Name, FromID: h.From.ID, Unread: h.Unread}
			row.Time, row.Until, row.TimeErr = times(h.Stamp)
			r.Messages = append(r.Messages, row)
		}
	case "pm":
		m, _ := x.PMAt(doc, f)
		lines := x.Lines(m.BodyHTML)
		if lines == nil {
			lines = []string{}
		}
		r.PM = &ReportPM{ID: m.ID, Subject: m.Subject, From: m.From.Name, FromID: m.From.ID, Lines: lines,
			Unreadable: whyUnreadable(m.BodyHTML)}
		r.PM.Time, r.PM.Until, r.PM.TimeErr = times(m.Stamp)
	default:
		return r, fmt.Errorf("not a %s thread page, inbox or PM page (no post, PM or inbox row matched the profile's selectors)", x.Profile.Name)
	}
	return r, nil
}
