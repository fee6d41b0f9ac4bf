package hexmap

import (
	"math"
	"sort"
	"testing"

	"pgregory.net/rapid"
)

func TestColumnNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		col  int
		name string
	}{
		{0, "A"}, {1, "B"}, {25, "Z"}, {26, "AA"}, {27, "AB"}, {51, "AZ"}, {52, "BA"},
		{701, "ZZ"}, {702, "AAA"},
	}
	for _, tc := range tests {
		if got := ColumnName(tc.col); got != tc.name {
			t.Errorf("ColumnName(%d) = %q, want %q", tc.col, got, tc.name)
		}
		h, err := ParseHex(tc.name + "1")
		if err != nil || h.Col != tc.col || h.Row != 0 {
			t.Errorf("ParseHex(%s1) = %v, %v; want col %d", tc.name, h, err, tc.col)
		}
	}
}

func TestParseHex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		col, row int
		ok       bool
	}{
		{"A1", 0, 0, true},
		{"a1", 0, 0, true},
		{" K10 ", 10, 9, true},
		{"A53", 0, 52, true},
		{"ab7", 27, 6, true},
		{"Ab13", 27, 12, true},
		{"AAA1", 702, 0, true},
		{"A01", 0, 0, true},
		{"A0", 0, 0, false},
		{"7A", 0, 0, false},
		{"A", 0, 0, false},
		{"12", 0, 0, false},
		{"A-1", 0, 0, false},
		{"A 1", 0, 0, false},
		{"", 0, 0, false},
		{"ÄB1", 0, 0, false},
		{"AAAAA1", 0, 0, false},
		{"A99999999999999999999", 0, 0, false},
	}
	for _, tc := range tests {
		h, err := ParseHex(tc.in)
		if (err == nil) != tc.ok || (tc.ok && (h.Col != tc.col || h.Row != tc.row)) {
			t.Errorf("ParseHex(%q) = %+v, %v; want col %d row %d ok=%v", tc.in, h, err, tc.col, tc.row, tc.ok)
		}
	}
}

func TestMapParseBounds(t *testing.T) {
	t.Parallel()
	m, err := New(28, 16, OddR)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"A1", "AB16", "ab1", "A16"} {
		if _, err := m.Parse(in); err != nil {
			t.Errorf("Parse(%q): %v", in, err)
		}
	}
	for _, in := range []string{"AC1", "A17", "ZZ99", "Q0"} {
		if _, err := m.Parse(in); err == nil {
			t.Errorf("Parse(%q) accepted, want off-map error", in)
		}
	}
	if _, err := m.Parse("AC1"); err == nil || err.Error() != "AC1 is not on the map (columns A–AB, rows 1–16)" {
		t.Errorf("off-map message: %v", err)
	}
}

func TestParseLayout(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Layout{"odd-q": OddQ, "EVEN_Q": EvenQ, "oddr": OddR, " even-r ": EvenR} {
		if got, err := ParseLayout(in); err != nil || got != want {
			t.Errorf("ParseLayout(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseLayout("hex"); err == nil {
		t.Error("ParseLayout(hex) accepted")
	}
	if m, err := New(3, 3, "EVEN_R"); err != nil || m.Layout != EvenR {
		t.Errorf("New with a loosely written layout: %+v %v", m, err)
	}
	if m, err := New(3, 3, ""); err != nil || m.Layout != OddQ {
		t.Errorf("New without a layout: %+v %v", m, err)
	}
	if _, err := New(0, 3, OddQ); err == nil {
		t.Error("New(0,3) accepted")
	}
}

// Distances worked out by hand: walk the steps on the layout's picture
// (for q layouts a column step moves half a row up or down, for r layouts a
// row step moves half a column left or right).
func TestDistanceByLayout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		layout Layout
		a, b   string
		d      int
	}{
		{OddQ, "A1", "A1", 0},
		{OddQ, "A1", "B1", 1}, // B is lower: A1's lower-right neighbour
		{OddQ, "A2", "B1", 1}, // and A2's upper-right
		{OddQ, "A1", "B2", 2},
		{OddQ, "A1", "C1", 2},
		{OddQ, "A1", "C2", 2},
		{OddQ, "A1", "A3", 2},
		{OddQ, "A1", "D4", 5}, // 3 column steps gain 1.5 rows, 2 more down
		{OddQ, "B2", "C3", 1},
		{OddQ, "C2", "B1", 1},
		{OddQ, "C2", "B3", 2},
		{OddQ, "Z1", "AA1", 1},  // Z (col 25) odd: lower; AA (26) even: A1 of AA is up-right
		{OddQ, "Z1", "AB1", 2},  // two columns right, same row
		{OddQ, "A1", "AB1", 27}, // straight along the top edge zig-zag
		{EvenQ, "A1", "B1", 1},  // A is lower now: B1 is up-right
		{EvenQ, "A1", "B2", 1},
		{EvenQ, "A2", "B1", 2},
		{EvenQ, "A1", "D4", 4}, // A1 sits half a row lower than D1
		{EvenQ, "AA1", "AB2", 1},
		{OddR, "A1", "A2", 1}, // row 2 is shifted right: A2 is A1's down-right
		{OddR, "B1", "A2", 1},
		{OddR, "A1", "B2", 2},
		{OddR, "A1", "B3", 2},
		{OddR, "A1", "A5", 4},
		{OddR, "A1", "E1", 4},
		{OddR, "H15", "AB13", 21}, // 20 columns apart; 2 row steps cover only 1 of them
		{EvenR, "A1", "A2", 1},    // row 1 is shifted right: A2 is A1's down-left
		{EvenR, "A1", "B2", 1},
		{EvenR, "B1", "A2", 2},
		{EvenR, "A1", "B3", 2},
		{EvenR, "AA3", "AB4", 1},
		{EvenR, "AA3", "AB2", 1},
	}
	for _, tc := range tests {
		m, err := New(40, 40, tc.layout)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := m.Parse(tc.a)
		b, _ := m.Parse(tc.b)
		if got := m.Distance(a, b); got != tc.d {
			t.Errorf("%s: distance %s-%s = %d, want %d", tc.layout, tc.a, tc.b, got, tc.d)
		}
		if got := m.Distance(b, a); got != tc.d {
			t.Errorf("%s: distance %s-%s = %d, want %d", tc.layout, tc.b, tc.a, got, tc.d)
		}
	}
}

func names(hs []Hex) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Name())
	}
	sort.Strings(out)
	return out
}

func TestNeighboursByLayout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		layout Layout
		hex    string
		want   []string
	}{
		{OddQ, "B2", []string{"A2", "A3", "B1", "B3", "C2", "C3"}}, // odd column: sides go down
		{OddQ, "C2", []string{"B1", "B2", "C1", "C3", "D1", "D2"}}, // even column: sides go up
		{OddQ, "A1", []string{"A2", "B1"}},                         // corner
		{EvenQ, "B2", []string{"A1", "A2", "B1", "B3", "C1", "C2"}},
		{EvenQ, "C2", []string{"B2", "B3", "C1", "C3", "D2", "D3"}},
		{OddR, "B2", []string{"A2", "B1", "B3", "C1", "C2", "C3"}}, // odd row (index 1): right
		{OddR, "B3", []string{"A2", "A3", "A4", "B2", "B4", "C3"}},
		{EvenR, "B2", []string{"A1", "A2", "A3", "B1", "B3", "C2"}},
		{EvenR, "B3", []string{"A3", "B2", "B4", "C2", "C3", "C4"}},
		{EvenR, "AB3", []string{"AA3", "AB2", "AB4", "AC2", "AC3", "AC4"}},
	}
	for _, tc := range tests {
		m, _ := New(30, 10, tc.layout)
		h, _ := m.Parse(tc.hex)
		got := names(m.Neighbours(h))
		if len(got) != len(tc.want) {
			t.Errorf("%s %s neighbours = %v, want %v", tc.layout, tc.hex, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s %s neighbours = %v, want %v", tc.layout, tc.hex, got, tc.want)
				break
			}
		}
	}
}

func TestWithinCounts(t *testing.T) {
	t.Parallel()
	m, _ := New(40, 40, OddQ)
	h, _ := m.Parse("T20")
	for n, want := range map[int]int{0: 1, 1: 7, 2: 19, 3: 37, 4: 61, 5: 91} {
		if got := len(m.Within(h, n)); got != want {
			t.Errorf("Within(T20, %d) has %d hexes, want %d", n, got, want)
		}
	}
	// At a corner the area is clipped by the map.
	c, _ := m.Parse("A1")
	if got := names(m.Within(c, 1)); len(got) != 3 {
		t.Errorf("Within(A1,1) = %v", got)
	}
}

// geoDistance is an independent oracle: BFS over hexes whose drawn centres are
// one hex-width apart. It shares no code with ToCube.
func geoDistance(m Map, a, b Hex) int {
	const size = 10.0
	step := math.Sqrt(3) * size
	dist := map[Hex]int{a: 0}
	queue := []Hex{a}
	all := m.All()
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		if h == b {
			return dist[h]
		}
		hx, hy := m.Center(h, size)
		for _, o := range all {
			if _, seen := dist[o]; seen {
				continue
			}
			ox, oy := m.Center(o, size)
			if math.Abs(math.Hypot(ox-hx, oy-hy)-step) < 1e-6 {
				dist[o] = dist[h] + 1
				queue = append(queue, o)
			}
		}
	}
	return -1
}

func genMap(t *rapid.T) Map {
	l := rapid.SampledFrom(Layouts).Draw(t, "layout")
	m, err := New(rapid.IntRange(1, 32).Draw(t, "cols"), rapid.IntRange(1, 20).Draw(t, "rows"), l)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func genHex(t *rapid.T, m Map, label string) Hex {
	return Hex{rapid.IntRange(0, m.Columns-1).Draw(t, label+"c"), rapid.IntRange(0, m.Rows-1).Draw(t, label+"r")}
}

// Distance is a metric in every layout, neighbours are exactly the hexes at
// distance 1, and it agrees with walking the drawn picture.
func TestDistanceIsMetric(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		m := genMap(t)
		a, b, c := genHex(t, m, "a"), genHex(t, m, "b"), genHex(t, m, "c")
		dab, dba := m.Distance(a, b), m.Distance(b, a)
		if dab != dba {
			t.Fatalf("not symmetric: %v-%v %d vs %d", a, b, dab, dba)
		}
		if (dab == 0) != (a == b) {
			t.Fatalf("d(%v,%v)=%d", a, b, dab)
		}
		if m.Distance(a, c) > dab+m.Distance(b, c) {
			t.Fatalf("triangle inequality fails for %v %v %v", a, b, c)
		}
		if g := geoDistance(m, a, b); g != dab {
			t.Fatalf("%s %dx%d: distance %v-%v = %d, walking the picture gives %d", m.Layout, m.Columns, m.Rows, a, b, dab, g)
		}
		ns := m.Neighbours(a)
		count := 0
		for _, h := range m.All() {
			if m.Distance(a, h) == 1 {
				count++
			}
		}
		if count != len(ns) {
			t.Fatalf("%v has %d neighbours but %d hexes at distance 1", a, len(ns), count)
		}
		for _, n := range ns {
			if !m.Contains(n) || m.Distance(a, n) != 1 {
				t.Fatalf("neighbour %v of %v at distance %d", n, a, m.Distance(a, n))
			}
		}
		if got := m.FromCube(m.ToCube(a)); got != a {
			t.Fatalf("cube round trip %v -> %v", a, got)
		}
		r := rapid.IntRange(0, 5).Draw(t, "radius")
		in := map[Hex]bool{}
		for _, h := range m.Within(a, r) {
			in[h] = true
		}
		for _, h := range m.All() {
			if in[h] != (m.Distance(a, h) <= r) {
				t.Fatalf("Within(%v,%d) wrong about %v", a, r, h)
			}
		}
		got, err := m.Parse(a.Name())
		if err != nil || got != a {
			t.Fatalf("name round trip %v: %v %v", a, got, err)
		}
	})
}
