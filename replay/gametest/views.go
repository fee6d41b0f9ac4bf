package gametest

import (
	"bytes"
	"encoding/xml"
	"io"
	"regexp"

	"github.com/forumgm/forumgm/rules"
)

// rawPatterns are what a person must never read in a game's views: a
// field name (snake_case, as state and view keys are written), Go's
// printing of a value (a map, a struct, a nil, a pointer, a failed
// format), JSON punctuation, and a time as a program writes it.
var rawPatterns = []*regexp.Regexp{
	regexp.MustCompile(`\b[a-z][a-z0-9]*_[a-z0-9_]+\b`),
	regexp.MustCompile(`map\[`),
	regexp.MustCompile(`\[\]|\{|\}|&\{|<nil>|%!|0x[0-9a-f]{4,}`),
	regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d`),
	regexp.MustCompile(`"[a-z_]+":`),
}

// Raw returns the first raw field name or Go value syntax in s ("" when
// it reads as words).
func Raw(s string) string {
	for _, re := range rawPatterns {
		if m := re.FindString(s); m != "" {
			return m
		}
	}
	return ""
}

// ViewTexts are every piece of text the sections show a person: titles,
// intros, labels, cells (player names apart), table heads, notes, the
// pictures' alt text and the words drawn in them.
func ViewTexts(secs []rules.Section) (texts, names []string) {
	cell := func(c rules.Cell) {
		texts = append(texts, c.Text, c.Alt)
		names = append(names, c.Names...)
	}
	for _, s := range secs {
		texts = append(texts, s.Title, s.Intro)
		texts = append(texts, s.Notes...)
		for _, f := range s.Facts {
			texts = append(texts, f.Label)
			cell(f.Value)
		}
		for _, t := range s.Tables {
			texts = append(texts, t.Caption)
			for _, h := range t.Head {
				cell(h)
			}
			for _, r := range t.Rows {
				for _, c := range r.Cells {
					cell(c)
				}
			}
		}
		for _, p := range s.Pictures {
			texts = append(texts, p.Alt)
			texts = append(texts, SVGText(p.Data)...)
		}
	}
	return texts, names
}

// SVGText is the character data of an SVG drawing (its <text> and
// <title> contents), or a note that it does not parse.
func SVGText(data []byte) []string {
	var out []string
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			return append(out, "unparsable_svg: "+err.Error())
		}
		if cd, ok := tok.(xml.CharData); ok {
			if s := string(bytes.TrimSpace(cd)); s != "" {
				out = append(out, s)
			}
		}
	}
}
