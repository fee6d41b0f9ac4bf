package signup

import (
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/rules"
)

// FuzzSignupPost reads sign-ups from untrusted posts as the moderator does:
// a post's body as each built-in board renders it, through the board's
// body reader (command segments) and Read, by an author of any name and
// id, then the list's posts. It must never panic, and always: every
// command read is /in or /out, the list holds at most Max, nobody twice
// (by name, by id, or by a name the bot could not tell apart), no name
// without letters or digits, the bot and the GM never; and the posts carry
// no BBCode or direction control from a name.
func FuzzSignupPost(f *testing.F) {
	for _, seed := range []struct{ body, name, id string }{
		{"<strong>/in</strong>", "Ann", "52"},
		{"<b>/OUT!</b> bye", "Ben", "53"},
		{`<blockquote><strong>/in</strong></blockquote><span style="font-weight: bold">/in</span>`, "[url=x]Eve\u202e", "9"},
		{"<s><strong>/in</strong></s><strong> /in. </strong>", "ann_", ""},
		{"<strong>/in</strong><strong>/out</strong><strong>/in</strong>", "GMBot", "1"},
		{"<strong>/in</strong>", "TheHost", "2"},
		{"<strong>/in</strong>", "\u202e\u2066", "3"},
	} {
		f.Add(seed.body, seed.name, seed.id)
	}
	var readers []*parser.BodyReader
	for _, n := range forum.BuiltinNames() {
		p, _ := forum.Builtin(n)
		r, err := parser.NewBodyReader(p)
		if err != nil {
			f.Fatal(err)
		}
		readers = append(readers, r)
	}
	f.Fuzz(func(t *testing.T, body, name, id string) {
		for _, rd := range readers {
			s := New(2, 4, t0.Add(time.Hour), time.Hour, true, "GMBot", []string{"TheHost"})
			// Others in first, so the author meets a list.
			s, _ = s.Join("Ann", "52", t0, "1")
			s, _ = s.Join("Bob", "53", t0, "2")
			var results []Result
			for _, c := range Read(rd.Segments(body)) {
				if k, ok := Parse(c.Text); !ok || k != c.Kind {
					t.Fatalf("read %q as %s, but it parses as %q %v", c.Text, c.Kind, k, ok)
				}
				var r Result
				if c.Kind == In {
					s, r = s.Join(name, id, t0, "3")
				} else {
					s, r = s.Leave(name, id)
				}
				results = append(results, r)
			}
			checkList(t, s)
			checkEscaped(t, s.ListText(results, time.UTC, t0))
			checkEscaped(t, s.ClosedText(Filled, results))
			checkEscaped(t, s.ExtendedText(results, time.UTC, t0))
			checkEscaped(t, s.CancelledText(results, false))
		}
	})
}

func checkList(t *testing.T, s State) {
	t.Helper()
	if len(s.In) > s.Max {
		t.Fatalf("%d in, at most %d", len(s.In), s.Max)
	}
	names, ids := map[string]bool{}, map[string]bool{}
	for _, e := range s.In {
		k := rules.NormName(e.Name)
		switch {
		case k == "":
			t.Fatalf("%q is in, with no letters or digits", e.Name)
		case names[k]:
			t.Fatalf("two in the bot cannot tell apart: %q", e.Name)
		case e.ID != "" && ids[e.ID]:
			t.Fatalf("user id %s in twice", e.ID)
		case strings.EqualFold(e.Name, s.Bot) || s.isGM(e.Name):
			t.Fatalf("%q is in", e.Name)
		case s.NeedIDs && e.ID == "":
			t.Fatalf("%q is in without a user id", e.Name)
		}
		names[k], ids[e.ID] = true, true
	}
}
