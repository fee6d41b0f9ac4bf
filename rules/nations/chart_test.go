package nations

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// TestChartPNG: the PNG decodes at the layout's size, and each line's
// colour is where its points are drawn.
func TestChartPNG(t *testing.T) {
	series := [][]int{{100, 120, 150}, {100, 80, 0}}
	data, err := ChartPNG([]string{"Ann", "Ben"}, series, 4)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := layout(series, 4, 0)
	if b := img.Bounds(); b.Dx() != int(c.w) || b.Dy() != int(c.bott+24) {
		t.Errorf("size %v", b)
	}
	for i, s := range series {
		want := rgb(ChartColors[i])
		for r, v := range s {
			if r == 0 {
				continue // every nation starts at 100: the last one drawn is on top
			}
			got := img.At(int(c.x(r)), int(c.y(v)))
			if r0, g0, b0, _ := got.RGBA(); uint8(r0>>8) != want.R || uint8(g0>>8) != want.G || uint8(b0>>8) != want.B {
				t.Errorf("nation %d, round %d (%d VP): pixel %v, want the line's %v", i, r, v, got, want)
			}
		}
	}
}

// TestChartSVGEscapes: a name is text in the drawing, never markup, and
// its bidi controls are dropped.
func TestChartSVGEscapes(t *testing.T) {
	svg := ChartSVG([]string{`<script>alert(1)</script>&"`, "Bob\u202eevil"}, [][]int{{100, 90}, {100, 110}}, 3)
	if strings.Contains(string(svg), "<script") || strings.Contains(string(svg), "\u202e") {
		t.Fatalf("the chart carries markup or a bidi control:\n%s", svg)
	}
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the chart is not well-formed XML: %v\n%s", err, svg)
		}
	}
}

// TestPublicChartWaitsForTheReport: a round whose report is held for the
// next round is not in the chart before it is published.
func TestPublicChartWaitsForTheReport(t *testing.T) {
	g := Game{}
	start := time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC)
	st, _, err := g.Setup(rules.Config{Players: []string{"Ann", "Ben", "Cat"}, Seed: 1, Start: start,
		Options: rules.Options{"rounds": 3, "round_minutes": 10, "break_minutes": 30}})
	if err != nil {
		t.Fatal(err)
	}
	src := rules.Source{Player: "Ann", Channel: rules.Private, Time: start.Add(time.Minute)}
	st, _, err = g.Apply(st, rules.Command{Kind: KindProsper, Src: src})
	if err != nil {
		t.Fatal(err)
	}
	dl := g.Status(st).Deadline
	st, _ = g.Resolve(st, dl)
	during, _, err := PublicChart(st, dl.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	after, _, _ := PublicChart(st, dl.Add(31*time.Minute))
	if bytes.Equal(during, after) {
		t.Fatal("the chart is the same during the break and after the report is out")
	}
	if strings.Contains(string(during), "Ann, round 1") || !strings.Contains(string(after), "Ann, round 1") {
		t.Error("round 1's points are shown before the report, or not after it")
	}
	secs := g.Present(st, rules.Viewing{Now: dl.Add(time.Minute)})
	for _, s := range secs {
		for _, tb := range s.Tables {
			if tb.Caption == "Round 1" {
				t.Error("everyone's view shows round 1 before its report")
			}
		}
	}
	gm := g.Present(st, rules.Viewing{GM: true, Now: dl.Add(time.Minute)})
	found := false
	for _, s := range gm {
		for _, tb := range s.Tables {
			found = found || tb.Caption == "Round 1"
		}
	}
	if !found {
		t.Error("the GM's view does not show round 1 during the break")
	}
}
