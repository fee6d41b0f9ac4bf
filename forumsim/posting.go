package forumsim

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// postingForm is what posting_editor.html needs.
type postingForm struct {
	mode, action, heading string
	subject, message      string
	topic                 *Topic
	curPostID             int // topic_cur_post_id (replies)
	editReason            bool
	errs                  []string
	review                []*Post // new posts since the form was opened
}

// posting is posting.php: mode=post (new topic), reply, quote, edit, delete.
func (s *Server) posting(w http.ResponseWriter, r *http.Request, se *session) {
	mode := r.FormValue("mode")
	if !se.registered() {
		explain := map[string]string{
			"post":   "You need to login in order to post within this forum.",
			"reply":  "You need to login in order to reply to topics within this forum.",
			"quote":  "You need to login in order to reply to topics within this forum.",
			"edit":   "You need to login in order to edit posts within this forum.",
			"delete": "You need to login in order to delete posts within this forum.",
		}[mode]
		if explain == "" {
			explain = "You need to login in order to post within this forum."
		}
		s.loginForm(w, r, se, "posting.php?"+r.URL.RawQuery, explain, "", "", http.StatusOK)
		return
	}
	switch mode {
	case "reply", "quote":
		s.reply(w, r, se, mode)
	case "post":
		s.newTopic(w, r, se)
	case "edit":
		s.editPost(w, r, se)
	case "delete":
		s.deleteForm(w, r, se)
	default:
		s.message(w, r, se, http.StatusBadRequest, "No valid mode supplied.", "")
	}
}

func (s *Server) reply(w http.ResponseWriter, r *http.Request, se *session, mode string) {
	u := s.users[se.userID]
	var t *Topic
	message := r.PostFormValue("message")
	if mode == "quote" {
		p := s.postParam(w, r, se)
		if p == nil {
			return
		}
		t = s.topics[p.TopicID]
		if r.Method == http.MethodGet {
			message = fmt.Sprintf("[quote=\"%s\" post_id=%d time=%d user_id=%d]\n%s\n[/quote]\n", p.AuthorName, p.ID, p.Time.Unix(), p.AuthorID, p.Source)
		}
	} else {
		t = s.topics[intParam(r, "t")]
	}
	if t == nil {
		s.message(w, r, se, http.StatusNotFound, MsgNoTopic, "")
		return
	}
	last := t.posts[len(t.posts)-1]
	f := postingForm{mode: "reply", action: "./posting.php?mode=reply&t=" + strconv.Itoa(t.ID), heading: "Post a reply",
		subject: "Re: " + t.Title, message: message, topic: t, curPostID: last}
	if v := r.PostFormValue("subject"); v != "" {
		f.subject = v
	}
	key, ok := s.submitted(w, r, se, &f)
	if !ok {
		return
	}
	if s.refused(w, r, se, &f) {
		return
	}
	// Post review: someone posted since the form was opened. phpBB shows
	// the new posts and the form again instead of submitting.
	if cur := intParam(r, "topic_cur_post_id"); cur != 0 && cur != last && !s.opt.NoPostReview {
		for i := len(t.posts) - 1; i >= 0 && t.posts[i] > cur; i-- {
			f.review = append(f.review, s.posts[t.posts[i]])
		}
		s.postingForm(w, r, se, f)
		return
	}
	s.useToken(key)
	s.publish(w, r, t, u, f.subject, message)
}

func (s *Server) newTopic(w http.ResponseWriter, r *http.Request, se *session) {
	u := s.users[se.userID]
	fo := s.forums[intParam(r, "f")]
	if fo == nil {
		s.message(w, r, se, http.StatusNotFound, MsgNoForum, "")
		return
	}
	f := postingForm{mode: "post", action: "./posting.php?mode=post&f=" + strconv.Itoa(fo.ID), heading: "Post a new topic",
		subject: r.PostFormValue("subject"), message: r.PostFormValue("message")}
	key, ok := s.submitted(w, r, se, &f)
	if !ok {
		return
	}
	if strings.TrimSpace(f.subject) == "" {
		f.errs = append(f.errs, MsgEmptySubject)
	}
	if s.refused(w, r, se, &f) {
		return
	}
	s.useToken(key)
	s.nextID.topic++
	t := &Topic{ID: s.nextID.topic, ForumID: fo.ID, Title: strings.TrimSpace(f.subject)}
	s.topics[t.ID] = t
	s.publish(w, r, t, u, t.Title, f.message)
}

func (s *Server) editPost(w http.ResponseWriter, r *http.Request, se *session) {
	u := s.users[se.userID]
	p := s.postParam(w, r, se)
	if p == nil {
		return
	}
	if !u.Moderator && p.AuthorID != u.ID {
		s.message(w, r, se, http.StatusForbidden, e(MsgCannotEdit), "")
		return
	}
	t := s.topics[p.TopicID]
	f := postingForm{mode: "edit", action: "./posting.php?mode=edit&p=" + strconv.Itoa(p.ID), heading: "Edit post",
		subject: p.Subject, message: p.Source, topic: t, editReason: true}
	if r.Method == http.MethodPost {
		f.subject, f.message = r.PostFormValue("subject"), r.PostFormValue("message")
	}
	key, ok := s.submitted(w, r, se, &f)
	if !ok || s.refused(w, r, se, &f) {
		return
	}
	s.useToken(key)
	if strings.TrimSpace(f.subject) != "" {
		p.Subject = f.subject
	}
	s.edit(p, u, f.message, r.PostFormValue("edit_reason"))
	redirect(w, r, postURL(p.ID))
}

// postParam is the post the request's p names, or nil once the browser has
// been told there is no such post.
func (s *Server) postParam(w http.ResponseWriter, r *http.Request, se *session) *Post {
	p := s.posts[intParam(r, "p")]
	if p == nil {
		s.message(w, r, se, http.StatusNotFound, MsgNoPost, "")
	}
	return p
}

// submitted reports whether f was sent with Submit. If not (the form
// opened, or a preview), it shows the form and the caller is done. If so,
// the form token is checked first, as phpBB does, then flooding for a new
// post (an edit is not one), their failures the first of f's errors; key is
// for useToken once the post is made.
func (s *Server) submitted(w http.ResponseWriter, r *http.Request, se *session, f *postingForm) (key string, ok bool) {
	if !posted(r, "post") {
		s.postingForm(w, r, se, *f)
		return "", false
	}
	key, valid := s.checkToken(se, "posting", r)
	if !valid {
		f.errs = append(f.errs, MsgFormInvalid)
	}
	if f.mode != "edit" && s.flooded(s.users[se.userID]) {
		f.errs = append(f.errs, MsgFlood)
	}
	return key, true
}

// refused adds the message's own checks, the last ones, to f's errors; if
// there are any, it shows the form again with them and reports true.
func (s *Server) refused(w http.ResponseWriter, r *http.Request, se *session, f *postingForm) bool {
	f.errs = append(f.errs, checkMessage(f.message, s.opt.MaxPostChars)...)
	if len(f.errs) == 0 {
		return false
	}
	s.postingForm(w, r, se, *f)
	return true
}

// publish adds u's post to t, starts u's flood interval and sends the
// browser to the new post.
func (s *Server) publish(w http.ResponseWriter, r *http.Request, t *Topic, u *User, subject, message string) {
	if s.subjectTooLong(w, subject, "post_subject") {
		return
	}
	p := s.addPost(t, u.ID, u.Name, subject, message)
	u.lastPost = s.now()
	redirect(w, r, postURL(p.ID))
}

// postURL is a post's place in its topic.
func postURL(id int) string { return fmt.Sprintf("./viewtopic.php?p=%d#p%d", id, id) }

// deleteForm is the confirm_box flow: GET shows form#confirm with a
// confirm_key in the action; POST confirm=Yes with the same key deletes.
// Members may delete only their own post while it is the topic's last.
func (s *Server) deleteForm(w http.ResponseWriter, r *http.Request, se *session) {
	u := s.users[se.userID]
	p := s.postParam(w, r, se)
	if p == nil {
		return
	}
	t := s.topics[p.TopicID]
	if !u.Moderator && (p.AuthorID != u.ID || t.posts[len(t.posts)-1] != p.ID) {
		s.message(w, r, se, http.StatusForbidden, e(MsgCannotDelete), "")
		return
	}
	if r.Method == http.MethodPost && posted(r, "cancel") {
		redirect(w, r, postURL(p.ID))
		return
	}
	if r.Method == http.MethodPost && posted(r, "confirm") {
		if se.confirmKey == "" || r.URL.Query().Get("confirm_key") != se.confirmKey ||
			r.PostFormValue("confirm_uid") != strconv.Itoa(u.ID) || r.PostFormValue("sess") != se.id {
			s.message(w, r, se, http.StatusBadRequest, e(MsgFormInvalid), "")
			return
		}
		se.confirmKey = ""
		s.deletePost(p.ID)
		back := fmt.Sprintf("./viewforum.php?f=%d", t.ForumID)
		if s.topics[t.ID] != nil {
			back = fmt.Sprintf("./viewtopic.php?t=%d", t.ID)
		}
		s.message(w, r, se, http.StatusOK, e(MsgPostDeleted)+`<br /><br /><a href="`+e(back)+`">Return to the topic</a>`, back)
		return
	}
	se.confirmKey = strings.ToUpper(randHex(5))
	var b strings.Builder
	fmt.Fprintf(&b, "<form id=\"confirm\" action=\"./posting.php?mode=delete&amp;p=%d&amp;confirm_key=%s\" method=\"post\">\n<div class=\"panel\">\n<div class=\"inner\">\n", p.ID, se.confirmKey)
	b.WriteString("<h2 class=\"message-title\">Delete post</h2>\n<p>Are you sure you want to delete this post?</p>\n<fieldset class=\"submit-buttons\">\n")
	fmt.Fprintf(&b, "<input type=\"hidden\" name=\"p\" value=\"%d\" />\n<input type=\"hidden\" name=\"mode\" value=\"delete\" />\n<input type=\"hidden\" name=\"confirm_uid\" value=\"%d\" />\n<input type=\"hidden\" name=\"sess\" value=\"%s\" />\n<input type=\"hidden\" name=\"sid\" value=\"%s\" />\n", p.ID, u.ID, se.id, se.id)
	b.WriteString("<input type=\"submit\" name=\"confirm\" value=\"Yes\" class=\"button2\" />&nbsp;\n<input type=\"submit\" name=\"cancel\" value=\"No\" class=\"button2\" />\n</fieldset>\n</div>\n</div>\n</form>")
	s.page(w, r, se, "Delete post", b.String(), pageOpts{section: "section-posting"})
}

// postingForm renders posting_body.html with the editor.
func (s *Server) postingForm(w http.ResponseWriter, r *http.Request, se *session, f postingForm) {
	var b strings.Builder
	if f.topic != nil {
		fmt.Fprintf(&b, "<h2 class=\"posting-title\"><a href=\"./viewtopic.php?t=%d\">%s</a></h2>\n", f.topic.ID, e(f.topic.Title))
	}
	fmt.Fprintf(&b, "<form id=\"postform\" method=\"post\" action=\"%s\" enctype=\"multipart/form-data\">\n", e(f.action))
	if len(f.review) > 0 {
		// posting_review.html; the ids are ppr{ID}, not p{ID}.
		fmt.Fprintf(&b, "<div id=\"post-review-box\">\n<h3>Post review</h3>\n<p><strong>%s</strong></p>\n", e(MsgPostReview))
		for _, p := range f.review {
			fmt.Fprintf(&b, "<div class=\"post bg2\" id=\"ppr%d\">\n<div class=\"inner\">\n<div class=\"postbody\" id=\"pr%d\">\n<h3><a href=\"./viewtopic.php?p=%d#p%d\">%s</a></h3>\n<p class=\"author\">by <strong>%s</strong> &raquo; %s</p>\n<div class=\"content\">%s</div>\n</div>\n</div>\n</div>\n",
				p.ID, p.ID, p.ID, p.ID, e(p.Subject), s.userFull(p.AuthorID, p.AuthorName), e(s.date(p.Time)), p.HTML)
		}
		b.WriteString("</div>\n")
	}
	fmt.Fprintf(&b, "<div class=\"panel\" id=\"postingbox\">\n<div class=\"inner\">\n<h3>%s</h3>\n<fieldset class=\"fields1\">\n", e(f.heading))
	if len(f.errs) > 0 {
		b.WriteString(s.formErrors(f.errs))
	}
	b.WriteString(subjectField(f.subject))
	fmt.Fprintf(&b, "<div id=\"message-box\" class=\"message-box\"><textarea name=\"message\" id=\"message\" rows=\"15\" cols=\"76\" tabindex=\"4\" class=\"inputbox\">%s</textarea></div>\n", e(f.message))
	if f.editReason {
		b.WriteString("<dl>\n<dt><label for=\"edit_reason\">Reason for editing this post:</label></dt>\n<dd><input type=\"text\" name=\"edit_reason\" id=\"edit_reason\" value=\"\" class=\"inputbox\" /></dd>\n</dl>\n")
	}
	b.WriteString(editorButtonsOpen)
	if f.mode == "reply" {
		fmt.Fprintf(&b, "<input type=\"hidden\" name=\"topic_cur_post_id\" value=\"%d\" />\n", f.curPostID)
	}
	b.WriteString(s.tokenFields(se, "posting"))
	b.WriteString(editorButtonsClose)
	s.page(w, r, se, f.heading, b.String(), pageOpts{section: "section-posting"})
}
