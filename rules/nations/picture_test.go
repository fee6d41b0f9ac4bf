package nations

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// played is a three-round game of three nations with two rounds resolved
// (the second's report held for a 30-minute break) and orders already in
// for round 3: what the chart must not show.
func played(t *testing.T) (st rules.State, secondDeadline time.Time) {
	t.Helper()
	g := Game{}
	start := time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC)
	st, _, err := g.Setup(rules.Config{Players: []string{"Ann", "Ben", "Cat"}, Seed: 1, Start: start,
		Options: rules.Options{"rounds": 3, "round_minutes": 10, "break_minutes": 30}})
	if err != nil {
		t.Fatal(err)
	}
	at := start
	apply := func(who, kind string, args ...string) {
		t.Helper()
		at = at.Add(time.Second)
		var err error
		st, _, err = g.Apply(st, rules.Command{Kind: kind, Args: args, Src: rules.Source{Player: who, Channel: rules.Private, Time: at}})
		if err != nil {
			t.Fatal(err)
		}
	}
	resolve := func() time.Time {
		dl := g.Status(st).Deadline
		st, _ = g.Resolve(st, dl)
		at = dl.Add(30 * time.Minute) // the next round opens
		return dl
	}
	apply("Ann", KindInvade, "Ben")
	apply("Ben", KindProsper)
	apply("Cat", KindDefend, "Ann")
	resolve()
	apply("Ann", KindProsper)
	apply("Ben", KindInvade, "Cat")
	apply("Cat", KindProsper)
	dl := resolve()
	return st, dl
}

// summary is what a picture shows, as text a golden file can hold and a
// person can read: the PNG's size, a hash of its pixels (not of its bytes,
// which a change in Go's compressor would alter) and how many pixels each
// nation's colour has; the SVG's hash; the post's caption.
func summary(t *testing.T, st rules.State, turn int) string {
	t.Helper()
	pics, err := Game{}.Draw(st, turn)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "== round %d\n", turn)
	for _, p := range pics {
		if p.GM {
			t.Errorf("round %d: a GM picture (Nations has nothing only the GM may see in its chart)", turn)
		}
		switch p.Format {
		case "png":
			img, err := png.Decode(bytes.NewReader(p.Data))
			if err != nil {
				t.Fatal(err)
			}
			rgba := image.NewRGBA(img.Bounds())
			draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
			fmt.Fprintf(&b, "png %dx%d pixels %x\n", rgba.Bounds().Dx(), rgba.Bounds().Dy(), sha256.Sum256(rgba.Pix))
			count := map[string]int{}
			for i := 0; i < len(rgba.Pix); i += 4 {
				count[fmt.Sprintf("#%02x%02x%02x", rgba.Pix[i], rgba.Pix[i+1], rgba.Pix[i+2])]++
			}
			for i, name := range ChartColorNames[:3] {
				fmt.Fprintf(&b, "  %s %s: %d pixels\n", name, ChartColors[i], count[ChartColors[i]])
			}
		case "svg":
			fmt.Fprintf(&b, "svg %d bytes %x\n", len(p.Data), sha256.Sum256(p.Data))
		}
		fmt.Fprintf(&b, "alt (%s): %s\n", p.Format, p.Alt)
	}
	title, key := Game{}.Caption(st, turn)
	fmt.Fprintf(&b, "caption: %q\nkey: %s\n", title, key)
	return b.String()
}

// TestChartPictures: every resolved round's chart, compared with
// testdata/chart-pictures.txt (-update rewrites it); each round's chart
// has its own pixels, the opening post shows none, and no picture depends
// on the orders already in for the round in progress.
func TestChartPictures(t *testing.T) {
	st, _ := played(t)
	g := Game{}
	if n := g.Turns(st); n != 2 {
		t.Fatalf("Turns = %d, want 2", n)
	}
	var all strings.Builder
	seen := map[string]int{}
	for turn := 0; turn <= 2; turn++ {
		s := summary(t, st, turn)
		all.WriteString(s)
		px := strings.Fields(s[strings.Index(s, "pixels "):])[1]
		if prev, dup := seen[px]; dup {
			t.Errorf("rounds %d and %d draw the same pixels", prev, turn)
		}
		seen[px] = turn
	}
	if _, err := g.Draw(st, 3); err == nil {
		t.Error("round 3 is drawn before it is resolved")
	}
	if title, _ := g.Caption(st, 0); title != "" {
		t.Errorf("the opening gets a chart: %q", title)
	}

	// The orders in for round 3 are secret: the same pictures without them.
	bare := *st.(*State)
	bare.Orders, bare.Next = map[string]Order{}, map[string]Order{}
	withOrders := *st.(*State)
	withOrders.Orders = map[string]Order{"Ann": {Kind: KindInvade, Target: "Cat"}, "Cat": {Kind: KindDefend, Target: "Ann"}}
	for turn := 0; turn <= 2; turn++ {
		a, _ := g.Draw(&bare, turn)
		b, _ := g.Draw(&withOrders, turn)
		for i := range a {
			if !bytes.Equal(a[i].Data, b[i].Data) || a[i].Alt != b[i].Alt {
				t.Errorf("round %d's %s changes with the orders for round 3", turn, a[i].Format)
			}
		}
	}

	golden := filepath.Join("testdata", "chart-pictures.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(all.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if all.String() != string(want) {
		t.Errorf("the pictures differ from %s:\n%s", golden, all.String())
	}
}

// TestChartShownAt: a round's chart is shown when its report is posted,
// at the end of the break after it, and not before.
func TestChartShownAt(t *testing.T) {
	st, dl := played(t)
	g := Game{}
	if got, want := g.ShownAt(st, 2), dl.Add(30*time.Minute); !got.Equal(want) {
		t.Errorf("round 2 shown at %v, want %v (its report's time)", got, want)
	}
	if !g.ShownAt(st, 0).IsZero() {
		t.Error("the start is held back")
	}
	if !g.ShownAt(st, 1).Before(g.ShownAt(st, 2)) {
		t.Error("round 1 is not out before round 2")
	}
}

// TestCaptionEscapes: a name in the key is BBCode-escaped, as in every
// post, and the key names each nation's colour in the chart's order.
func TestCaptionEscapes(t *testing.T) {
	st, _ := played(t)
	s := *st.(*State)
	seats := *s.Seats
	seats.Slots = append([]rules.Slot(nil), seats.Slots...)
	seats.Slots[1].Display = "[b]Ben[/b]"
	s.Seats = &seats
	_, key := Game{}.Caption(&s, 1)
	if strings.Contains(key, "[b]Ben") {
		t.Errorf("a name's BBCode reaches the post: %s", key)
	}
	var order []int
	for _, n := range ChartColorNames[:3] {
		order = append(order, strings.Index(key, "]"+n+"[/color]"))
	}
	if !sort.IntsAreSorted(order) || order[0] < 0 {
		t.Errorf("the key does not list blue, vermilion, green in order: %s", key)
	}
}
