package probe

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/scraper"
)

// seenPage is a page the probe read whose charset the charset check
// weighs: a thread page (what the bot reads its markers from) or a form's
// page (what it submits from), with the charset the form goes out in.
type seenPage struct {
	what   string
	pg     *scraper.Page
	submit string // a form page's: the charset the form is submitted in
}

func (p *prober) saw(what string, pg *scraper.Page, submit string) {
	if pg != nil && pg.Doc != nil {
		p.pages = append(p.pages, seenPage{what: what, pg: pg, submit: submit})
	}
}

// adminFix is where a board's admin sets the charset, engine by engine.
const adminFix = "have the board's admin make its pages declare the charset it stores (MyBB: $langinfo['charset'] in the language file, inc/languages/english.php; SMF: $txt['lang_character_set'] in the language file, or the global_character_set setting; phpBB 3 is UTF-8 only)"

// charsets is the check that the bot submits in the charset the board's
// pages are in (issue 44: a board in ISO-8859-1 that got forms in UTF-8
// showed the marker's "·" as "Â·", and the bot, never finding its marker,
// posted again and again). It compares, without submitting anything, each
// form's charset (its accept-charset, else its page's; the profile's
// charset over both) with the charset of the thread's pages, and says
// where a page contradicts itself.
func (p *prober) charsets() {
	c := Check{ID: "charset", Title: "charset of pages and forms", Needed: true, Status: OK}
	var threads, forms []seenPage
	for _, sp := range p.pages {
		if sp.submit == "" {
			threads = append(threads, sp)
		} else {
			forms = append(forms, sp)
		}
	}
	if len(threads) == 0 {
		c.Status, c.Detail = Skipped, "not tried: no thread page was read"
		p.add(c)
		return
	}
	thread := threads[0]
	read := thread.pg.Charset
	prof, _ := scraper.ProfileCharset(p.prof.Charset)
	// The charset to suggest: the thread's, unless a thread page is read
	// as UTF-8 but is not, and its <meta> names another (a Content-Type
	// that contradicts the board's own pages), or declares nothing (read
	// as windows-1252 then).
	suggest := read.Name
	for _, sp := range threads {
		switch {
		case !sp.pg.Charset.IsUTF8():
			suggest = sp.pg.Charset.Name
		case !utf8.Valid(sp.pg.Body):
			if label, _ := parser.MetaCharset(sp.pg.Body); label != "" {
				if name, ok := parser.LookupCharset(label); ok && name != parser.UTF8 {
					suggest = name
				}
			}
		}
	}
	var warns, fails []string
	var fix []string
	key := ""

	// The profile's charset against what the pages declare.
	if prof.Name != "" {
		declared := parser.PageCharset(thread.pg.Header.Get("Content-Type"), thread.pg.Body)
		if declared.Source != parser.FromNothing && declared.Name != prof.Name {
			fails = append(fails, fmt.Sprintf("the profile's charset %q overrides what the pages declare, %s: the bot would submit in %s where browsers submit in %s, and the board would show what it sends mangled", p.prof.Charset, declared, prof.Name, declared.Name))
			key = keyVal("charset", p.prof.Charset)
			fix = append(fix, "remove charset from the profile file (the pages' own declaration is what browsers use), unless posts made in a browser look mangled too")
		}
	}
	// Each form's charset against the thread's pages' (where the bot
	// reads its markers back).
	for _, f := range forms {
		for _, th := range threads {
			if f.submit == th.pg.Charset.Name {
				continue
			}
			fails = append(fails, fmt.Sprintf("the %s goes out in %s but the %s is in %s, so what the bot sends (the marker's · too) would come back changed", f.what, f.submit, th.what, th.pg.Charset))
			if key == "" {
				key = keyVal("charset", p.prof.Charset)
				fix = append(fix, fmt.Sprintf("set charset: %s in the profile file (the bot then reads and writes every page in it, whatever a form or page says), or %s", suggest, adminFix))
			}
			break
		}
	}
	// Pages that contradict themselves, or say nothing.
	for _, sp := range p.pages {
		pg := sp.pg
		h := parser.HeaderCharset(pg.Header.Get("Content-Type"))
		label, src := parser.MetaCharset(pg.Body)
		meta, known := parser.LookupCharset(label)
		switch {
		case h.Name != "" && known && meta != h.Name:
			warns = append(warns, fmt.Sprintf("the %s's Content-Type says %s but its %s says %s: browsers and the bot follow the Content-Type", sp.what, h.Label, src, label))
		case pg.Charset.Source == parser.FromNothing && prof.Name == "":
			warns = append(warns, fmt.Sprintf("the %s declares no charset: the bot reads it as %s, as browsers do", sp.what, pg.Charset.Name))
			if key == "" {
				key = keyVal("charset", "")
				fix = append(fix, "set charset in the profile file to the board's charset (ISO-8859-1, windows-1252, UTF-8…)")
			}
		case pg.Charset.IsUTF8() && !utf8.Valid(pg.Body):
			warns = append(warns, fmt.Sprintf("the %s is declared %s but holds bytes that are not UTF-8: the board may store text in another charset", sp.what, pg.Charset))
		}
		if len(warns) > 2 {
			break
		}
	}

	submit := read.Name
	if len(forms) > 0 {
		submit = forms[0].submit
	}
	c.Detail = fmt.Sprintf("pages in %s; forms go out in %s", read, submit)
	if submit != parser.UTF8 {
		c.Detail += ", each character it lacks as a &#NNNN; reference, as browsers send them"
		if !strings.Contains(parser.EncodeForm(map[string][]string{"m": {"·"}}, submit), "%B7") {
			c.Detail += " (the marker's · too)"
		}
	}
	switch {
	case len(fails) > 0:
		c.Status = Fail
	case len(warns) > 0:
		c.Status = Warn
	}
	if c.Status != OK {
		c.Detail = strings.Join(append(fails, append(warns, c.Detail)...), "; ")
		c.Key = key
		c.Fix = strings.Join(fix, "; ")
		if c.Fix == "" {
			c.Fix = "if posts look mangled in a browser (Ã« for ë, Â· for ·), set charset in the profile file to what the board stores, or " + adminFix
		}
	}
	p.add(c)
}
