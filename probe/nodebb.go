package probe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/nodebb"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/scraper"
)

// A NodeBB board (profile api: nodebb) is probed through its JSON API:
// login, the topic as JSON with the bot's privileges in it, the settings
// members see (post queue, chats), the bot's standing (an administrator
// skips the queue and the newbie delays), whether the bot may chat, and
// with PostTest one reply found again by its marker.

// newbieFix is what a GM does about NodeBB's newbie restrictions.
const newbieFix = "in the ACP (Settings → Posts, Settings → Chat) set \"Newbie post delay\" and \"Newbie chat message delay\" to 0, or the reputation threshold to 0; or make the accounts global moderators"

func runNodeBB(ctx context.Context, cfg Config) (*Report, error) {
	c, err := nodebb.New(cfg.URL, cfg.Profile, cfg.Creds, nodebb.Options{UserAgent: nodebb.UserAgent(versionOf(cfg.Scraper.UserAgent)),
		MinInterval: cfg.Scraper.MinInterval, Timeout: cfg.Scraper.Timeout})
	if err != nil {
		return nil, err
	}
	body, err := parser.NewBodyReader(cfg.Profile)
	if err != nil {
		return nil, err
	}
	p := &prober{cfg: cfg, prof: cfg.Profile, body: body,
		r: &Report{Board: cfg.URL, Profile: cfg.Profile.Name, Thread: cfg.Thread, Bot: cfg.Creds.Username, PostTest: cfg.PostTest, Posts: []Post{}}}
	login := Check{ID: "login", Title: "login", Needed: true}
	if err := c.Login(ctx); err != nil {
		login.Status, login.Detail = Fail, err.Error()
		switch {
		case errors.Is(err, scraper.ErrLoginRefused):
			login.Fix = "check the bot's user name and password (password_env / password_file)"
		case errors.Is(err, scraper.ErrUnavailable):
			login.Fix = "the board did not answer: check the url and that the board is up"
		default:
			login.Fix = "check the url (the board's root, where /api/config answers)"
		}
		p.add(login)
		for _, s := range []struct{ id, title string }{{"thread.first", "topic"}, {"thread.reply", "reply privilege"}, {"charset", "charset of the API's answers"},
			{"post_queue", "post queue"}, {"chats", "chats (private messages)"}} {
			p.add(Check{ID: s.id, Title: s.title, Status: Skipped, Needed: true, Detail: "not tried: the bot is not logged in"})
		}
		p.r.PMs = pmsVerdict(p.r.Checks)
		return p.r, nil
	}
	login.Status, login.Detail = OK, "logged in as "+cfg.Creds.Username
	p.add(login)
	self, selfErr := c.Self(ctx)
	site, siteErr := c.Config(ctx)

	// The topic and what the bot may do in it.
	access, terr := c.Topic(ctx, cfg.Thread)
	topic := Check{ID: "thread.first", Title: "topic", Needed: true}
	switch {
	case terr != nil:
		topic.Status, topic.Detail = Fail, terr.Error()
		topic.Fix = "check the topic id (thread:) and that the bot may read its category"
	case !access.Read:
		topic.Status, topic.Detail = Fail, "the bot may not read the topic"
		topic.Fix = "give the bot's group the category's read privileges"
	default:
		topic.Status, topic.Detail = OK, fmt.Sprintf("read as JSON, %d page(s)", access.Pages)
		err := c.ReadThread(ctx, cfg.Thread, nil, func(pg forum.ThreadPage) error {
			for _, fp := range pg.Posts {
				p.r.Posts = append(p.r.Posts, Post{ID: fp.ID, Page: pg.Number, Author: fp.Author.Name, AuthorID: fp.Author.ID,
					Time: fp.Time.UTC().Format(time.RFC3339), Precision: fp.Stamp.Precision.String(), TimeText: fp.Stamp.Text,
					Segments: orEmpty(body.Segments(fp.BodyHTML))})
			}
			if pg.Number >= 1 {
				return errStop // the first page is enough
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			topic.Status, topic.Detail = Fail, err.Error()
		}
	}
	p.add(topic)
	reply := Check{ID: "thread.reply", Title: "reply privilege", Needed: true}
	switch {
	case terr != nil:
		reply.Status, reply.Detail = Skipped, "not tried: the topic could not be read"
	case access.Deleted:
		reply.Status, reply.Detail, reply.Fix = Fail, "the topic is deleted", "restore the topic, or name another"
	case access.Locked && !access.AdminOrMod:
		reply.Status, reply.Detail, reply.Fix = Fail, "the topic is locked", "unlock the topic, or make the bot a moderator of its category"
	case !access.Reply:
		reply.Status, reply.Detail = Fail, "the bot may not reply in the topic"
		reply.Fix = "give the bot's group the category's \"Reply to topics\" privilege (ACP → Categories → Privileges)"
	default:
		reply.Status, reply.Detail = OK, "the bot may reply"
	}
	p.add(reply)

	if terr == nil {
		p.add(nodebbCharset(access.Encoding, p.prof.Charset))
	} else {
		p.add(Check{ID: "charset", Title: "charset of the API's answers", Needed: true, Status: Skipped, Detail: "not tried: the topic could not be read"})
	}

	exempt := selfErr == nil && self.Admin || terr == nil && access.AdminOrMod
	queue := Check{ID: "post_queue", Title: "post queue", Needed: true}
	switch {
	case siteErr != nil:
		queue.Status, queue.Detail = Unknown, siteErr.Error()
	case !site.PostQueue:
		queue.Status, queue.Detail = OK, "off"
	case terr == nil && access.CategoryQueue != nil && !*access.CategoryQueue:
		// NodeBB queues where both settings are on.
		queue.Status, queue.Detail = OK, "on for the board, but off in the topic's category"
	case exempt:
		queue.Status, queue.Needed = Warn, false
		queue.Detail = "on: the bot skips it (it is an administrator or moderates the topic's category), but players' posts may wait for a moderator's approval, and a command counts only once its post is in the topic"
		queue.Fix = "turn the post queue off (ACP → Settings → Posts), or exempt the players (its reputation threshold, or the groups exempt from it)"
	default:
		queue.Status = Fail
		queue.Detail = "on: the bot's replies would wait for a moderator's approval instead of going into the topic (NodeBB answers them \"queued\"), and so may players' posts"
		queue.Fix = "turn the post queue off (ACP → Settings → Posts), or make the bot a global moderator or put it in a group exempt from the queue"
	}
	p.add(queue)

	newbie := Check{ID: "newbie_delays", Title: "newbie delays"}
	switch {
	case selfErr != nil:
		newbie.Status, newbie.Detail = Unknown, selfErr.Error()
	case self.Muted || self.Banned:
		newbie.Status, newbie.Needed = Fail, true
		newbie.Detail = "the bot's account is muted or banned: it cannot post or chat"
		newbie.Fix = "unmute or unban the bot's account"
	case exempt:
		newbie.Status = Warn
		newbie.Detail = "the bot skips them (an administrator or moderator); NodeBB holds new players below its reputation threshold (3 by default) to one post every 120 s and one chat message every 120 s unless the admin set the newbie delays to 0 (members cannot see those settings)"
		newbie.Fix = newbieFix
	default:
		newbie.Status = Warn
		newbie.Detail = fmt.Sprintf("the bot has %d reputation: below the board's threshold (3 by default) NodeBB allows it one post and one chat message every 120 s unless the admin set the newbie delays to 0 (members cannot see those settings), and so its players", self.Reputation)
		newbie.Fix = newbieFix + "; with the delays on, a game's updates and receipts go out minutes late"
	}
	p.add(newbie)

	chats := Check{ID: "chats", Title: "chats (private messages)", Needed: true}
	switch {
	case siteErr != nil:
		chats.Status, chats.Detail = Unknown, siteErr.Error()
	case site.DisableChat:
		chats.Status, chats.Detail = Fail, "chats are disabled on the board"
		chats.Fix = pmFix(nil, "turn chats on (ACP → Settings → Chat)")
	default:
		if n, err := c.ChatsReadable(ctx); err != nil {
			chats.Status, chats.Detail = Fail, "the bot's chat rooms cannot be listed: "+err.Error()
			chats.Fix = pmFix(err, "give the bot's group the \"Chat\" privilege (ACP → Privileges)")
		} else {
			chats.Status, chats.Detail = OK, fmt.Sprintf("the bot's chat rooms are readable (%d listed)", n)
			for _, who := range access.Authors {
				if strings.EqualFold(who, cfg.Creds.Username) {
					continue
				}
				ok, err := c.CanChatWith(ctx, who)
				if err != nil {
					break
				}
				if !ok {
					chats.Status = Fail
					chats.Detail = fmt.Sprintf("the board does not let the bot chat with %s (the topic's author)", who)
					chats.Fix = pmFix(nil, "give the bot's group the \"Chat\" privilege (ACP → Privileges), and check that members may take chats from anyone")
				} else {
					chats.Detail += fmt.Sprintf("; the bot may chat with %s", who)
				}
				break
			}
		}
	}
	p.add(chats)

	if cfg.PostTest && reply.Status == OK && queue.Status != Fail {
		key := "probe." + time.Now().UTC().Format("20060102T150405") + "." + randHex(3)
		pt := Check{ID: "post_test.reply", Title: "test reply", Needed: true}
		id, err := poster.Patiently(ctx, c.Clock(), func() (string, error) {
			return c.Reply(ctx, cfg.Thread, "forumgm probe: a test post to check the bot can reply. Safe to delete.", key)
		})
		switch {
		case err != nil:
			pt.Status, pt.Detail = Fail, err.Error()
			pt.Fix = "the board refused the reply (its words above)"
		default:
			if found, ok, err := c.FindPost(ctx, cfg.Thread, key); err != nil || !ok || found != id {
				pt.Status, pt.Detail = Fail, fmt.Sprintf("posted #%s, but its marker was not found again (%v)", id, err)
			} else {
				pt.Status, pt.Detail = OK, fmt.Sprintf("posted #%s and found it again by its marker %s", id, key)
			}
		}
		p.add(pt)
		p.add(Check{ID: "post_test.pm", Title: "test chat", Status: Unknown,
			Detail: "NodeBB has no chat with oneself: a game's first role message is the first chat (its marker is checked as any send's)"})
	}
	p.r.OK = len(p.r.Failed()) == 0
	p.r.PMs = pmsVerdict(p.r.Checks)
	return p.r, nil
}

var errStop = errors.New("stop")

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// versionOf is the program's version in the scraper's User-Agent
// ("forumgm/VERSION (…)").
func versionOf(ua string) string {
	v, _, _ := strings.Cut(strings.TrimPrefix(ua, "forumgm/"), " ")
	return v
}

// nodebbCharset is the charset check on NodeBB (the classic boards'
// is charsets): NodeBB reads and writes UTF-8 JSON only, so there is
// nothing to set, but the probe confirms it from the topic's answer (a
// proxy in front of the board could re-encode it) and says so, as it says
// for the other engines.
func nodebbCharset(enc nodebb.Encoding, profCharset string) Check {
	c := Check{ID: "charset", Title: "charset of the API's answers", Needed: true}
	declared := enc.Charset
	if declared == "" {
		declared = "none named (JSON is UTF-8)"
	}
	switch {
	case profCharset != "" && !strings.EqualFold(strings.ReplaceAll(profCharset, "-", ""), "utf8"):
		c.Status = Fail
		c.Detail = fmt.Sprintf("the profile's charset %q: NodeBB takes and gives UTF-8 JSON only, and the bot would send its markers in another", profCharset)
		c.Fix = "remove charset from the profile (NodeBB is UTF-8 only)"
	case !enc.ValidUTF8:
		c.Status = Fail
		c.Detail = fmt.Sprintf("the topic's JSON is not UTF-8 (Content-Type %q): the bot would not find its markers in it", enc.ContentType)
		c.Fix = "NodeBB sends UTF-8: check what stands in front of the board (a proxy re-encoding its answers)"
	case !enc.UTF8():
		c.Status = Fail
		c.Detail = fmt.Sprintf("the topic's JSON says charset %q (Content-Type %q), but NodeBB sends UTF-8", enc.Charset, enc.ContentType)
		c.Fix = "NodeBB sends UTF-8: check what stands in front of the board (a proxy rewriting its Content-Type)"
	default:
		c.Status = OK
		c.Detail = fmt.Sprintf("the topic's JSON is UTF-8 (Content-Type %q, charset %s), and the bot sends UTF-8 JSON: nothing to set", enc.ContentType, declared)
	}
	return c
}
