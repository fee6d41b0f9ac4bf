package protest

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/protest/hexmap"
)

// picture is what one map picture shows, worked out once for SVG and PNG.
type picture struct {
	m        hexmap.Map
	gm       bool // the GM's picture: hidden sites and silent protests too
	terrain  map[string]string
	title    string
	revealed map[string]bool   // sites revealed by the end of the turn
	hidden   map[string]bool   // sites still hidden (GM picture only)
	protests map[string]string // hex → outcome of that turn's protests (worst first: hit > miss > silent)
}

func (s *State) picture(turn int, gm bool) (picture, error) {
	if turn < 0 || turn > len(s.History) {
		return picture{}, fmt.Errorf("protest: no turn %d to draw (turns resolved: %d)", turn, len(s.History))
	}
	p := picture{m: s.Map, gm: gm, terrain: s.Terrain, revealed: map[string]bool{}, hidden: map[string]bool{}, protests: map[string]string{}}
	p.title = fmt.Sprintf("Protest, after turn %d", turn)
	if turn == 0 {
		p.title = "Protest, start"
	}
	for _, r := range s.Revealed {
		if r.Turn <= turn {
			p.revealed[r.Hex] = true
		}
	}
	if gm {
		p.title += " (GM)"
		for _, x := range s.Sites {
			if !p.revealed[x] {
				p.hidden[x] = true
			}
		}
	}
	if turn > 0 {
		rank := map[string]int{Silent: 1, Miss: 2, Hit: 3}
		for _, pl := range s.History[turn-1].Protests {
			if pl.Outcome == Silent && !gm {
				continue // reported to nobody
			}
			if rank[pl.Outcome] > rank[p.protests[pl.Hex]] {
				p.protests[pl.Hex] = pl.Outcome
			}
		}
	}
	return p, nil
}

// Pictures draws the map after a resolved turn (turn 0: the start) as SVG:
// every hex with its name, terrain, the revealed sites and that turn's
// protests (hit, miss). The GM picture also shows the hidden sites and the
// silent protests, which the public one never does.
func Pictures(s rules.State, turn int) (public, gm []byte, err error) {
	return draw(s, turn, func(p picture) ([]byte, error) { return p.svg(), nil })
}

// PicturesPNG is Pictures as PNG images: the same hexes and marks, no text.
func PicturesPNG(s rules.State, turn int) (public, gm []byte, err error) {
	return draw(s, turn, picture.png)
}

// Draw implements rules.Drawer: the public and the GM picture of turn, each
// as SVG and as PNG.
func (Game) Draw(s rules.State, turn int) ([]rules.Picture, error) {
	pub, gm, err := Pictures(s, turn)
	if err != nil {
		return nil, err
	}
	ppub, pgm, err := PicturesPNG(s, turn)
	if err != nil {
		return nil, err
	}
	return []rules.Picture{
		{Format: "svg", Data: pub}, {GM: true, Format: "svg", Data: gm},
		{Format: "png", Data: ppub}, {GM: true, Format: "png", Data: pgm},
	}, nil
}

// Turns implements rules.Drawer: the turns resolved so far.
func (Game) Turns(s rules.State) int {
	st, ok := s.(*State)
	if !ok {
		return 0
	}
	return len(st.History)
}

// draw works out the public and the GM picture of turn and renders both.
func draw(s rules.State, turn int, render func(picture) ([]byte, error)) (public, gm []byte, err error) {
	st, ok := s.(*State)
	if !ok {
		return nil, nil, fmt.Errorf("protest: not a protest state")
	}
	var out [2][]byte
	for i, isGM := range []bool{false, true} {
		p, err := st.picture(turn, isGM)
		if err != nil {
			return nil, nil, err
		}
		if out[i], err = render(p); err != nil {
			return nil, nil, err
		}
	}
	return out[0], out[1], nil
}

const hexSize = 24.0

var terrainFill = map[string]string{
	"land": "#e8dfc4", "sea": "#a9cbe8", "water": "#a9cbe8", "lake": "#a9cbe8",
	"forest": "#b5d3a0", "mountain": "#c9b8a6", "hills": "#d8c9a0", "city": "#d6d6d6",
	"desert": "#f3e6a8", "swamp": "#b8c9a8",
}

var markFill = map[string]string{Hit: "#2e8b2e", Miss: "#d03030", Silent: "#f0a020"}

func (p picture) fill(name string) string {
	kind := p.terrain[name]
	if kind == "" {
		kind = "land"
	}
	if f, ok := terrainFill[kind]; ok {
		return f
	}
	return "#dddddd"
}

func xmlEsc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s)) // writing to a bytes.Buffer cannot fail
	return b.String()
}

// legendItem is one entry of the map's legend: its label and its mark
// drawn at (x, y).
type legendItem struct {
	label string
	mark  func(x, y float64) string
}

// legend lays the legend out under the map in rows as wide as the map (a
// small map's legend takes more rows), the title on a row of its own, and
// says how tall it is.
func (p picture) legend(w float64) (rows [][]legendItem, height float64) {
	items := []legendItem{{"revealed site", func(x, y float64) string {
		return fmt.Sprintf(`<polygon class="legend" points="%s" fill="#7a1fa2"/>`, star(x+5, y, 7))
	}}}
	for _, o := range []string{Hit, Miss, Silent} {
		if o == Silent && !p.gm {
			continue
		}
		o := o
		items = append(items, legendItem{"protest: " + o, func(x, y float64) string {
			return fmt.Sprintf(`<circle class="legend" cx="%.1f" cy="%.1f" r="6" fill="none" stroke="%s" stroke-width="3"/>`, x+5, y, markFill[o])
		}})
	}
	if p.gm {
		items = append(items, legendItem{"hidden site", func(x, y float64) string {
			return fmt.Sprintf(`<polygon class="legend" points="%s" fill="none" stroke="#7a1fa2" stroke-dasharray="3,2"/>`, star(x+5, y, 7))
		}})
	}
	x := 8.0
	var row []legendItem
	for _, it := range items {
		iw := 14 + 6.2*float64(len(it.label)) + 16
		if x+iw > w && len(row) > 0 {
			rows, row, x = append(rows, row), nil, 8
		}
		row = append(row, it)
		x += iw
	}
	rows = append(rows, row)
	return rows, float64(len(rows)+1)*18 + 8
}

func (p picture) svg() []byte {
	var b bytes.Buffer
	w, h := p.m.PixelSize(hexSize)
	rows, legendH := p.legend(w)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.1f %.1f" font-family="sans-serif">`+"\n",
		w, h+legendH, w, h+legendH)
	fmt.Fprintf(&b, `<title>%s</title>`+"\n", xmlEsc(p.title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%.1f" height="%.1f" fill="white"/>`+"\n", w, h+legendH)
	for _, hx := range p.m.All() {
		name := hx.Name()
		cx, cy := p.m.Center(hx, hexSize)
		kind := p.terrain[name]
		if kind == "" {
			kind = "land"
		}
		fmt.Fprintf(&b, `<g class="hex" data-hex="%s" data-terrain="%s">`, name, xmlEsc(kind))
		fmt.Fprintf(&b, `<polygon points="%s" fill="%s" stroke="#666" stroke-width="1"/>`, points(p.m.Corners(hx, hexSize)), p.fill(name))
		if o := p.protests[name]; o != "" {
			fmt.Fprintf(&b, `<circle class="protest %s" data-hex="%s" cx="%.1f" cy="%.1f" r="%.1f" fill="none" stroke="%s" stroke-width="3"/>`,
				o, name, cx, cy, hexSize*0.72, markFill[o])
		}
		switch {
		case p.revealed[name]:
			fmt.Fprintf(&b, `<polygon class="site revealed" data-hex="%s" points="%s" fill="#7a1fa2"/>`, name, star(cx, cy, hexSize*0.5))
		case p.hidden[name]:
			fmt.Fprintf(&b, `<polygon class="site hidden" data-hex="%s" points="%s" fill="none" stroke="#7a1fa2" stroke-width="1.5" stroke-dasharray="3,2"/>`, name, star(cx, cy, hexSize*0.5))
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="8" text-anchor="middle" fill="#222">%s</text>`, cx, cy+hexSize*0.55, name)
		b.WriteString("</g>\n")
	}
	// Legend: its rows, then the title.
	y := h + 18
	for _, row := range rows {
		x := 8.0
		for _, it := range row {
			b.WriteString(it.mark(x, y))
			fmt.Fprintf(&b, `<text class="legend" x="%.1f" y="%.1f" font-size="11">%s</text>`+"\n", x+14, y+4, it.label)
			x += 14 + 6.2*float64(len(it.label)) + 16
		}
		y += 18
	}
	fmt.Fprintf(&b, `<text class="legend" x="8" y="%.1f" font-size="11" fill="#444">%s</text>`+"\n", y+4, xmlEsc(p.title))
	b.WriteString("</svg>\n")
	return b.Bytes()
}

func points(ps [6][2]float64) string {
	return pointList(ps[:])
}

func pointList(ps [][2]float64) string {
	parts := make([]string, len(ps))
	for i, q := range ps {
		parts[i] = fmt.Sprintf("%.1f,%.1f", q[0], q[1])
	}
	return strings.Join(parts, " ")
}

// star is a five-pointed star: ten points alternating outer and inner radius.
func star(cx, cy, r float64) string {
	ps := make([][2]float64, 10)
	for i := range ps {
		rad := r
		if i%2 == 1 {
			rad = r * 0.42
		}
		a := -math.Pi/2 + float64(i)*math.Pi/5
		ps[i] = [2]float64{cx + rad*math.Cos(a), cy + rad*math.Sin(a)}
	}
	return pointList(ps)
}

// png draws filled hexes (terrain colour, a dark gap as the grid line),
// a ring for each protest and a dark centre for each site.
func (p picture) png() ([]byte, error) {
	const size = 12.0
	w, h := p.m.PixelSize(size)
	img := image.NewRGBA(image.Rect(0, 0, int(math.Ceil(w)), int(math.Ceil(h))))
	white := color.RGBA{255, 255, 255, 255}
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = white.R, white.G, white.B, white.A
	}
	for _, hx := range p.m.All() {
		name := hx.Name()
		cx, cy := p.m.Center(hx, size)
		fillHex(img, p.m, cx, cy, size, 1.0, hexColor("#666666"))
		fillHex(img, p.m, cx, cy, size, 0.9, hexColor(p.fill(name)))
		if o := p.protests[name]; o != "" {
			fillHex(img, p.m, cx, cy, size, 0.75, hexColor(markFill[o]))
			fillHex(img, p.m, cx, cy, size, 0.55, hexColor(p.fill(name)))
		}
		switch {
		case p.revealed[name]:
			fillHex(img, p.m, cx, cy, size, 0.4, hexColor("#7a1fa2"))
		case p.hidden[name]:
			fillHex(img, p.m, cx, cy, size, 0.4, hexColor("#c9a0dc"))
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func hexColor(s string) color.RGBA {
	var r, g, b uint8
	fmt.Sscanf(s, "#%02x%02x%02x", &r, &g, &b)
	return color.RGBA{r, g, b, 255}
}

// fillHex paints a hex of the layout's orientation, scaled, centred at (cx, cy).
func fillHex(img *image.RGBA, m hexmap.Map, cx, cy, size, scale float64, c color.RGBA) {
	r := size * scale
	b := img.Bounds()
	s3 := math.Sqrt(3) / 2
	for y := int(cy - r); y <= int(cy+r)+1; y++ {
		for x := int(cx - r); x <= int(cx+r)+1; x++ {
			if !image.Pt(x, y).In(b) {
				continue
			}
			dx, dy := math.Abs(float64(x)+0.5-cx), math.Abs(float64(y)+0.5-cy)
			if !m.Layout.Flat() {
				dx, dy = dy, dx // a pointy hex is a flat one turned a quarter
			}
			// Flat-topped hex: |dy| ≤ √3/2·r and the slanted sides.
			if dy <= s3*r && s3*dx+0.5*dy <= s3*r {
				img.SetRGBA(x, y, c)
			}
		}
	}
}
