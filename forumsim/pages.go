package forumsim

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

var e = html.EscapeString

// phpBB's default date format "D M d, Y g:i a".
const dateLayout = "Mon Jan 02, 2006 3:04 pm"

func (s *Server) date(t time.Time) string { return t.In(s.opt.Location).Format(dateLayout) }

// rfc3339 is PHP's DATE_RFC3339 of gmdate: "+00:00", never "Z".
func rfc3339(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05-07:00") }

func profileURL(id int) string { return "./memberlist.php?mode=viewprofile&u=" + strconv.Itoa(id) }

// userFull is get_username_string('full'): a profile link for members
// (coloured for moderators, like the Global moderators group), a span for guests.
func (s *Server) userFull(id int, name string) string {
	u := s.users[id]
	if id == 0 || u == nil {
		return `<span class="username">` + e(name) + `</span>`
	}
	if u.Moderator {
		return `<a href="` + e(s.profileLink(id)) + `" style="color: #00AA00;" class="username-coloured">` + e(u.Name) + `</a>`
	}
	return `<a href="` + e(s.profileLink(id)) + `" class="username">` + e(u.Name) + `</a>`
}

// pageOpts are the extras of one page render.
type pageOpts struct {
	status  int
	refresh string // meta refresh target (relative)
	section string // body class: section-viewtopic, …
	forum   *Forum // the forum the page is in: its breadcrumb (navbar_header.html)
}

// page writes a full prosilver-like page around body.
func (s *Server) page(w http.ResponseWriter, r *http.Request, se *session, title, body string, po pageOpts) {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html dir=\"ltr\" lang=\"en-gb\">\n<head>\n<meta charset=\"%s\" />\n", s.metaCharset())
	b.WriteString(`<meta http-equiv="X-UA-Compatible" content="IE=edge">` + "\n")
	if po.refresh != "" {
		fmt.Fprintf(&b, "<meta http-equiv=\"refresh\" content=\"3; url=%s\" />\n", e(po.refresh))
	}
	fmt.Fprintf(&b, "<title>%s - %s</title>\n", e(title), e(s.opt.Sitename))
	b.WriteString(style)
	b.WriteString("</head>\n")
	section := po.section
	if section == "" {
		section = "section-index"
	}
	fmt.Fprintf(&b, "<body id=\"phpbb\" class=\"nojs notouch %s ltr\">\n<div id=\"wrap\" class=\"wrap\">\n", section)
	b.WriteString(`<a id="top" class="top-anchor" accesskey="t"></a>` + "\n")
	b.WriteString("<div id=\"page-header\">\n<div class=\"headerbar\" role=\"banner\"><div class=\"inner\">\n")
	fmt.Fprintf(&b, "<div id=\"site-description\" class=\"site-description\"><a id=\"logo\" class=\"logo\" href=\"./index.php\" title=\"Board index\"></a><h1>%s</h1><p>A simulated phpBB board</p></div>\n", e(s.opt.Sitename))
	b.WriteString("</div></div>\n<div class=\"navbar\" role=\"navigation\"><div class=\"inner\">\n")
	b.WriteString("<ul id=\"nav-main\" class=\"nav-main linklist\" role=\"menubar\">\n")
	b.WriteString("<li class=\"rightside\" data-skip-responsive=\"true\"><a href=\"./faq.php\" rel=\"help\" title=\"Frequently Asked Questions\" role=\"menuitem\"><span>FAQ</span></a></li>\n")
	if se.registered() && !s.opt.NoPMs {
		u := s.users[se.userID]
		unread := 0
		for _, m := range s.pms {
			if m.Unread[u.ID] {
				unread++
			}
		}
		b.WriteString("<li class=\"rightside\" data-skip-responsive=\"true\"><a href=\"./ucp.php?i=pm&amp;folder=inbox\" role=\"menuitem\"><span>Private messages</span>")
		if unread > 0 {
			fmt.Fprintf(&b, " <strong class=\"badge\">%d</strong>", unread)
		}
		b.WriteString("</a></li>\n")
	}
	// The rows layout's PM pages show no logout link, nor the member's
	// menu: only the PM link above says who is in.
	bare := s.rows() && po.section == "section-ucp"
	if se.registered() && !bare {
		u := s.users[se.userID]
		fmt.Fprintf(&b, "<li id=\"username_logged_in\" class=\"rightside\" data-skip-responsive=\"true\">\n<div class=\"header-profile dropdown-container\">\n<a href=\"./ucp.php\" class=\"header-avatar dropdown-trigger\"><span class=\"username\">%s</span></a>\n", e(u.Name))
		fmt.Fprintf(&b, "<div class=\"dropdown\"><ul class=\"dropdown-contents\" role=\"menu\">\n<li><a href=\"./ucp.php\" title=\"User Control Panel\" role=\"menuitem\"><span>User Control Panel</span></a></li>\n<li><a href=\"%s\" title=\"Profile\" role=\"menuitem\"><span>Profile</span></a></li>\n", e(s.profileLink(u.ID)))
		fmt.Fprintf(&b, "<li class=\"separator\"></li>\n<li><a href=\"./ucp.php?mode=logout&amp;sid=%s\" title=\"Logout\" accesskey=\"x\" role=\"menuitem\"><span>Logout</span></a></li>\n</ul></div>\n</div>\n</li>\n", e(se.id))
	} else if !se.registered() {
		redirect := strings.TrimPrefix(r.URL.RequestURI(), boardDir(r))
		if strings.Contains(redirect, "mode=login") || redirect == "" {
			redirect = "index.php"
		}
		fmt.Fprintf(&b, "<li class=\"rightside\" data-skip-responsive=\"true\"><a href=\"./ucp.php?mode=login&amp;redirect=%s\" title=\"Login\" accesskey=\"x\" role=\"menuitem\"><span>Login</span></a></li>\n", e(url.QueryEscape(redirect)))
		b.WriteString("<li class=\"rightside\" data-skip-responsive=\"true\"><a href=\"./ucp.php?mode=register\" role=\"menuitem\"><span>Register</span></a></li>\n")
	}
	b.WriteString("</ul>\n<ul id=\"nav-breadcrumbs\" class=\"nav-breadcrumbs linklist navlinks\" role=\"menubar\"><li class=\"breadcrumbs\"><span class=\"crumb\"><a href=\"./index.php\" accesskey=\"h\">Board index</a></span>")
	if f := po.forum; f != nil {
		fmt.Fprintf(&b, "\n<span class=\"crumb\" data-forum-id=\"%d\"><a href=\"./viewforum.php?f=%d\">%s</a></span>", f.ID, f.ID, e(f.Name))
	}
	b.WriteString("</li></ul>\n")
	b.WriteString("</div></div>\n</div>\n\n<div id=\"page-body\" class=\"page-body\" role=\"main\">\n")
	b.WriteString(body)
	b.WriteString("\n</div>\n\n<div id=\"page-footer\" class=\"page-footer\" role=\"contentinfo\"><div class=\"copyright\">Powered by forumgm's phpBB simulator</div></div>\n</div>\n</body>\n</html>\n")
	if s.opt.CharsetInMeta {
		w.Header().Set("Content-Type", "text/html")
	} else {
		w.Header().Set("Content-Type", "text/html; charset="+s.charsetLabel())
	}
	w.Header().Set("Cache-Control", "private, no-cache")
	status := po.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = w.Write(s.encodePage(b.String()))
}

// message is trigger_error: a panel#message with the text in a <p>.
func (s *Server) message(w http.ResponseWriter, r *http.Request, se *session, status int, text, refresh string) {
	body := "<div class=\"panel\" id=\"message\">\n<div class=\"inner\">\n<h2 class=\"message-title\">Information</h2>\n<p>" + text + "</p>\n</div>\n</div>"
	if s.rows() {
		body = msgBox(text)
	}
	s.page(w, r, se, "Information", body, pageOpts{status: status, refresh: refresh})
}

// boardDir is the directory of the board in the request path ("/" or "/forum/").
func boardDir(r *http.Request) string {
	p := r.URL.Path
	i := strings.LastIndex(p, "/")
	return p[:i+1]
}

// absURL makes a board-relative URL absolute, as phpBB's redirect() does.
func absURL(r *http.Request, rel string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + boardDir(r) + strings.TrimPrefix(rel, "./")
}

// pagination renders phpBB's generate_template_pagination for the topic.
func pagination(base string, total, perPage, start int, noun string) string {
	pages := (total + perPage - 1) / perPage
	if pages < 1 {
		pages = 1
	}
	on := start/perPage + 1
	var b strings.Builder
	b.WriteString("<div class=\"pagination\">\n")
	if total == 1 {
		fmt.Fprintf(&b, "1 %s\n", noun)
	} else {
		fmt.Fprintf(&b, "%d %ss\n", total, noun)
	}
	if pages == 1 {
		b.WriteString("&bull; Page <strong>1</strong> of <strong>1</strong>\n</div>\n")
		return b.String()
	}
	link := func(p int) string {
		if p == 1 {
			return base
		}
		return base + "&start=" + strconv.Itoa((p-1)*perPage)
	}
	b.WriteString("<ul>\n")
	if on > 1 {
		fmt.Fprintf(&b, "<li class=\"arrow previous\"><a class=\"button button-icon-only\" href=\"%s\" rel=\"prev\" role=\"button\"><span class=\"sr-only\">Previous</span></a></li>\n", e(link(on-1)))
	}
	startPage, endPage := 1, pages
	if pages > 5 {
		startPage = min(max(1, on-2), pages-4)
		endPage = max(min(pages, on+2), 5)
	}
	item := func(p int) {
		if p == on {
			fmt.Fprintf(&b, "<li class=\"active\"><span>%d</span></li>\n", p)
			return
		}
		fmt.Fprintf(&b, "<li><a class=\"button\" href=\"%s\" role=\"button\">%d</a></li>\n", e(link(p)), p)
	}
	if startPage > 1 {
		item(1)
		if startPage > 2 {
			b.WriteString("<li class=\"ellipsis\" role=\"separator\"><span>…</span></li>\n")
		}
	}
	for p := startPage; p <= endPage; p++ {
		item(p)
	}
	if endPage < pages {
		if endPage < pages-1 {
			b.WriteString("<li class=\"ellipsis\" role=\"separator\"><span>…</span></li>\n")
		}
		item(pages)
	}
	if on < pages {
		fmt.Fprintf(&b, "<li class=\"arrow next\"><a class=\"button button-icon-only\" href=\"%s\" rel=\"next\" role=\"button\"><span class=\"sr-only\">Next</span></a></li>\n", e(link(on+1)))
	}
	b.WriteString("</ul>\n</div>\n")
	return b.String()
}

// loginForm is login_body.html; explain is shown above the form (why a
// login is needed), errText in div.error.
func (s *Server) loginForm(w http.ResponseWriter, r *http.Request, se *session, redirect, explain, errText, username string, status int) {
	var b strings.Builder
	b.WriteString("<form action=\"./ucp.php?mode=login\" method=\"post\" id=\"login\" data-focus=\"username\">\n<div class=\"panel\">\n<div class=\"inner\">\n<div class=\"content\">\n")
	b.WriteString("<h2 class=\"login-title\">Login</h2>\n")
	if explain != "" {
		fmt.Fprintf(&b, "<p>%s</p>\n", e(explain))
	}
	b.WriteString("<fieldset class=\"fields1\">\n")
	if errText != "" {
		fmt.Fprintf(&b, "<div class=\"error\">%s</div>\n", errText)
	}
	fmt.Fprintf(&b, "<dl>\n<dt><label for=\"username\">Username:</label></dt>\n<dd><input type=\"text\" tabindex=\"1\" name=\"username\" id=\"username\" size=\"25\" value=\"%s\" class=\"inputbox autowidth\" /></dd>\n</dl>\n", e(username))
	b.WriteString("<dl>\n<dt><label for=\"password\">Password:</label></dt>\n<dd><input type=\"password\" tabindex=\"2\" id=\"password\" name=\"password\" size=\"25\" class=\"inputbox autowidth\" autocomplete=\"off\" /></dd>\n</dl>\n")
	b.WriteString("<dl>\n<dd><label for=\"autologin\"><input type=\"checkbox\" name=\"autologin\" id=\"autologin\" tabindex=\"4\" /> Remember me</label></dd>\n<dd><label for=\"viewonline\"><input type=\"checkbox\" name=\"viewonline\" id=\"viewonline\" tabindex=\"5\" /> Hide my online status this session</label></dd>\n</dl>\n")
	fmt.Fprintf(&b, "<input type=\"hidden\" name=\"redirect\" value=\"%s\" />\n", e(redirect))
	b.WriteString(s.tokenFields(se, "login"))
	fmt.Fprintf(&b, "<dl>\n<dt>&nbsp;</dt>\n<dd><input type=\"hidden\" name=\"sid\" value=\"%s\" />\n<input type=\"submit\" name=\"login\" tabindex=\"6\" value=\"Login\" class=\"button1\" /></dd>\n</dl>\n", e(se.id))
	b.WriteString("</fieldset>\n</div>\n</div>\n</div>\n</form>")
	s.page(w, r, se, "Login", b.String(), pageOpts{status: status, section: "section-ucp"})
}
