package forumsim

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// MsgEmailSent is phpBB's EMAIL_SENT (language/en/memberlist.php).
const MsgEmailSent = "The email has been sent."

// Email is one e-mail a member sent another through the board's e-mail
// form (memberlist.php?mode=email&u=ID): the board mails it and keeps no
// copy a member could see. It is how a profile whose PM form is pointed at
// the e-mail form by mistake still "sends" messages.
type Email struct {
	From, To      int
	Subject, Body string
	Time          time.Time
}

// Emails are the e-mails sent through the board's e-mail form, in order.
func (s *Server) Emails() []Email {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Email(nil), s.emails...)
}

// emailForm is phpBB's "Send email" to a member (memberlist_email.html,
// phpbb/message/user_form.php): a form with subject and message and the
// memberlist_email token; its submission answers EMAIL_SENT with a meta
// refresh to the index (phpbb/message/form.php).
func (s *Server) emailForm(w http.ResponseWriter, r *http.Request, se *session) {
	to := s.users[intParam(r, "u")]
	if to == nil {
		s.message(w, r, se, http.StatusNotFound, MsgNoUser, "")
		return
	}
	if r.Method == http.MethodPost && r.PostFormValue("submit") != "" {
		key, ok := s.checkToken(se, "memberlist_email", r)
		if ok && strings.TrimSpace(r.PostFormValue("subject")) != "" && strings.TrimSpace(r.PostFormValue("message")) != "" {
			s.useToken(key)
			s.emails = append(s.emails, Email{From: se.userID, To: to.ID, Subject: r.PostFormValue("subject"), Body: r.PostFormValue("message"), Time: s.now()})
			s.message(w, r, se, http.StatusOK, MsgEmailSent+"<br /><br />Return to <a href=\"./index.php\">the index page</a>", "./index.php")
			return
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<h2 class=\"titlespace\">Send email</h2>\n<form method=\"post\" action=\"./memberlist.php?mode=email&amp;u=%d\" id=\"post\">\n<div class=\"panel\">\n<div class=\"inner\">\n<fieldset>\n", to.ID)
	fmt.Fprintf(&b, "<dl><dt><label>Recipient:</label></dt><dd><strong>%s</strong></dd></dl>\n", e(to.Name))
	b.WriteString("<dl><dt><label for=\"subject\">Subject:</label></dt><dd><input class=\"inputbox autowidth\" type=\"text\" name=\"subject\" id=\"subject\" size=\"50\" tabindex=\"1\" value=\"\" /></dd></dl>\n")
	b.WriteString("<dl><dt><label for=\"message\">Message body:</label></dt><dd><textarea class=\"inputbox\" name=\"message\" id=\"message\" rows=\"15\" cols=\"76\" tabindex=\"4\"></textarea></dd></dl>\n")
	b.WriteString("</fieldset>\n</div>\n</div>\n<div class=\"panel\">\n<div class=\"inner\">\n<fieldset class=\"submit-buttons\">\n")
	b.WriteString(s.tokenFields(se, "memberlist_email"))
	b.WriteString("<input type=\"submit\" tabindex=\"6\" name=\"submit\" class=\"button1\" value=\"Send email\" />\n</fieldset>\n</div>\n</div>\n</form>")
	s.page(w, r, se, "Send email", b.String(), pageOpts{section: "section-memberlist"})
}
