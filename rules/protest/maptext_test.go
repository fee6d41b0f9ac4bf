package protest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/rules/protest/hexmap"
)

// readGrid reads a text map back: hex name → its character, by the layout
// the grid documents (header lines of column names, then a line per row, or
// two for the flat-topped layouts).
func readGrid(t *testing.T, s *State, text string) map[string]byte {
	t.Helper()
	i, j := strings.Index(text, "[code]\n"), strings.Index(text, "[/code]")
	if i < 0 || j < i {
		t.Fatalf("no code block in\n%s", text)
	}
	lines := strings.Split(strings.TrimSuffix(text[i+len("[code]\n"):j], "\n"), "\n")
	m := s.Map
	deep := len(hexmap.ColumnName(m.Columns - 1))
	label := len(fmt.Sprint(m.Rows))
	perRow := 1
	if m.Layout.Flat() {
		perRow = 2
	}
	if len(lines) != deep+perRow*m.Rows {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), deep+perRow*m.Rows, text)
	}
	out := map[string]byte{}
	for _, h := range m.All() {
		line, at := deep+perRow*h.Row, label+1+2*h.Col
		if shoved(m, h) {
			if m.Layout.Flat() {
				line++
			} else {
				at++
			}
		}
		l := lines[line]
		if !strings.HasPrefix(l, fmt.Sprintf("%*d ", label, h.Row+1)) && !(m.Layout.Flat() && shoved(m, h)) {
			t.Fatalf("line %q does not start with row %d", l, h.Row+1)
		}
		if at >= len(l) {
			t.Fatalf("hex %s: line %q too short", h.Name(), l)
		}
		out[h.Name()] = l[at]
	}
	for c := 0; c < m.Columns; c++ { // the header names each column above it
		var name []byte
		for _, l := range lines[:deep] {
			if ch := l[label+1+2*c]; ch != ' ' {
				name = append(name, ch)
			}
		}
		if string(name) != hexmap.ColumnName(c) {
			t.Fatalf("column %d headed %q", c, name)
		}
	}
	return out
}

// TestMapTextShowsOnlyThePublicMap: every turn's text map marks the revealed
// sites, that turn's hits and misses and the water, and nothing else: no
// hidden site and no silent protest, in every layout; and it is the same
// whichever hexes hide the unrevealed sites.
func TestMapTextShowsOnlyThePublicMap(t *testing.T) {
	t.Parallel()
	for _, layout := range []string{"odd-q", "even-q", "odd-r", "even-r"} {
		t.Run(layout, func(t *testing.T) {
			play := func(hidden string) (*State, *State) {
				s := newGame(t, 4, 28, 6, layout, "C3", "AA5", hidden)
				s.Terrain = map[string]string{"A1": "sea", "B1": "sea"}
				s = pm(t, s, "Alice", "Protest C3")
				s = pm(t, s, "Bob", "Protest AA5")
				s = pm(t, s, "Carol", "Protest AB2") // next to AB1: silent
				s = pm(t, s, "Dave", "Protest M3")   // far from everything: miss
				n1, _ := resolve(s)
				n2, _ := resolve(n1)
				return n1, n2
			}
			n1, n2 := play("AB1")
			want1 := map[string]byte{"C3": '+', "AA5": '+', "M3": 'x', "A1": '~', "B1": '~'}
			want2 := map[string]byte{"C3": '#', "AA5": '#', "A1": '~', "B1": '~'}
			for turn, c := range []struct {
				s    *State
				want map[string]byte
			}{{n1, want1}, {n2, want2}} {
				text, err := c.s.mapText(turn + 1)
				if err != nil {
					t.Fatal(err)
				}
				for name, ch := range readGrid(t, c.s, text) {
					want := c.want[name]
					if want == 0 {
						want = '.'
					}
					if ch != want {
						t.Errorf("turn %d: hex %s shows %q, want %q\n%s", turn+1, name, ch, want, text)
					}
				}
			}
			// The turn posts carry it.
			if _, evs := resolve(n1); !strings.Contains(publicText(evs), "[b]The map after turn 2[/b]") {
				t.Errorf("turn 2's post has no map:\n%s", publicText(evs))
			}
			// Another hiding place for the unrevealed site (the silent protest stays
			// silent): the same map.
			m1, _ := play("AB3") // also next to AB2, so that protest stays silent
			a, _ := n1.mapText(1)
			b, _ := m1.mapText(1)
			if a != b {
				t.Errorf("the text map depends on where a hidden site is:\n%s\n%s", a, b)
			}
		})
	}
}
