package protest

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/rules"
)

// svgFacts is what a picture says, read back with encoding/xml.
type svgFacts struct {
	hexNames []string            // text of every <g class="hex">
	marks    map[string][]string // class of a marked element → its hexes
	texts    []string            // all text
}

func readSVG(t *testing.T, data []byte) svgFacts {
	t.Helper()
	f := svgFacts{marks: map[string][]string{}}
	d := xml.NewDecoder(bytes.NewReader(data))
	var stack []xml.StartElement
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG does not parse: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			stack = append(stack, x)
			attr := map[string]string{}
			for _, a := range x.Attr {
				attr[a.Name.Local] = a.Value
			}
			if c := attr["class"]; c != "" && c != "hex" && c != "legend" && attr["data-hex"] != "" {
				f.marks[c] = append(f.marks[c], attr["data-hex"])
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			txt := strings.TrimSpace(string(x))
			if txt == "" || len(stack) == 0 {
				continue
			}
			f.texts = append(f.texts, txt)
			if stack[len(stack)-1].Name.Local == "text" && len(stack) >= 2 {
				for _, a := range stack[len(stack)-2].Attr {
					if a.Name.Local == "class" && a.Value == "hex" {
						f.hexNames = append(f.hexNames, txt)
					}
				}
			}
		}
	}
	for k := range f.marks {
		sort.Strings(f.marks[k])
	}
	sort.Strings(f.hexNames)
	return f
}

func allNames(s *State) []string {
	var out []string
	for _, h := range s.Map.All() {
		out = append(out, h.Name())
	}
	sort.Strings(out)
	return out
}

func eq(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

func TestPictures(t *testing.T) {
	t.Parallel()
	for _, layout := range []string{"odd-q", "even-q", "odd-r", "even-r"} {
		t.Run(layout, func(t *testing.T) {
			s := newGame(t, 4, 28, 6, layout, "C3", "AA5", "AB1")
			s.Terrain = map[string]string{"A1": "sea", "B1": "sea"}
			s = pm(t, s, "Alice", "Protest C3")
			s = pm(t, s, "Bob", "Protest AA5")
			s = pm(t, s, "Carol", "Protest AB2") // next to AB1 in every layout: silent
			s = pm(t, s, "Dave", "Protest M3")   // far from everything: miss
			n, _ := resolve(s)
			pubSVG, gmSVG, err := Pictures(n, 1)
			if err != nil {
				t.Fatal(err)
			}
			pub, gm := readSVG(t, pubSVG), readSVG(t, gmSVG)
			names := allNames(n)
			if !eq(pub.hexNames, names) || !eq(gm.hexNames, names) {
				t.Fatalf("hex names in the picture: %d of %d", len(pub.hexNames), len(names))
			}
			if !eq(pub.marks["site revealed"], []string{"AA5", "C3"}) || !eq(gm.marks["site revealed"], []string{"AA5", "C3"}) {
				t.Errorf("revealed marks: public %v, GM %v", pub.marks["site revealed"], gm.marks["site revealed"])
			}
			if len(pub.marks["site hidden"]) != 0 || !eq(gm.marks["site hidden"], []string{"AB1"}) {
				t.Errorf("hidden marks: public %v, GM %v", pub.marks["site hidden"], gm.marks["site hidden"])
			}
			if !eq(pub.marks["protest hit"], []string{"AA5", "C3"}) || !eq(pub.marks["protest miss"], []string{"M3"}) {
				t.Errorf("public protest marks %v", pub.marks)
			}
			if len(pub.marks["protest silent"]) != 0 || !eq(gm.marks["protest silent"], []string{"AB2"}) {
				t.Errorf("silent marks: public %v, GM %v", pub.marks["protest silent"], gm.marks["protest silent"])
			}
			if strings.Count(string(pubSVG), `data-hex="AB1"`) != 1 {
				t.Error("AB1 marked in the public picture")
			}
			if !strings.Contains(string(pubSVG), `data-hex="A1" data-terrain="sea"`) {
				t.Error("terrain not drawn")
			}
			// Before the turn: nothing revealed, no protests.
			p0, _, err := Pictures(n, 0)
			if err != nil {
				t.Fatal(err)
			}
			if f := readSVG(t, p0); len(f.marks) != 0 {
				t.Errorf("start picture has marks %v", f.marks)
			}
			if _, _, err := Pictures(n, 2); err == nil {
				t.Error("picture of an unplayed turn")
			}

			// PNG: the revealed site's centre is purple in both, the hidden
			// one only in the GM's.
			pubPNG, gmPNG, err := PicturesPNG(n, 1)
			if err != nil {
				t.Fatal(err)
			}
			w, h := n.Map.PixelSize(12)
			centre := func(data []byte, hex string) [3]uint32 {
				img, err := png.Decode(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				if b := img.Bounds(); b.Dx() != int(math.Ceil(w)) || b.Dy() != int(math.Ceil(h)) {
					t.Fatalf("PNG size %v, want %.0fx%.0f", b, w, h)
				}
				x, y := n.Map.Center(n.hex(hex), 12)
				r, g, b, _ := img.At(int(x), int(y)).RGBA()
				return [3]uint32{r >> 8, g >> 8, b >> 8}
			}
			purple := [3]uint32{0x7a, 0x1f, 0xa2}
			if centre(pubPNG, "C3") != purple || centre(gmPNG, "C3") != purple {
				t.Error("revealed site not drawn in the PNG")
			}
			if centre(pubPNG, "AB1") == centre(gmPNG, "AB1") {
				t.Error("hidden site looks the same in the public and GM PNG")
			}
		})
	}
}

func TestPicturesRejectOtherState(t *testing.T) {
	t.Parallel()
	var s rules.State = &otherState{}
	if _, _, err := Pictures(s, 0); err == nil {
		t.Error("drew a non-protest state")
	}
}

type otherState struct{}

func (*otherState) Roster() *rules.Roster { return nil }

// TestDraw: the rules.Drawer capability hands out the same four pictures,
// each labelled with whom it is for and its format, and passes errors on.
func TestDraw(t *testing.T) {
	t.Parallel()
	s := newGame(t, 4, 10, 8, "odd-q", "C3", "F5", "H2")
	s = pm(t, s, "Alice", "Protest C3")
	n, _ := resolve(s)
	pics, err := Game{}.Draw(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	pubSVG, gmSVG, _ := Pictures(n, 1)
	pubPNG, gmPNG, _ := PicturesPNG(n, 1)
	want := map[[2]string][]byte{{"public", "svg"}: pubSVG, {"gm", "svg"}: gmSVG, {"public", "png"}: pubPNG, {"gm", "png"}: gmPNG}
	if len(pics) != len(want) {
		t.Fatalf("%d pictures, want %d", len(pics), len(want))
	}
	for _, p := range pics {
		who := map[bool]string{false: "public", true: "gm"}[p.GM]
		if w, ok := want[[2]string{who, p.Format}]; !ok || !bytes.Equal(w, p.Data) {
			t.Errorf("the %s %s picture differs from Pictures'", who, p.Format)
		}
	}
	if _, err := (Game{}).Draw(n, 2); err == nil {
		t.Error("drew an unplayed turn")
	}
	if got := (Game{}).Turns(n); got != 1 {
		t.Errorf("Turns after one resolution: %d, want 1", got)
	}
	if got := (Game{}).Turns(s); got != 0 {
		t.Errorf("Turns before any resolution: %d, want 0", got)
	}
}
