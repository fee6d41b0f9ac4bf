package gmwords

import (
	"strings"
	"testing"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// TestCheck: what a GM's text may not be, each refusal saying why.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		text, want string // want: in the error ("": accepted)
	}{
		{"The [b]night[/b] falls.", ""},
		{"  \n\t", "empty"},
		{strings.Repeat("x", maxTextBytes+1), "bytes"},
		{"copied " + strings.ToLower(forum.MarkerPrefix) + " line", "marker"},
		{"a\n" + forum.WithMarker("", "", "g/1/1"), "marker"},
	} {
		err := Check(c.text)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("Check(%.30q) = %v, want nil", c.text, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("Check(%.30q) = %v, want an error about %q", c.text, err, c.want)
		}
	}
	if got := Text("a\r\nb\r\n\r\n  "); got != "a\nb" {
		t.Errorf("Text = %q", got)
	}
}

// TestFlavored: the thread's flavor opens the update, a player's opens his
// results, or goes alone after everything when he has none; each is an
// event of the GM's.
func TestFlavored(t *testing.T) {
	r := referee.Step{Out: []referee.Outgoing{{To: rules.Everyone, Text: "Update."}, {To: "Ann", Subject: "results", Text: "Ann's results."}}}
	fs := []store.Flavor{{Text: "Dawn."}, {To: "Ann", Text: "You dream."}, {To: "Ben", Text: "Ben alone."}}
	got := Flavored(r, fs, "Nations", "Round 1")
	want := []referee.Outgoing{
		{To: rules.Everyone, Text: "Dawn.\n\nUpdate."},
		{To: "Ann", Subject: "results", Text: "You dream.\n\nAnn's results."},
		{To: "Ben", Subject: "Nations — Round 1", Text: "Ben alone."},
	}
	if len(got.Out) != len(want) {
		t.Fatalf("out = %+v", got.Out)
	}
	for i := range want {
		if got.Out[i] != want[i] {
			t.Errorf("out[%d] = %+v, want %+v", i, got.Out[i], want[i])
		}
	}
	if len(got.Events) != 3 || got.Events[0].Kind != EventFlavor || got.Events[0].To != rules.Everyone {
		t.Errorf("events = %+v", got.Events)
	}
	if len(r.Out) != 2 || r.Out[0].Text != "Update." {
		t.Errorf("the resolution given was changed: %+v", r.Out)
	}
	// The thread's flavor alone, with no thread post: before everything.
	if got := Flavored(referee.Step{Out: []referee.Outgoing{{To: "Ann", Text: "x"}}}, fs[:1], "N", "R"); got.Out[0].To != rules.Everyone {
		t.Errorf("thread flavor alone = %+v", got.Out)
	}
}
