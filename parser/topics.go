package parser

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/forumgm/forumgm/forum"
)

// TopicList is one page of a forum's topic list (urls.topic_list).
type TopicList struct {
	// Marks are the page's topics as the list shows them, in its order
	// (the newest last post first); Page and Pages its pagination.
	Marks       []forum.ThreadMark `json:"marks"`
	Page, Pages int                `json:"-"`
}

// Topics reads a topic list page: each row's topic id and its mark (the
// last post's id where the list shows one, else the last-post cell's text
// with every time_title's title in place of its own, and the replies
// count). Marks carry no Listed time: the caller knows when it asked.
func (x *Parser) Topics(doc *goquery.Document) TopicList {
	var l TopicList
	doc.FindMatcher(x.topicRow).Each(func(_ int, row *goquery.Selection) {
		id := ""
		row.FindMatcher(x.topicID).EachWithBreak(func(_ int, n *goquery.Selection) bool {
			id = group(x.reTopicID, attr(n, x.Profile.Selectors.TopicIDAttr))
			return id == ""
		})
		if id == "" {
			return
		}
		l.Marks = append(l.Marks, forum.ThreadMark{Thread: id, Sign: x.topicSign(row)})
	})
	var cur *html.Node
	if s := doc.FindMatcher(x.pageCur); s.Length() > 0 {
		cur = s.Nodes[0]
	}
	l.Page, l.Pages = pages(cur, doc.FindMatcher(x.pageLinks).Nodes)
	return l
}

// topicSign is what a row says of its topic's last post and replies.
func (x *Parser) topicSign(row *goquery.Selection) string {
	replies := collapse(row.FindMatcher(x.topicReplies).First().Text())
	if x.reTopicReplies != nil {
		replies = group(x.reTopicReplies, replies)
	}
	last := row.FindMatcher(x.topicLast).First()
	post := ""
	last.Find("a[href]").EachWithBreak(func(_ int, a *goquery.Selection) bool {
		post = group(x.reTopicLast, attr(a, "href"))
		return post == ""
	})
	if post != "" {
		return forum.PostSign(post, replies)
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			return
		case html.ElementNode:
			if n.Data == "br" {
				b.WriteByte(' ')
				return
			}
			if x.tmTitle.Match(n) {
				if t, ok := attrOf(n, "title"); ok && strings.TrimSpace(t) != "" {
					b.WriteString(" " + t + " ")
					return
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range last.Nodes {
		walk(n)
	}
	return "last " + collapse(b.String()) + ", replies " + replies
}
