package parser

import (
	"strings"
	"testing"
)

// TestStrikeClassMarkup pins what docs/profiles.md warns profile writers
// of (issue 22 item 11): the default strike selectors know the engines'
// strike markup, not a class-based one such as FluxBB's [s] (<span
// class="bbs">), so there a struck name still counts, until the profile's
// strike selector names the class, as the docs show.
func TestStrikeClassMarkup(t *testing.T) {
	body := `<p><strong>VOTE: <span class="bbs">Ann</span> Bob</strong></p>`
	prof := mustProfile(t, "phpbb")
	if got := strings.Join(MustNew(prof).Segments(body), "|"); got != "VOTE: Ann Bob" {
		t.Errorf("default strike selectors on span.bbs: %q; the docs say the struck name still counts", got)
	}
	prof.Selectors.Strike += ", span.bbs"
	if got := strings.Join(MustNew(prof).Segments(body), "|"); got != "VOTE: Bob" {
		t.Errorf("with span.bbs in selectors.strike: %q, want the struck name gone", got)
	}
}

// TestEditNoticeNotTheEditLink pins the docs' other warning: edit_notice
// is the "last edited by" notice, never the post's own Edit link, which a
// logged-in bot sees on its own posts (a real phpBB 3.3.10 page: post 2 is
// the bot's, with its Edit button; post 3 was edited).
func TestEditNoticeNotTheEditLink(t *testing.T) {
	page := readFixture(t, "real", "phpbb3310_thread_p1.html")
	edited := func(editNotice string) map[string]bool {
		prof := mustProfile(t, "phpbb")
		prof.Selectors.EditNotice = editNotice
		th, err := MustNew(prof).ParseThread(page)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, p := range th.Posts {
			out[p.ID] = p.Edited
		}
		return out
	}
	if e := edited("div.notice"); e["2"] || !e["3"] {
		t.Errorf("edit_notice div.notice: post 2 edited %v, post 3 edited %v; want false, true", e["2"], e["3"])
	}
	if e := edited(`a[href*="mode=edit"]`); !e["2"] {
		t.Errorf("edit_notice on the Edit link: post 2 edited %v; the docs say the bot's own posts read as edited", e["2"])
	}
}
