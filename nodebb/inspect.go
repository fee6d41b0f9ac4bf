package nodebb

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// What the probe asks of a board before a game: its settings as members
// see them, the bot's standing, the topic's privileges and whether the
// bot may chat.

// SiteConfig is what /api/config shows members of the board's settings.
type SiteConfig struct {
	PostQueue   bool
	DisableChat bool
	Maintenance bool
	MinPostLen  int
	MaxChatLen  int
}

// Config reads the board's settings as the logged-in bot sees them.
func (c *Client) Config(ctx context.Context) (SiteConfig, error) {
	if _, _, err := c.session(ctx); err != nil {
		return SiteConfig{}, err
	}
	cfg, err := c.config(ctx)
	if err != nil {
		return SiteConfig{}, err
	}
	return SiteConfig{PostQueue: cfg.PostQueue != 0, DisableChat: cfg.DisableChat, Maintenance: cfg.Maintenance,
		MinPostLen: cfg.MinPostLen, MaxChatLen: cfg.MaxChatLen}, nil
}

// Self is the bot's standing on the board.
type Self struct {
	UID        string
	Username   string
	Reputation int
	Admin      bool // an administrator: no post queue, no delays
	Muted      bool
	Banned     bool
}

// Self reads the bot's own account.
func (c *Client) Self(ctx context.Context) (Self, error) {
	var s struct {
		UID        json.Number `json:"uid"`
		Username   string      `json:"username"`
		Reputation int         `json:"reputation"`
		IsAdmin    bool        `json:"isAdmin"`
		Muted      bool        `json:"muted"`
		Banned     bool        `json:"banned"`
	}
	if err := c.getJSON(ctx, "api/self", &s); err != nil {
		return Self{}, err
	}
	return Self{UID: s.UID.String(), Username: s.Username, Reputation: s.Reputation, Admin: s.IsAdmin, Muted: s.Muted, Banned: s.Banned}, nil
}

// TopicAccess is what the bot may do in a topic.
type TopicAccess struct {
	Read, Reply     bool
	AdminOrMod      bool // the bot moderates it (no post queue, no delays)
	Locked, Deleted bool
	Pages           int
	// CategoryQueue is the topic's category's post queue setting (nil
	// when the answer does not say).
	CategoryQueue *bool
	// Authors are the user names of the first page's posts.
	Authors []string
	// Encoding is how the board's JSON came: the answer's Content-Type
	// and whether its bytes are UTF-8.
	Encoding Encoding
}

// Encoding is how an answer of the board's API is encoded.
type Encoding struct {
	ContentType string
	// Charset is the Content-Type's charset ("" when it names none:
	// JSON is UTF-8 by RFC 8259).
	Charset string
	// ValidUTF8: the answer's bytes are UTF-8 (every one's must be: the
	// bot finds its markers, "·" and all, in them).
	ValidUTF8 bool
}

// UTF8 says whether the answer is JSON in UTF-8 as NodeBB sends it.
func (e Encoding) UTF8() bool {
	return e.ValidUTF8 && (e.Charset == "" || strings.EqualFold(e.Charset, "utf-8") || strings.EqualFold(e.Charset, "utf8"))
}

// Topic reads the topic's first page as the bot: its privileges there,
// and how the answer is encoded.
func (c *Client) Topic(ctx context.Context, thread string) (TopicAccess, error) {
	var t apiTopic
	rel := "api/topic/" + url.PathEscape(thread)
	r, err := c.call(ctx, http.MethodGet, rel, nil, false)
	if err != nil {
		return TopicAccess{}, err
	}
	if err := decodeAnswer(rel, r, &t); err != nil {
		return TopicAccess{}, err
	}
	a := TopicAccess{Read: t.Privileges.Read, Reply: t.Privileges.Reply, AdminOrMod: t.Privileges.AdminOrMod,
		Locked: bool(t.Locked), Deleted: bool(t.Deleted), Pages: max(t.Pagination.PageCount, 1)}
	if q := t.Category.PostQueue; q != nil {
		on := bool(*q)
		a.CategoryQueue = &on
	}
	ct := r.header.Get("Content-Type")
	a.Encoding = Encoding{ContentType: ct, ValidUTF8: utf8.Valid(r.body)}
	if _, params, err := mime.ParseMediaType(ct); err == nil {
		a.Encoding.Charset = params["charset"]
	}
	for _, p := range t.Posts {
		a.Authors = append(a.Authors, p.User.Username)
	}
	return a, nil
}

// CanChatWith says whether the board lets the bot chat with the member
// (their profile's canChat, as the bot sees it: the chat privilege, the
// member's chat settings).
func (c *Client) CanChatWith(ctx context.Context, name string) (bool, error) {
	// /api/user/username/NAME is the account; its profile page
	// (/api/user/SLUG) says canChat.
	var slug struct {
		Userslug string `json:"userslug"`
	}
	if err := c.getJSON(ctx, "api/user/username/"+url.PathEscape(name), &slug); err != nil {
		return false, err
	}
	var u struct {
		CanChat bool `json:"canChat"`
	}
	if err := c.getJSON(ctx, "api/user/"+url.PathEscape(slug.Userslug), &u); err != nil {
		return false, err
	}
	return u.CanChat, nil
}

// ChatsReadable lists the bot's first chat rooms (the inbox the bot reads).
func (c *Client) ChatsReadable(ctx context.Context) (rooms int, err error) {
	var list struct {
		Rooms []apiRoom `json:"rooms"`
	}
	err = c.getJSON(ctx, "api/v3/chats?start=0&stop=19", &list)
	return len(list.Rooms), err
}
