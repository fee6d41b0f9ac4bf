package smftest

import (
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestInboxMarker: SMF's selectors.inbox_folder is on its real inbox,
// empty and not, and on no other page (boardtest.CheckInboxMarker; SMF
// has no board setting that turns private messages off).
func TestInboxMarker(t *testing.T) {
	t.Parallel()
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: []string{"Alice", "Bob"}})
	setUpBot(t, b)
	boardtest.CheckInboxMarker(t, b, boardtest.Connect(t, b, b.Bot), nil)
}
