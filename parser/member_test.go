package parser

import (
	"bytes"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/forum"
)

// TestMemberAtSMF reads SMF 2.1's profile pages as `replace` looks a new
// player up (saved from a real board: index.php?action=profile;user=NAME):
// the heading's own text is the name (its span is the member's group),
// the canonical link the user id; a name with no member is SMF's error
// page, which names nobody.
func TestMemberAtSMF(t *testing.T) {
	prof, _ := forum.Builtin("smf")
	p := MustNew(prof)
	for _, tc := range []struct {
		file      string
		found     bool
		name, uid string
	}{
		{"smf214_profile.html", true, "Tom", "3"},
		{"smf214_profile_nouser.html", false, "", ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			doc, err := goquery.NewDocumentFromReader(bytes.NewReader(readReal(t, tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			a, found, err := p.MemberAt(doc)
			if err != nil {
				t.Fatal(err)
			}
			if found != tc.found || a.Name != tc.name || a.ID != tc.uid {
				t.Errorf("found %v, %q (id %q); want %v, %q (id %q)", found, a.Name, a.ID, tc.found, tc.name, tc.uid)
			}
		})
	}
}
