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

// TestMarkersWhateverTheCharset (issue 44): a board in a legacy charset
// may show the marker's middle dot as a reference printed as text, or
// mangled (the "Â·" of a "·" submitted in UTF-8 to an ISO-8859-1 board);
// the marker is still found, with its whole key, and never as another.
func TestMarkersWhateverTheCharset(t *testing.T) {
	t.Parallel()
	const key = "nations.k3x9/r2/7"
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"the dot", "forumgm·" + key, []string{key}},
		{"decimal reference shown as text", "forumgm&#183;" + key, []string{key}},
		{"zero-padded reference", "forumgm&#0183;" + key, []string{key}},
		{"hex reference", "forumgm&#xB7;" + key, []string{key}},
		{"hex reference, lower case", "forumgm&#xb7;" + key, []string{key}},
		{"named reference", "forumgm&middot;" + key, []string{key}},
		{"escaped twice, in HTML source", "forumgm&amp;#183;" + key, []string{key}},
		{"UTF-8 read as ISO-8859-1", "forumgmÂ·" + key, []string{key}},
		{"mangled twice", "forumgmÃ‚Â·" + key, []string{key}},
		{"lost to U+FFFD", "forumgm\uFFFD" + key, []string{key}},
		{"lost to ?", "forumgm?" + key, []string{key}},
		{"in a rendered line", `<span style="font-size:85%">forumgmÂ·` + key + `</span>`, []string{key}},
		{"no dot at all", "forumgm" + key, nil},
		{"another character", "forumgm*" + key, nil},
		{"another reference", "forumgm&#184;" + key, nil},
		{"a space", "forumgm " + key, nil},
		{"two markers", "forumgm&#183;a/b/1 forumgmÂ·a/b/12", []string{"a/b/1", "a/b/12"}},
	} {
		got := Markers(tc.text)
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: Markers(%q) = %q, want %q", tc.name, tc.text, got, tc.want)
		}
		if tc.want != nil {
			if !HasMarker(tc.text, key) && tc.want[0] == key {
				t.Errorf("%s: HasMarker is false", tc.name)
			}
			if HasMarker(tc.text, key[:len(key)-1]) {
				t.Errorf("%s: a shorter key matches", tc.name)
			}
		}
	}
	for _, line := range []string{"forumgm&#183;g/x/1", "[size=85]forumgmÂ·g/x/1[/size]", " forumgm?g/x/1"} {
		if !IsMarkerLine(line) {
			t.Errorf("IsMarkerLine(%q) is false", line)
		}
	}
	if IsMarkerLine("forumgm rocks") || IsMarkerLine("VOTE: forumgmÂ·g/x/1") {
		t.Error("IsMarkerLine takes a command for a marker")
	}
}

// FuzzMarkers: whatever text surrounds it, a marker line is found with its
// key, whichever form of the dot a board gave it, and every key found is
// a valid one.
func FuzzMarkers(f *testing.F) {
	f.Add("Round 2 opens.", "g.1/r/2", uint8(0))
	f.Add("Zoë — Łukasz… 🎲", "nations.k3x9/r2/7", uint8(7))
	f.Add("forumgmÂ·", "a", uint8(9))
	dots := []string{"·", "&#183;", "&#xB7;", "&middot;", "&amp;#183;", "Â·", "Ã‚Â·", "\uFFFD", "?"}
	f.Fuzz(func(t *testing.T, text, key string, dot uint8) {
		for _, k := range Markers(text) {
			if !ValidMarkerKey(k) {
				t.Fatalf("Markers(%q) gave the invalid key %q", text, k)
			}
		}
		if !ValidMarkerKey(key) {
			return
		}
		body := text + "\n\nforumgm" + dots[int(dot)%len(dots)] + key + "\n"
		found := false
		for _, k := range Markers(body) {
			if k == key {
				found = true
			}
		}
		if !found {
			t.Fatalf("Markers(%q) lost %q", body, key)
		}
	})
}
