package webdesk

import (
	"fmt"
	"html"
	"html/template"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/forumgm/forumgm/bbcode"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/signups"
	"github.com/forumgm/forumgm/store"
)

var funcs = template.FuncMap{
	"stamp": stamp,
	// msgWhen: a post's or PM's board time as finely as its stamp gives it.
	"msgWhen": func(m store.Message, loc *time.Location) string {
		return m.WhenText(loc, "Mon 2 Jan 2006, 15:04:05 MST")
	},
	"when":      rules.When,
	"zone":      zoneName,
	"until":     until,
	"iso":       func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"bbcode":    func(s string) template.HTML { return template.HTML(bbcode.Render(s, bbcode.Options{NoAutolink: true})) },
	"tree":      tree,
	"plural":    plural,
	"join":      func(xs []string) string { return list(xs) },
	"path":      url.PathEscape,
	"upper":     strings.ToUpper,
	"string":    func(v any) string { return fmt.Sprint(v) },
	"add":       func(a, b int) int { return a + b },
	"dl":        func(r moderator.GameReport, now time.Time) deadline { return deadline{r, now} },
	"who":       who,
	"slug":      slug,
	"formWords": formWords.Replace,
	"signupsOf": func(l *signups.List, game, csrf string) signupsBox {
		return signupsBox{List: l, Game: game, CSRF: csrf}
	},
	// inboxWaits: what waits while the PM inbox cannot be read.
	"inboxWaits": func() string { return moderator.InboxWaits },
	"inSection": func(t rules.Table, title string) sectionTable {
		return sectionTable{t, strings.EqualFold(strings.TrimSpace(t.Caption), strings.TrimSpace(title))}
	},
}

// sectionTable is a table with whether its caption only says its
// section's title again.
type sectionTable struct {
	Table       rules.Table
	SameAsTitle bool
}

// who lists player names, each in <bdi>: a name with a right-to-left mark
// in it must not turn the text after it around ("—" for none).
func who(names []string) template.HTML {
	if len(names) == 0 {
		return "—"
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = "<bdi>" + html.EscapeString(n) + "</bdi>"
	}
	return template.HTML(strings.Join(parts, ", "))
}

// stamp is how the desk writes a time: as the game's posts do (rules.When),
// in the game's board time zone with the zone named, to the second. The
// zone is the game's (GameReport.Zone); a time without one is in UTC, never
// the server's local zone, which the GM and players do not share.
func stamp(t time.Time, zone ...*time.Location) string {
	if t.IsZero() {
		return "—"
	}
	loc := time.UTC
	if len(zone) > 0 && zone[0] != nil {
		loc = zone[0]
	}
	return t.In(loc).Format("Mon 2 Jan 2006, 15:04:05 MST")
}

// zoneName names a board's time zone ("Europe/Berlin", "UTC-5").
func zoneName(loc *time.Location) string {
	if loc == nil {
		return "UTC"
	}
	return loc.String()
}

// until is the time left before t, as the countdown script also writes it.
func until(t, now time.Time) string {
	d := t.Sub(now).Round(time.Second)
	if d <= 0 {
		return "passed"
	}
	days := d / (24 * time.Hour)
	d -= days * 24 * time.Hour
	h := d / time.Hour
	d -= h * time.Hour
	m := d / time.Minute
	s := (d - m*time.Minute) / time.Second
	switch {
	case days > 0:
		return fmt.Sprintf("in %dd %dh %dm", days, h, m)
	case h > 0:
		return fmt.Sprintf("in %dh %dm %ds", h, m, s)
	case m > 0:
		return fmt.Sprintf("in %dm %ds", m, s)
	}
	return fmt.Sprintf("in %ds", s)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "—"
	}
	return strings.Join(xs, ", ")
}

// tree renders plain JSON values (objects, arrays, strings, numbers) as
// nested tables, for any game's state or view. Every string is escaped
// here, as html/template would.
// A string that is a time (RFC 3339, as states keep them) is written as
// stamp writes it, in zone (the game's board time zone) when given.
func tree(v any, zone ...*time.Location) template.HTML {
	var b strings.Builder
	var loc *time.Location
	if len(zone) > 0 {
		loc = zone[0]
	}
	writeTree(&b, v, loc)
	return template.HTML(b.String())
}

func writeTree(b *strings.Builder, v any, loc *time.Location) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			b.WriteString(`<span class="dim">—</span>`)
			return
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString(`<table class="tree">`)
		for _, k := range keys {
			fmt.Fprintf(b, `<tr><th>%s</th><td>`, html.EscapeString(humanKey(k)))
			writeTree(b, x[k], loc)
			b.WriteString(`</td></tr>`)
		}
		b.WriteString(`</table>`)
	case []any:
		if len(x) == 0 {
			b.WriteString(`<span class="dim">—</span>`)
			return
		}
		if scalars(x) {
			parts := make([]string, len(x))
			for i, e := range x {
				parts[i] = html.EscapeString(scalar(e, loc))
			}
			b.WriteString(strings.Join(parts, ", "))
			return
		}
		b.WriteString(`<ol class="tree">`)
		for _, e := range x {
			b.WriteString(`<li>`)
			writeTree(b, e, loc)
			b.WriteString(`</li>`)
		}
		b.WriteString(`</ol>`)
	default:
		b.WriteString(html.EscapeString(scalar(x, loc)))
	}
}

// humanKey writes a state's field name as words ("fails_at": "fails at").
func humanKey(k string) string { return strings.ReplaceAll(k, "_", " ") }

func scalars(xs []any) bool {
	for _, x := range xs {
		switch x.(type) {
		case map[string]any, []any:
			return false
		}
	}
	return true
}

func scalar(v any, loc *time.Location) string {
	switch x := v.(type) {
	case nil:
		return "—"
	case string:
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil && strings.Contains(x, "T") {
			return stamp(t, loc)
		}
		return x
	case float64:
		if x == float64(int64(x)) {
			return fmt.Sprint(int64(x))
		}
		return fmt.Sprint(x)
	}
	return fmt.Sprint(v)
}

// deadline is what the "deadline" template shows: a game's deadline and
// the time now, for the countdown's first text.
type deadline struct {
	R   moderator.GameReport
	Now time.Time
}

// slug is a heading as an id: "Proposals and votes" is proposals-and-votes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// signupsBox is a game's sign-ups with what their controls need.
type signupsBox struct {
	List *signups.List
	Game string
	CSRF string
}
