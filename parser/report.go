package parser

import (
	"fmt"
	"time"
)

// Report is what `forumgm parse` prints for a page: a thread page's posts
// with their command segments, an inbox's PM headers, or one PM's lines.
type Report struct {
	Kind     string        `json:"kind"` // thread, inbox, pm
	Page     int           `json:"page,omitempty"`
	Pages    int           `json:"pages,omitempty"`
	LoggedIn bool          `json:"logged_in"`
	Posts    []ReportPost  `json:"posts,omitempty"`
	Messages []ReportPMRow `json:"messages,omitempty"`
	PM       *ReportPM     `json:"pm,omitempty"`
}

// ReportPost is one post in a Report.
type ReportPost struct {
	ID       string   `json:"id"`
	Author   string   `json:"author"`
	AuthorID string   `json:"author_id"`
	Time     string   `json:"time"`
	Edited   bool     `json:"edited"`
	Segments []string `json:"segments"`
}

// ReportPMRow is one inbox row in a Report.
type ReportPMRow struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	From    string `json:"from"`
	FromID  string `json:"from_id"`
	Time    string `json:"time"`
	Unread  bool   `json:"unread"`
}

// ReportPM is one PM in a Report.
type ReportPM struct {
	ID      string   `json:"id"`
	Subject string   `json:"subject"`
	From    string   `json:"from"`
	FromID  string   `json:"from_id"`
	Time    string   `json:"time"`
	Lines   []string `json:"lines"`
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// MakeReport parses a page of any known kind.
func (x *Parser) MakeReport(page []byte) (Report, error) {
	doc, err := Doc(page)
	if err != nil {
		return Report{}, err
	}
	r := Report{Kind: x.Kind(doc), LoggedIn: x.LoggedIn(doc)}
	switch r.Kind {
	case "thread":
		t := x.Thread(doc)
		r.Page, r.Pages = t.Page, t.Pages
		r.Posts = []ReportPost{}
		for _, p := range t.Posts {
			segs := x.Segments(p.BodyHTML)
			if segs == nil {
				segs = []string{}
			}
			r.Posts = append(r.Posts, ReportPost{ID: p.ID, Author: p.Author.Name, AuthorID: p.Author.ID,
				Time: stamp(p.Time), Edited: p.Edited, Segments: segs})
		}
	case "inbox":
		for _, h := range x.Inbox(doc) {
			r.Messages = append(r.Messages, ReportPMRow{ID: h.ID, Subject: h.Subject, From: h.From.Name,
				FromID: h.From.ID, Time: stamp(h.Time), Unread: h.Unread})
		}
	case "pm":
		m, _ := x.PM(doc)
		lines := x.Lines(m.BodyHTML)
		if lines == nil {
			lines = []string{}
		}
		r.PM = &ReportPM{ID: m.ID, Subject: m.Subject, From: m.From.Name, FromID: m.From.ID,
			Time: stamp(m.Time), Lines: lines}
	default:
		return r, fmt.Errorf("not a %s thread page, inbox or PM page (no post, PM or inbox row matched the profile's selectors)", x.Profile.Name)
	}
	return r, nil
}
