package parser

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/forumgm/forumgm/forum"
)

// MemberAt reads the account a member page shows (a profile, or a search
// for one name): its name as the board writes it, and its user id when the
// page gives one. found is false when the page names no account. The
// selectors are compiled here rather than in New: a member page is read
// once per `replace`, and profiles without them still compile.
func (p *Parser) MemberAt(doc *goquery.Document) (a forum.Author, found bool, err error) {
	s := p.Profile.Selectors
	if strings.TrimSpace(s.MemberName) == "" {
		return a, false, fmt.Errorf("profile %s has no member_name selector", p.Profile.Name)
	}
	name, err := compileSel("member_name", s.MemberName)
	if err != nil {
		return a, false, err
	}
	doc.FindMatcher(name).EachWithBreak(func(_ int, n *goquery.Selection) bool {
		if s.MemberNameOwn {
			var own strings.Builder
			n.Contents().Each(func(_ int, c *goquery.Selection) {
				if c.Nodes[0].Type == html.TextNode {
					own.WriteString(c.Nodes[0].Data)
				}
			})
			a.Name = strings.TrimSpace(own.String())
		} else {
			a.Name = strings.TrimSpace(n.Text())
		}
		return a.Name == ""
	})
	if a.Name == "" {
		return a, false, nil
	}
	if p.Profile.NamesAreIDs() {
		a.Name = collapse(a.Name)
		a.ID = a.Name // user_ids: names
		return a, true, nil
	}
	if s.MemberID == "" || s.MemberIDRegexp == "" {
		return a, true, nil
	}
	idSel, err := compileSel("member_id", s.MemberID)
	if err != nil {
		return a, false, err
	}
	re, err := regexp.Compile(s.MemberIDRegexp)
	if err != nil {
		return a, false, fmt.Errorf("profile %s: member_id_regexp: %w", p.Profile.Name, err)
	}
	doc.FindMatcher(idSel).EachWithBreak(func(_ int, n *goquery.Selection) bool {
		v := strings.TrimSpace(n.Text())
		if s.MemberIDAttr != "" {
			v, _ = n.Attr(s.MemberIDAttr)
		}
		if m := re.FindStringSubmatch(v); len(m) > 1 {
			a.ID = m[1]
		}
		return a.ID == ""
	})
	return a, true, nil
}
