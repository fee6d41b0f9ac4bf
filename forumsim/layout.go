package forumsim

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Layouts a board's pages can have (Options.Layout).
const (
	// LayoutRows is a classic board of the kind issue 44 met, shaped after
	// phpBB 2.0's subSilver templates (viewtopic_body.tpl, message_body.tpl,
	// error_body.tpl), though the rest of the board stays phpBB 3-like:
	//   - no element holds one post: every post is three sibling rows of
	//     the one table that holds all the page's posts (the author's name
	//     with an anchor <a name="pidN"> and the time link; the body; the
	//     footer links), as subSilver's postrow is three <tr>;
	//   - members are known by name only: no page shows a numeric user id
	//     (profile and PM links name the member: un=NAME);
	//   - an edit is noted as text at the end of the body ("[Edited on
	//     6-12-2026 by carol]"), not in an element of its own;
	//   - the PM pages show no logout link (the rest of the board does);
	//   - the board's one message box (message_body.tpl: a table with an
	//     "Information" header) serves its errors and its "sent" answers
	//     alike; form errors are in error_body.tpl's box on the form.
	LayoutRows = "rows"
)

// Layouts are the page layouts `forumgm sim --layout` offers.
var Layouts = []string{"", LayoutRows}

// rows: the board has the rows layout.
func (s *Server) rows() bool { return s.opt.Layout == LayoutRows }

// profileLink is a member's profile URL: by id, or by name on a board
// that shows no ids.
func (s *Server) profileLink(id int) string {
	if u := s.users[id]; u != nil && s.rows() {
		return "./memberlist.php?mode=viewprofile&un=" + url.QueryEscape(u.Name)
	}
	return profileURL(id)
}

// composeLink is the PM form addressed to a member.
func (s *Server) composeLink(id int) string {
	if u := s.users[id]; u != nil && s.rows() {
		return "./ucp.php?i=pm&mode=compose&un=" + url.QueryEscape(u.Name)
	}
	return fmt.Sprintf("./ucp.php?i=pm&mode=compose&u=%d", id)
}

// editText is the edit note the rows layout writes at the end of a body:
// the day, month and year of the last edit, and who made it.
func (s *Server) editText(p *Post) string {
	ed := s.users[p.EditUserID]
	name := ""
	if ed != nil {
		name = ed.Name
	}
	t := p.EditTime.In(s.opt.Location)
	return fmt.Sprintf("[Edited on %d-%d-%d by %s]", t.Day(), int(t.Month()), t.Year(), e(name))
}

// renderRows is a topic page's posts as subSilver lays them out: one
// table, each post three rows, a closing row after the last.
func (s *Server) renderRows(se *session, t *Topic, ids []int) string {
	var b strings.Builder
	b.WriteString("<table class=\"forumline\" width=\"100%\" cellspacing=\"1\" cellpadding=\"3\" border=\"0\">\n<tr>\n<th class=\"thLeft\" width=\"150\" height=\"26\" nowrap=\"nowrap\">Author</th>\n<th class=\"thRight\" nowrap=\"nowrap\">Message</th>\n</tr>\n")
	for i, id := range ids {
		p := s.posts[id]
		row := "row1"
		if i%2 == 1 {
			row = "row2"
		}
		fmt.Fprintf(&b, "<tr>\n<td width=\"150\" align=\"left\" valign=\"top\" class=\"%s\"><a name=\"pid%d\"></a><span class=\"name\"><b>%s</b></span></td>\n", row, p.ID, s.userFull(p.AuthorID, p.AuthorName))
		fmt.Fprintf(&b, "<td class=\"%s\" width=\"100%%\" valign=\"top\"><span class=\"postdetails\">Posted: <a href=\"./viewtopic.php?p=%d#pid%d\" class=\"postdate\">%s</a> &nbsp; Post subject: %s</span></td>\n</tr>\n", row, p.ID, p.ID, e(s.date(p.Time)), e(p.Subject))
		body := p.HTML
		if p.EditCount > 0 {
			body += "<br /><br />" + s.editText(p)
		}
		fmt.Fprintf(&b, "<tr>\n<td class=\"%s\" valign=\"top\">&nbsp;</td>\n<td class=\"%s\" valign=\"top\"><span class=\"postbody\">%s</span></td>\n</tr>\n", row, row, body)
		fmt.Fprintf(&b, "<tr>\n<td class=\"%s\" valign=\"middle\"><span class=\"nav\"><a href=\"#top\" class=\"nav\">Back to top</a></span></td>\n<td class=\"%s\" valign=\"bottom\" nowrap=\"nowrap\">", row, row)
		if p.AuthorID != 0 {
			fmt.Fprintf(&b, "<a href=\"%s\">Profile</a> <a href=\"%s\">PM</a> ", e(s.profileLink(p.AuthorID)), e(s.composeLink(p.AuthorID)))
		}
		if se.registered() {
			fmt.Fprintf(&b, "<a href=\"./posting.php?mode=quote&amp;p=%d\">Quote</a>", p.ID)
		}
		b.WriteString("</td>\n</tr>\n")
	}
	b.WriteString("<tr align=\"center\"><td class=\"catBottom\" colspan=\"2\" height=\"28\">&nbsp;</td></tr>\n</table>\n")
	return b.String()
}

// msgBox is message_body.tpl: the board's one box for what it tells a
// member, an error or a success alike.
func msgBox(text string) string {
	return "<table class=\"forumline msgbox\" width=\"100%\" cellspacing=\"1\" cellpadding=\"4\" border=\"0\">\n<tr><th class=\"thHead\" height=\"25\"><b>Information</b></th></tr>\n<tr><td class=\"row1\"><table width=\"100%\" cellspacing=\"0\" cellpadding=\"1\" border=\"0\"><tr><td align=\"center\"><span class=\"gen\">" + text + "</span></td></tr></table></td></tr>\n</table>"
}

// errorBox is error_body.tpl: a form's errors, on the form.
func errorBox(text string) string {
	return "<table class=\"forumline errorbox\" width=\"100%\" cellspacing=\"0\" cellpadding=\"2\" border=\"0\">\n<tr><td><table width=\"100%\" cellspacing=\"0\" cellpadding=\"1\" border=\"0\"><tr><td align=\"center\"><span class=\"gen\">" + text + "</span></td></tr></table></td></tr>\n</table>\n"
}

// formErrors are a form's errors as the layout shows them on the form.
func (s *Server) formErrors(errs []string) string {
	if s.rows() {
		return errorBox(joinErrs(errs))
	}
	return fmt.Sprintf("<p class=\"error\">%s</p>\n", joinErrs(errs))
}

// storedBytes is how many bytes text takes in the board's database: in a
// legacy charset one a character (each one it lacks came as a numeric
// reference, its characters counted), else its UTF-8 bytes.
func (s *Server) storedBytes(text string) int {
	if s.legacy() != nil {
		return utf8.RuneCountInString(text)
	}
	return len(text)
}

// subjectTooLong answers a post or PM whose subject does not fit the
// board's subject column (Options.SubjectBytes) as a board in MySQL's
// strict mode does: the query fails, and PHP's error page is an HTTP 500
// naming the column; nothing is stored.
func (s *Server) subjectTooLong(w http.ResponseWriter, subject, column string) bool {
	n := s.opt.SubjectBytes
	if n <= 0 || s.storedBytes(subject) <= n {
		return false
	}
	w.Header().Set("Content-Type", "text/html; charset="+s.charsetLabel())
	w.WriteHeader(http.StatusInternalServerError)
	fmt.Fprintf(w, "<!DOCTYPE html><html><head><title>General Error</title></head><body><table class=\"forumline msgbox\"><tr><th>General Error</th></tr><tr><td class=\"row1\"><span class=\"gen\">Could not insert the message<br /><br />DEBUG MODE<br /><br />SQL Error : 1406 Data too long for column '%s' at row 1</span></td></tr></table></body></html>", column)
	return true
}
