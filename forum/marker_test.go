package forum

import (
	"strings"
	"testing"
)

func TestMarkers(t *testing.T) {
	t.Parallel()
	body := `<p>Round 2</p><span style="font-size: 85%">forumgm·spies.k3x9/m1-p1/12</span> and forumgm·other/x/3`
	got := Markers(body)
	if len(got) != 2 || got[0] != "spies.k3x9/m1-p1/12" || got[1] != "other/x/3" {
		t.Fatalf("Markers = %q", got)
	}
	tests := []struct {
		key  string
		want bool
	}{
		{"spies.k3x9/m1-p1/12", true},
		{"spies.k3x9/m1-p1/1", false}, // a prefix of a key is another key
		{"other/x/3", true},
		{"nope", false},
	}
	for _, tc := range tests {
		if HasMarker(body, tc.key) != tc.want {
			t.Errorf("HasMarker(%q) != %v", tc.key, tc.want)
		}
	}
	if !ValidMarkerKey("g.1/round-2/7") || ValidMarkerKey("a b") || ValidMarkerKey("[b]") || ValidMarkerKey("") {
		t.Error("ValidMarkerKey")
	}
}

// The marker line is written in one place and recognised in one place: a
// body the bot sends carries it, and a line read back from it is a marker.
func TestMarkerLine(t *testing.T) {
	t.Parallel()
	body := WithMarker("[size=85]{marker}[/size]", "Round 2 opens.\n", "g.1/round-2/7")
	if body != "Round 2 opens.\n\n[size=85]forumgm·g.1/round-2/7[/size]" {
		t.Errorf("WithMarker = %q", body)
	}
	if !HasMarker(body, "g.1/round-2/7") || len(Markers(body)) != 1 {
		t.Errorf("the marker line does not carry its key: %q", body)
	}
	if got := WithMarker("", "Hi", "g/x/1"); got != "Hi\n\nforumgm·g/x/1" {
		t.Errorf("WithMarker with no markup = %q, want the plain marker", got)
	}
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"forumgm·g.1/round-2/7", true},
		{"  forumgm·g/x/1 ", true},
		// Shown raw by a board without the tag: the markup every bot post
		// had before it was the profile's, and the built-ins' now.
		{"[size=85]forumgm·g/x/1[/size]", true},
		{"[size=x-small]forumgm·g/x/1[/size]", true},
		{" [size=0.8em] [i]forumgm·g/x/1[/i][/size] ", true},
		{"VOTE: Bob", false},
		{"VOTE: Bob forumgm·g/x/1", false}, // a command that quotes a marker is still a command
		{"[b]VOTE[/b] forumgm·g/x/1", false},
	} {
		if IsMarkerLine(tc.line) != tc.want {
			t.Errorf("IsMarkerLine(%q) != %v", tc.line, tc.want)
		}
	}
}

// TestMarkerMarkup (issue 22 item 10): the marker's markup is the
// profile's, right for each engine's [size] (phpBB a percentage, MyBB a
// keyword or points, SMF em or 1-7), and a profile's own must put the
// marker alone on its line, so that it is recognised rendered or raw.
func TestMarkerMarkup(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"phpbb": "[size=85]{marker}[/size]",
		"mybb":  "[size=x-small]{marker}[/size]",
		"smf":   "[size=0.8em]{marker}[/size]",
	}
	for _, name := range BuiltinNames() {
		p, _ := Builtin(name)
		if p.MarkerMarkup != want[name] {
			t.Errorf("%s: marker_markup %q, want %q", name, p.MarkerMarkup, want[name])
		}
		line := MarkerLine(p.MarkerMarkup, "g.1/r/2")
		if !IsMarkerLine(line) || !HasMarker(line, "g.1/r/2") {
			t.Errorf("%s: its marker line %q is not recognised", name, line)
		}
	}
	for _, tc := range []struct {
		markup string
		ok     bool
	}{
		{"", true},
		{"{marker}", true},
		{"[i]{marker}[/i]", true},
		{"[size=1][color=gray]{marker}[/color][/size]", true},
		{"[size=85]forumgm[/size]", false},                    // no {marker}
		{"{marker} {marker}", false},                          // twice
		{"sent by the bot: {marker}", false},                  // text around it
		{"[size=85]\n{marker}[/size]", false},                 // two lines
		{"[" + strings.Repeat("x", 100) + "]{marker}", false}, // too long to fit a split part's reserve
	} {
		if err := CheckMarkerMarkup(tc.markup); (err == nil) != tc.ok {
			t.Errorf("CheckMarkerMarkup(%q) = %v, want ok %v", tc.markup, err, tc.ok)
		}
	}
	p, _ := Builtin("phpbb")
	p.MarkerMarkup = "marker: {marker}"
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "marker_markup") {
		t.Errorf("a profile with a bad marker_markup validates: %v", err)
	}
}
