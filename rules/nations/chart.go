package nations

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
)

// The victory-point chart: one line per nation, round 0 (the start) to the
// last round the game plays, as SVG for the desk and as PNG for a post's
// [img]. Both are drawn from the same layout.

// ChartColors are the nations' line colours, in roster order (then again):
// the Okabe–Ito palette, told apart with most kinds of colour blindness,
// and three more.
var ChartColors = []string{"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#8c564b", "#7f7f7f", "#bcbd22"}

// chart is the chart's layout: its size, the plot area and the scales.
type chart struct {
	w, h                   float64
	left, right, top, bott float64
	rounds, ymax           int // x: 0..rounds; y: 0..ymax
	step                   int // between y grid lines
}

func layout(series [][]int, rounds, legend int) chart {
	most := StartVP
	for _, s := range series {
		for _, v := range s {
			most = max(most, v)
		}
	}
	step := 50
	for most/step > 8 {
		step *= 2
	}
	top := (most/step + 1) * step
	if rounds < 1 {
		rounds = 1
	}
	for _, s := range series {
		rounds = max(rounds, len(s)-1)
	}
	c := chart{w: 640, h: 320 + float64((legend+2)/3)*20, left: 48, right: 16, top: 16, rounds: rounds, ymax: top, step: step}
	c.bott = 280
	return c
}

func (c chart) x(r int) float64 {
	return c.left + float64(r)/float64(c.rounds)*(c.w-c.left-c.right)
}

func (c chart) y(v int) float64 {
	return c.bott - float64(v)/float64(c.ymax)*(c.bott-c.top)
}

func xmlText(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s)) // a bytes.Buffer does not fail
	return b.String()
}

// ChartSVG draws the chart: names[i]'s points after each round are
// series[i] (series[i][0] the start), over rounds rounds.
func ChartSVG(names []string, series [][]int, rounds int) []byte {
	c := layout(series, rounds, len(names))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" font-family="sans-serif" role="img">`, c.w, c.h, c.w, c.h)
	b.WriteString(`<title>Victory points by round</title>`)
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%.0f" height="%.0f" fill="#ffffff"/>`, c.w, c.h)
	for v := 0; v <= c.ymax; v += c.step {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#d9dee5" stroke-width="1"/>`, c.left, c.y(v), c.w-c.right, c.y(v))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="end" fill="#4b5563">%d</text>`, c.left-6, c.y(v)+4, v)
	}
	for r := 0; r <= c.rounds; r++ {
		label := fmt.Sprint(r)
		if r == 0 {
			label = "start"
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle" fill="#4b5563">%s</text>`, c.x(r), c.bott+16, label)
	}
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#6a7380" stroke-width="1"/>`, c.left, c.bott, c.w-c.right, c.bott)
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle" fill="#4b5563">round</text>`, (c.left+c.w-c.right)/2, c.bott+30)
	for i, s := range series {
		col := ChartColors[i%len(ChartColors)]
		pts := make([]string, len(s))
		for r, v := range s {
			pts[r] = fmt.Sprintf("%.1f,%.1f", c.x(r), c.y(v))
		}
		dash := ""
		if i >= len(ChartColors) {
			dash = ` stroke-dasharray="6,3"`
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2.5"%s/>`, strings.Join(pts, " "), col, dash)
		for r, v := range s {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s, %s: %d</title></circle>`, c.x(r), c.y(v), col,
				xmlText(rules.PlainName(names[i])), roundLabel(r), v)
		}
	}
	// The legend, three to a line under the axis.
	for i, n := range names {
		col := ChartColors[i%len(ChartColors)]
		x := 16 + float64(i%3)*208
		y := c.bott + 52 + float64(i/3)*20
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/>`, x, y-4, x+22, y-4, col)
		last := 0
		if len(series[i]) > 0 {
			last = series[i][len(series[i])-1]
		}
		label := rules.PlainName(n)
		if r := []rune(label); len(r) > 22 {
			label = string(r[:21]) + "…"
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="12" fill="#1d232b">%s (%d)</text>`, x+28, y, xmlText(label), last)
	}
	b.WriteString(`</svg>`)
	return []byte(b.String())
}

func roundLabel(r int) string {
	if r == 0 {
		return "start"
	}
	return fmt.Sprintf("round %d", r)
}

// ChartPNG draws the chart as a PNG: the same grid, lines and points, the
// scale's numbers in a small built-in digit font, and no names (a post
// that shows it lists the nations by colour in its text).
func ChartPNG(names []string, series [][]int, rounds int) ([]byte, error) {
	c := layout(series, rounds, 0)
	c.h = c.bott + 24
	img := image.NewRGBA(image.Rect(0, 0, int(c.w), int(c.h)))
	fillRect(img, 0, 0, int(c.w), int(c.h), color.RGBA{255, 255, 255, 255})
	grid, ink := rgb("#d9dee5"), rgb("#4b5563")
	for v := 0; v <= c.ymax; v += c.step {
		line(img, c.left, c.y(v), c.w-c.right, c.y(v), 1, grid)
		digits(img, fmt.Sprint(v), int(c.left)-6, int(c.y(v))-3, true, ink)
	}
	line(img, c.left, c.bott, c.w-c.right, c.bott, 1, rgb("#6a7380"))
	for r := 0; r <= c.rounds; r++ {
		digits(img, fmt.Sprint(r), int(c.x(r)), int(c.bott)+8, false, ink)
	}
	for i, s := range series {
		col := rgb(ChartColors[i%len(ChartColors)])
		for r := 1; r < len(s); r++ {
			line(img, c.x(r-1), c.y(s[r-1]), c.x(r), c.y(s[r]), 2.5, col)
		}
		for r, v := range s {
			disc(img, c.x(r), c.y(v), 3.5, col)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func rgb(s string) color.RGBA {
	var r, g, b uint8
	fmt.Sscanf(s, "#%02x%02x%02x", &r, &g, &b)
	return color.RGBA{r, g, b, 255}
}

func fillRect(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			if image.Pt(x, y).In(img.Bounds()) {
				img.SetRGBA(x, y, c)
			}
		}
	}
}

// line paints a segment of the given width: every pixel whose centre is
// within width/2 of it.
func line(img *image.RGBA, x0, y0, x1, y1, width float64, c color.RGBA) {
	half := width / 2
	minX, maxX := int(math.Floor(min(x0, x1)-half)), int(math.Ceil(max(x0, x1)+half))
	minY, maxY := int(math.Floor(min(y0, y1)-half)), int(math.Ceil(max(y0, y1)+half))
	dx, dy := x1-x0, y1-y0
	l2 := dx*dx + dy*dy
	for y := minY; y <= maxY; y++ {
		for x := minX; x <= maxX; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			t := 0.0
			if l2 > 0 {
				t = math.Max(0, math.Min(1, ((px-x0)*dx+(py-y0)*dy)/l2))
			}
			qx, qy := x0+t*dx-px, y0+t*dy-py
			if qx*qx+qy*qy <= half*half && image.Pt(x, y).In(img.Bounds()) {
				img.SetRGBA(x, y, c)
			}
		}
	}
}

func disc(img *image.RGBA, cx, cy, r float64, c color.RGBA) { line(img, cx, cy, cx, cy, 2*r, c) }

// font3x5 is a 3×5 pixel font of the digits, a row of three bits a line.
var font3x5 = map[rune][5]uint8{
	'0': {7, 5, 5, 5, 7}, '1': {2, 6, 2, 2, 7}, '2': {7, 1, 7, 4, 7}, '3': {7, 1, 7, 1, 7}, '4': {5, 5, 7, 1, 1},
	'5': {7, 4, 7, 1, 7}, '6': {7, 4, 7, 5, 7}, '7': {7, 1, 1, 1, 1}, '8': {7, 5, 7, 5, 7}, '9': {7, 5, 7, 1, 7},
}

// digits writes a number at (x, y), its top; right-aligned to x when
// right, else centred on it. Each font pixel is 2×2.
func digits(img *image.RGBA, s string, x, y int, right bool, c color.RGBA) {
	const px, adv = 2, 8
	w := len(s)*adv - 2
	if right {
		x -= w
	} else {
		x -= w / 2
	}
	for i, r := range s {
		g := font3x5[r]
		for row := range 5 {
			for col := range 3 {
				if g[row]&(4>>col) != 0 {
					fillRect(img, x+i*adv+col*px, y+row*px, x+i*adv+col*px+px, y+row*px+px, c)
				}
			}
		}
	}
}
