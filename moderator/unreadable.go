package moderator

import (
	"fmt"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// A post or PM the parser could not take (nested deeper than the HTML
// parser allows) is recorded as unreadable (forum.UnreadableBody): no
// command can be read from it. Like a message whose time cannot be read,
// it is never a silent drop: the audit log has it rejected with the
// reason, and its author is told by PM, once through the outbox, to send
// the command again, plainly.

// refuseUnreadable records an unreadable message of a player: rejected in
// the audit log with the parser's reason, its author told.
func refuseUnreadable(s *step, msg store.Message, slot, phase string) {
	reason := forum.UnreadableReason(msg.BodyHTML)
	s.refuse(msg, slot, phase, referee.Step{Out: []referee.Outgoing{{To: slot, Subject: "could not be read", Text: unreadableNotice(s, msg)}}},
		reason, store.CommandRejected)
}

// unreadableNotice is what the author of an unreadable message is told:
// which message, why nothing in it counted, and what to do.
func unreadableNotice(s *step, msg store.Message) string {
	const why = "it is nested too deeply for the bot to read (thousands of tags or quotes inside one another), so none of its commands counted"
	if msg.Kind == forum.KindPost {
		which := "Your post " + msg.ForumID + " in the thread"
		if u := s.l.site.PostURL(msg.ForumID); u != "" {
			which += " (" + u + ")"
		}
		return fmt.Sprintf("%s could not be read: %s. Post the command again, plainly: just the command in bold, with no quotes or other tags around it.", which, why)
	}
	which := "Your PM"
	if !msg.Time.IsZero() {
		which += " of " + rules.When(msg.Time, s.l.zone())
	}
	return fmt.Sprintf("%s could not be read: %s. Send it again, plainly: one order a line, with no quotes or formatting.", which, why)
}
