package moderator

import (
	"slices"
	"testing"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestCommandsReadOnce: the commands a read takes from the page are
// recorded with each post and PM and applied from there; an edit records
// the new body's; and a board read that brings none (rows from before they
// were recorded) leaves them for apply to read from the stored body, with
// the same outcome.
func TestCommandsReadOnce(t *testing.T) {
	for _, without := range []bool{false, true} {
		name := map[bool]string{false: "read with the page", true: "from the body"}[without]
		t.Run(name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				r := newNations(t, db)
				r.ff.NoCommands = without
				r.ff.Post(r.ctx, "Alice", "I pick [b]CIV: Fire[/b]")
				post := r.ff.LastID()
				r.ff.PM(r.ctx, "Bob", "INVADE Carol")
				r.tick()
				r.ff.Edit(post, "No: [b]CIV: Water[/b]")
				r.tick()
				if s, _ := r.state(); s.CivOf("Alice") != "Water" || !contains(nationsActed(s), "Bob") {
					t.Fatalf("without=%v: civ %s, acted %v", without, s.CivOf("Alice"), nationsActed(s))
				}
				var msgs []store.Message
				r.db.View(r.ctx, func(tx *store.Tx) error {
					var err error
					msgs, err = tx.Messages(r.id)
					return err
				})
				want := map[string][]string{post: {"CIV: Water"}}
				for _, m := range msgs {
					if m.AuthorName == forumtest.Bot {
						continue
					}
					if m.CommandsRead == without {
						t.Errorf("without=%v: %s %s recorded commands %q (read %v)", without, m.Kind, m.ForumID, m.Commands, m.CommandsRead)
					}
					if w, ok := want[m.ForumID]; ok && m.Kind == forum.KindPost && !without && !slices.Equal(m.Commands, w) {
						t.Errorf("the edited post's commands are %q, want %q", m.Commands, w)
					}
				}
				if len(msgs) < 2 {
					t.Fatalf("%d messages recorded", len(msgs))
				}
			})
		})
	}
}

// TestAppliedFromTheRecord: a message whose commands were recorded is
// applied with them, not with what its body would read again.
func TestAppliedFromTheRecord(t *testing.T) {
	site, err := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot"}.Site()
	if err != nil {
		t.Fatal(err)
	}
	l := &loaded{site: site}
	msg := store.Message{Kind: forum.KindPost, BodyHTML: "<strong>CIV: Fire</strong>", Commands: []string{"CIV: Water"}, CommandsRead: true}
	if got := commandsOf(l, msg); !slices.Equal(got, []string{"CIV: Water"}) {
		t.Errorf("recorded: %q", got)
	}
	msg.CommandsRead, msg.Commands = false, nil
	if got := commandsOf(l, msg); !slices.Equal(got, []string{"CIV: Fire"}) {
		t.Errorf("from the body: %q", got)
	}
	pm := store.Message{Kind: forum.KindPM, BodyHTML: "INVADE Carol<br>DEFEND"}
	if got := commandsOf(l, pm); !slices.Equal(got, []string{"INVADE Carol", "DEFEND"}) {
		t.Errorf("a PM from its body: %q", got)
	}
}
