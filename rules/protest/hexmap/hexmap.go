// Package hexmap is the geometry of a rectangular hex map in offset
// coordinates: hex names (spreadsheet-style column letters and 1-based row
// numbers, "A1", "K10", "AB7"), the four offset layouts, distance and
// neighbours (through cube coordinates), and pixel positions for drawing.
//
// Columns and rows are counted from 0 internally: column A and row 1 are 0.
// The layouts follow the usual offset convention (redblobgames.com/grids/hexagons):
//   - odd-q:  flat-topped hexes in vertical columns, odd columns (B, D, …) half a hex lower;
//   - even-q: the same with even columns (A, C, …) half a hex lower;
//   - odd-r:  pointy-topped hexes in horizontal rows, odd rows (2, 4, …) half a hex right;
//   - even-r: the same with even rows (1, 3, …) half a hex right.
package hexmap

import (
	"fmt"
	"math"
	"strings"
)

// Layout is one of the four offset layouts.
type Layout string

const (
	OddQ  Layout = "odd-q"
	EvenQ Layout = "even-q"
	OddR  Layout = "odd-r"
	EvenR Layout = "even-r"
)

// Layouts lists every layout, default first.
var Layouts = []Layout{OddQ, EvenQ, OddR, EvenR}

// ParseLayout reads a layout name ("odd-q", "ODD_Q", "oddq" all work).
func ParseLayout(s string) (Layout, error) {
	k := strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(strings.TrimSpace(s)))
	for _, l := range Layouts {
		if strings.ReplaceAll(string(l), "-", "") == k {
			return l, nil
		}
	}
	return "", fmt.Errorf("unknown hex layout %q (use odd-q, even-q, odd-r or even-r)", s)
}

// Flat says whether hexes are flat-topped (the q layouts: hexes in columns).
func (l Layout) Flat() bool { return l == OddQ || l == EvenQ }

// Hex is a position in offset coordinates, both counted from 0.
type Hex struct {
	Col, Row int
}

// Name is the hex's name: column letters and 1-based row, e.g. "AB7".
func (h Hex) Name() string { return ColumnName(h.Col) + fmt.Sprint(h.Row+1) }

func (h Hex) String() string { return h.Name() }

// ColumnName is the spreadsheet-style name of a 0-based column:
// 0 → A, 25 → Z, 26 → AA, 27 → AB, 701 → ZZ, 702 → AAA.
func ColumnName(col int) string {
	if col < 0 {
		return "?"
	}
	var b []byte
	for n := col + 1; n > 0; n = (n - 1) / 26 {
		b = append([]byte{byte('A' + (n-1)%26)}, b...)
	}
	return string(b)
}

// maxLetters and maxDigits bound what ParseHex reads, so absurd input cannot overflow.
const maxLetters, maxDigits = 4, 6

// ParseHex reads a hex name (case-insensitive, surrounding spaces ignored)
// without checking it against any map. Errors are user-facing.
func ParseHex(s string) (Hex, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	i := 0
	col := 0
	for i < len(t) && t[i] >= 'A' && t[i] <= 'Z' {
		col = col*26 + int(t[i]-'A'+1)
		i++
	}
	letters := i
	row := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		row = row*10 + int(t[i]-'0')
		i++
	}
	digits := i - letters
	if letters == 0 || digits == 0 || i != len(t) || letters > maxLetters || digits > maxDigits {
		return Hex{}, fmt.Errorf("%q is not a hex name (column letters then row number, like K10)", strings.TrimSpace(s))
	}
	if row == 0 {
		return Hex{}, fmt.Errorf("%q is not a hex name (rows start at 1)", strings.TrimSpace(s))
	}
	return Hex{Col: col - 1, Row: row - 1}, nil
}

// Map is a rectangular hex map.
type Map struct {
	Columns int    `json:"columns"`
	Rows    int    `json:"rows"`
	Layout  Layout `json:"layout"`
}

// MaxSide bounds a map's columns and rows (a forum game needs nothing near it).
const MaxSide = 1000

// New checks the dimensions and layout and returns the map.
func New(columns, rows int, layout Layout) (Map, error) {
	if columns < 1 || rows < 1 || columns > MaxSide || rows > MaxSide {
		return Map{}, fmt.Errorf("map size %dx%d: columns and rows must be 1 to %d", columns, rows, MaxSide)
	}
	if layout == "" {
		layout = OddQ
	}
	l, err := ParseLayout(string(layout))
	if err != nil {
		return Map{}, err
	}
	return Map{Columns: columns, Rows: rows, Layout: l}, nil
}

// Contains says whether h is on the map.
func (m Map) Contains(h Hex) bool {
	return h.Col >= 0 && h.Row >= 0 && h.Col < m.Columns && h.Row < m.Rows
}

// Parse reads a hex name and checks it is on the map. Errors are user-facing.
func (m Map) Parse(s string) (Hex, error) {
	h, err := ParseHex(s)
	if err != nil {
		return Hex{}, err
	}
	if !m.Contains(h) {
		return Hex{}, fmt.Errorf("%s is not on the map (columns A–%s, rows 1–%d)",
			h.Name(), ColumnName(m.Columns-1), m.Rows)
	}
	return h, nil
}

// All lists every hex, column by column.
func (m Map) All() []Hex {
	out := make([]Hex, 0, m.Columns*m.Rows)
	for c := 0; c < m.Columns; c++ {
		for r := 0; r < m.Rows; r++ {
			out = append(out, Hex{c, r})
		}
	}
	return out
}

// Cube is a cube coordinate: X+Y+Z == 0.
type Cube struct{ X, Y, Z int }

// Distance between two cube coordinates.
func (a Cube) Distance(b Cube) int {
	return max(abs(a.X-b.X), abs(a.Y-b.Y), abs(a.Z-b.Z))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ToCube converts an offset position to cube coordinates in the map's layout.
func (m Map) ToCube(h Hex) Cube {
	var x, z int
	switch m.Layout {
	case EvenQ:
		x = h.Col
		z = h.Row - (h.Col+(h.Col&1))/2
	case OddR:
		x = h.Col - (h.Row-(h.Row&1))/2
		z = h.Row
	case EvenR:
		x = h.Col - (h.Row+(h.Row&1))/2
		z = h.Row
	default: // odd-q
		x = h.Col
		z = h.Row - (h.Col-(h.Col&1))/2
	}
	return Cube{X: x, Y: -x - z, Z: z}
}

// FromCube converts cube coordinates back to an offset position.
func (m Map) FromCube(c Cube) Hex {
	switch m.Layout {
	case EvenQ:
		return Hex{Col: c.X, Row: c.Z + (c.X+(c.X&1))/2}
	case OddR:
		return Hex{Col: c.X + (c.Z-(c.Z&1))/2, Row: c.Z}
	case EvenR:
		return Hex{Col: c.X + (c.Z+(c.Z&1))/2, Row: c.Z}
	default:
		return Hex{Col: c.X, Row: c.Z + (c.X-(c.X&1))/2}
	}
}

// Distance is the number of steps between neighbouring hexes from a to b.
func (m Map) Distance(a, b Hex) int { return m.ToCube(a).Distance(m.ToCube(b)) }

var cubeDirs = [6]Cube{{1, -1, 0}, {1, 0, -1}, {0, 1, -1}, {-1, 1, 0}, {-1, 0, 1}, {0, -1, 1}}

// Neighbours lists the hexes on the map adjacent to h (up to six).
func (m Map) Neighbours(h Hex) []Hex {
	c := m.ToCube(h)
	var out []Hex
	for _, d := range cubeDirs {
		n := m.FromCube(Cube{c.X + d.X, c.Y + d.Y, c.Z + d.Z})
		if m.Contains(n) {
			out = append(out, n)
		}
	}
	return out
}

// Within lists the hexes on the map at distance ≤ n from h, h included.
func (m Map) Within(h Hex, n int) []Hex {
	c := m.ToCube(h)
	var out []Hex
	for dx := -n; dx <= n; dx++ {
		for dy := max(-n, -dx-n); dy <= min(n, -dx+n); dy++ {
			x := m.FromCube(Cube{c.X + dx, c.Y + dy, c.Z - dx - dy})
			if m.Contains(x) {
				out = append(out, x)
			}
		}
	}
	return out
}

// Center is the pixel centre of h when hexes have the given size (centre to
// corner), with the whole map starting at (0,0) plus a margin of one size.
func (m Map) Center(h Hex, size float64) (x, y float64) {
	s3 := math.Sqrt(3)
	if m.Layout.Flat() {
		shift := 0.0
		if (m.Layout == OddQ && h.Col&1 == 1) || (m.Layout == EvenQ && h.Col&1 == 0) {
			shift = 0.5
		}
		x = size + 1.5*size*float64(h.Col)
		y = s3*size/2 + s3*size*(float64(h.Row)+shift)
	} else {
		shift := 0.0
		if (m.Layout == OddR && h.Row&1 == 1) || (m.Layout == EvenR && h.Row&1 == 0) {
			shift = 0.5
		}
		x = s3*size/2 + s3*size*(float64(h.Col)+shift)
		y = size + 1.5*size*float64(h.Row)
	}
	return x + size, y + size
}

// Corners are the six pixel corners of h (see Center).
func (m Map) Corners(h Hex, size float64) [6][2]float64 {
	cx, cy := m.Center(h, size)
	var out [6][2]float64
	for i := range out {
		deg := 60.0 * float64(i)
		if !m.Layout.Flat() {
			deg -= 30
		}
		a := deg * math.Pi / 180
		out[i] = [2]float64{cx + size*math.Cos(a), cy + size*math.Sin(a)}
	}
	return out
}

// PixelSize is the width and height of a picture of the whole map, margins included.
func (m Map) PixelSize(size float64) (w, h float64) {
	s3 := math.Sqrt(3)
	if m.Layout.Flat() {
		w = 2*size + 1.5*size*float64(m.Columns-1)
		h = s3 * size * (float64(m.Rows) + 0.5)
	} else {
		w = s3 * size * (float64(m.Columns) + 0.5)
		h = 2*size + 1.5*size*float64(m.Rows-1)
	}
	return w + 2*size, h + 2*size
}
