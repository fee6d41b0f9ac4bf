package webdesk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"github.com/forumgm/forumgm/journal"
	"html"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// A game's views on the desk: the sections its rules.Presenter lays out,
// for everyone on the public page and for the GM on the GM view, drawn
// from the game's state and its past as replayed from the journal.

// viewSection is a section as a page shows it: its drawings by address.
type viewSection struct {
	rules.Section
	Pics []pic
}

// pic is a drawing in a page: an image the desk serves by its content
// (it never changes at one address, so a refreshed page that shows a new
// drawing asks for it by a new address), and the size to show it at: its
// own, a small one (a small map) up to 1.6 times larger. CSS narrows it to
// the screen.
type pic struct {
	URL, Alt string
	W, H     int
}

// picSize is the size a drawing is shown at, from its own width and height.
func picSize(svg []byte) (w, h int) {
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := d.Token()
		if err != nil {
			return 0, 0
		}
		if se, ok := tok.(xml.StartElement); ok {
			var fw, fh float64
			for _, a := range se.Attr {
				switch a.Name.Local {
				case "width":
					fmt.Sscan(a.Value, &fw)
				case "height":
					fmt.Sscan(a.Value, &fh)
				}
			}
			if fw <= 0 || fh <= 0 {
				return 0, 0
			}
			scale := min(1.6, max(1, 480/fw))
			return int(fw * scale), int(fh * scale)
		}
	}
}

// views lays out a game for everyone (gm false) or the GM. ok is false
// for a game that draws no views of its own (the page then shows its
// view as a table of values).
func (d *Desk) views(ctx context.Context, g *moderator.DeskGame, gm bool) (out []viewSection, ok bool, err error) {
	secs, ok, err := d.sections(ctx, g, gm)
	if !ok || err != nil {
		return nil, ok, err
	}
	base := "/p/" + url.PathEscape(g.Report.Name)
	if gm {
		base = "/game/" + url.PathEscape(g.Report.Name)
	}
	for _, s := range secs {
		vs := viewSection{Section: s}
		for _, p := range s.Pictures {
			if p.Format != "svg" {
				continue
			}
			name, err := d.drawings.put(g.Report.Name, gm, p.Data)
			if err != nil {
				return nil, true, fmt.Errorf("%s's view %q: %w", g.Report.Name, s.Title, err)
			}
			w, h := picSize(p.Data)
			vs.Pics = append(vs.Pics, pic{URL: base + "/drawing/" + name, Alt: p.Alt, W: w, H: h})
		}
		out = append(out, vs)
	}
	return out, true, nil
}

// sections are the game's views as its rules.Presenter lays them out.
func (d *Desk) sections(ctx context.Context, g *moderator.DeskGame, gm bool) ([]rules.Section, bool, error) {
	pr, ok := g.Engine.(rules.Presenter)
	if !ok {
		return nil, false, nil
	}
	past, err := d.past(ctx, g)
	if err != nil {
		return nil, true, err
	}
	secs := pr.Present(g.State, rules.Viewing{GM: gm, Now: d.now(), History: past})
	if !gm {
		// A game's word is not trusted with a secret: a section or a
		// picture it marks as the GM's never reaches everyone's page.
		var pub []rules.Section
		for _, s := range secs {
			if s.GM {
				continue
			}
			var pics []rules.Picture
			for _, p := range s.Pictures {
				if !p.GM {
					pics = append(pics, p)
				}
			}
			s.Pictures = pics
			pub = append(pub, s)
		}
		secs = pub
	}
	return secs, true, nil
}

// drawingCache keeps the drawings the pages showed, by game, audience and
// content, for their <img> to fetch.
type drawingCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

func drawingKey(game string, gm bool, name string) string {
	return fmt.Sprintf("%s/%v/%s", game, gm, name)
}

// put checks a drawing (safeSVG) and keeps it; name is its file name.
func (c *drawingCache) put(game string, gm bool, svg []byte) (name string, err error) {
	clean, err := safeSVG(svg)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(clean))
	name = hex.EncodeToString(sum[:12]) + ".svg"
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) > 512 {
		c.m = map[string][]byte{}
	}
	c.m[drawingKey(game, gm, name)] = []byte(clean)
	return name, nil
}

func (c *drawingCache) get(game string, gm bool, name string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[drawingKey(game, gm, name)]
	return b, ok
}

// serveDrawing answers a page's <img> for one of its drawings. One the
// desk no longer holds (it was restarted) is drawn again from the game.
func (d *Desk) serveDrawing(w http.ResponseWriter, r *http.Request, g *moderator.DeskGame, gm bool) {
	name := r.PathValue("file")
	data, ok := d.drawings.get(g.Report.Name, gm, name)
	if !ok {
		if _, _, err := d.views(r.Context(), g, gm); err == nil {
			data, ok = d.drawings.get(g.Report.Name, gm, name)
		}
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	// An SVG opened on its own is a document: no script in it may run.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	if !gm {
		// Its address is its content: it never changes.
		w.Header().Set("Cache-Control", "public, max-age=86400, immutable")
	}
	w.Write(data)
}

func (d *Desk) gmDrawing(w http.ResponseWriter, r *http.Request, _ *session) {
	g, ok := d.load(w, r)
	if !ok {
		return
	}
	d.serveDrawing(w, r, g, true)
}

func (d *Desk) publicDrawing(w http.ResponseWriter, r *http.Request) {
	g, _, ok := d.publicGame(w, r)
	if !ok {
		return
	}
	d.serveDrawing(w, r, g, false)
}

// pastCache keeps each game's replayed history by the journal it was
// replayed from: a page that refreshes itself reads it again and again
// while nothing happens.
type pastCache struct {
	mu sync.Mutex
	m  map[string]pastEntry
}

type pastEntry struct {
	key     string
	moments []rules.Moment
}

// past replays a game's journal from its setup, as the moderator rebuilds
// a game: every accepted command applied and every resolution, with the
// states around each (rules.Moment).
func (d *Desk) past(ctx context.Context, g *moderator.DeskGame) ([]rules.Moment, error) {
	var j []journal.Entry
	err := d.m.DB.View(ctx, func(tx *store.Tx) error {
		row, err := tx.Game(g.Report.Name)
		if err != nil {
			return err
		}
		j, err = tx.Journal(row.ID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("the game's journal: %w", err)
	}
	var kb strings.Builder
	fmt.Fprintf(&kb, "%d", len(j))
	for _, e := range j {
		if e.Voided {
			fmt.Fprintf(&kb, ",%d", e.Seq)
		}
	}
	key := kb.String()
	d.pasts.mu.Lock()
	if e, ok := d.pasts.m[g.Report.Name]; ok && e.key == key {
		d.pasts.mu.Unlock()
		return e.moments, nil
	}
	d.pasts.mu.Unlock()
	moments, err := journal.Moments(g.Engine, g.Config.Rules(), j, journal.Lenient)
	if err != nil {
		return nil, err
	}
	d.pasts.mu.Lock()
	if d.pasts.m == nil || len(d.pasts.m) > 64 {
		d.pasts.m = map[string]pastEntry{}
	}
	d.pasts.m[g.Report.Name] = pastEntry{key, moments}
	d.pasts.mu.Unlock()
	return moments, nil
}

// The drawings a game puts in its views are served as images (an SVG in
// an <img> runs nothing and loads nothing), and only through safeSVG: it
// parses the drawing and writes it again with only the shapes, text and
// presentation attributes a chart or map needs, every value escaped.

var svgElements = map[string]bool{
	"svg": true, "g": true, "title": true, "desc": true, "rect": true, "circle": true, "ellipse": true,
	"line": true, "polyline": true, "polygon": true, "path": true, "text": true, "tspan": true,
}

var svgAttrs = map[string]bool{
	"viewBox": true, "width": true, "height": true, "x": true, "y": true, "x1": true, "y1": true, "x2": true, "y2": true,
	"cx": true, "cy": true, "r": true, "rx": true, "ry": true, "points": true, "d": true, "dx": true, "dy": true,
	"fill": true, "stroke": true, "stroke-width": true, "stroke-dasharray": true, "stroke-linecap": true, "stroke-linejoin": true,
	"opacity": true, "fill-opacity": true, "stroke-opacity": true, "font-family": true, "font-size": true, "font-weight": true,
	"text-anchor": true, "dominant-baseline": true, "transform": true, "class": true, "role": true,
}

// safeSVG is an SVG drawing written again from what it allows, for
// putting into a page.
func safeSVG(data []byte) (template.HTML, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var b strings.Builder
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("the drawing is not well-formed: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if (t.Name.Space != "" && t.Name.Space != "http://www.w3.org/2000/svg") || !svgElements[t.Name.Local] || (depth == 0) != (t.Name.Local == "svg") {
				return "", fmt.Errorf("the drawing has a <%s>, which a page does not take", t.Name.Local)
			}
			b.WriteString("<" + t.Name.Local)
			if depth == 0 {
				b.WriteString(` xmlns="http://www.w3.org/2000/svg"`)
			}
			for _, a := range t.Attr {
				name := a.Name.Local
				if a.Name.Space == "" && name == "xmlns" {
					continue
				}
				if a.Name.Space != "" || !(svgAttrs[name] || strings.HasPrefix(name, "data-")) {
					return "", fmt.Errorf("the drawing's <%s> has the attribute %s, which a page does not take", t.Name.Local, name)
				}
				v := strings.ToLower(a.Value)
				if strings.Contains(v, "url") || strings.Contains(v, "script") || strings.Contains(v, ":") ||
					(name != "transform" && strings.ContainsAny(v, "()")) {
					return "", fmt.Errorf("the drawing's %s=%q is not a plain value", name, a.Value)
				}
				fmt.Fprintf(&b, ` %s="%s"`, name, html.EscapeString(a.Value))
			}
			b.WriteString(">")
			depth++
		case xml.EndElement:
			b.WriteString("</" + t.Name.Local + ">")
			depth--
		case xml.CharData:
			if depth > 0 {
				b.WriteString(html.EscapeString(string(t)))
			}
		case xml.ProcInst, xml.Directive:
			if depth > 0 {
				return "", fmt.Errorf("the drawing has an XML instruction inside it")
			}
		}
	}
	if depth != 0 || b.Len() == 0 {
		return "", fmt.Errorf("the drawing is empty or not closed")
	}
	return template.HTML(b.String()), nil
}
