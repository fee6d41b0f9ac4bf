package forum

import "testing"

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
