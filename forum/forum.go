// Package forum owns the forum vocabulary shared by the parser, the scraper,
// the poster, the simulator and the moderator: posts, private messages,
// thread references, and engine profiles (URLs, selectors, form fields and
// time formats as data), so another engine is a profile away.
package forum

import (
	"errors"
	"html"
	"strings"
	"time"
)

// ErrPermanent marks a send the board refused for good (an unknown
// recipient, a locked topic): retrying will not help. A forum connection
// wraps such errors with it; the moderator gives the message up as failed
// and goes on with the others.
var ErrPermanent = errors.New("the forum refused it")

// Author is who wrote a post or PM. ID is the forum's user id where the page
// gives one ("" for guests); players are identified by it when known.
type Author struct {
	Name string `json:"name"`
	ID   string `json:"id,omitempty"`
}

// Post is one post of a thread as read from a page.
type Post struct {
	ID     string `json:"id"`
	Author Author `json:"author"`
	// Time is Stamp.Earliest (zero when the stamp is unreadable); kept for
	// callers that want one instant.
	Time time.Time `json:"time"`
	// Stamp is what the board's time stamp allows (an interval, or an
	// unreadable-time marker with the raw text).
	Stamp Stamp `json:"stamp"`
	// BodyHTML is the inner HTML of the post's content node.
	BodyHTML string `json:"body_html"`
	// Edited is true when the page shows an edit notice; EditNotice is its text.
	Edited     bool   `json:"edited"`
	EditNotice string `json:"edit_notice,omitempty"`
	// Page is the 1-based page the post was read from.
	Page int `json:"page,omitempty"`
	// Commands are the post's commands as the board's body reader reads
	// them from BodyHTML (parser.BodyReader.Segments), read with the page
	// when CommandsRead, so nobody parses the body again for them; a
	// source that does not read them leaves both unset.
	Commands     []string `json:"commands,omitempty"`
	CommandsRead bool     `json:"-"`
}

// PMHeader is one row of the PM inbox.
type PMHeader struct {
	ID      string    `json:"id"`
	Subject string    `json:"subject"`
	From    Author    `json:"from"`
	Time    time.Time `json:"time,omitzero"` // Stamp.Earliest; zero where the list shows no readable time
	Stamp   Stamp     `json:"stamp"`
	Unread  bool      `json:"unread"`
}

// PrivateMessage is one PM as read from its page.
type PrivateMessage struct {
	ID       string    `json:"id"`
	Subject  string    `json:"subject"`
	From     Author    `json:"from"`
	Time     time.Time `json:"time"` // Stamp.Earliest (zero when unreadable)
	Stamp    Stamp     `json:"stamp"`
	BodyHTML string    `json:"body_html"`
	// Commands are the PM's command lines (parser.BodyReader.Lines of
	// BodyHTML), read with its page when CommandsRead, as a Post's.
	Commands     []string `json:"commands,omitempty"`
	CommandsRead bool     `json:"-"`
}

// ThreadRef names a thread on a forum.
type ThreadRef struct {
	BaseURL string `json:"base_url"` // e.g. http://127.0.0.1:8080/ (the board root)
	Engine  string `json:"engine"`   // profile name: "phpbb", "mybb"
	Forum   string `json:"forum,omitempty"`
	Thread  string `json:"thread"` // topic id
}

// Credentials of the bot account. Never logged, never stored in the database.
type Credentials struct {
	Username string
	Password string
}

// unreadablePrefix opens the body the parser puts in place of a post or PM
// it could not take (nested deeper than an HTML parser allows): a class no
// board lets a user set, so no real body starts with it.
const unreadablePrefix = `<div class="forumgm-unreadable">`

// UnreadableBody is what an unreadable post's or PM's body is recorded as:
// the reason, for the GM's audit log. No command is read from it.
func UnreadableBody(reason string) string {
	return unreadablePrefix + html.EscapeString(reason) + `</div>`
}

// IsUnreadable tells a body made by UnreadableBody.
func IsUnreadable(body string) bool { return strings.HasPrefix(body, unreadablePrefix) }

// UnreadableReason is the reason an unreadable body holds, as text ("" for
// a readable body).
func UnreadableReason(body string) string {
	if !IsUnreadable(body) {
		return ""
	}
	return html.UnescapeString(strings.TrimSuffix(strings.TrimPrefix(body, unreadablePrefix), `</div>`))
}
