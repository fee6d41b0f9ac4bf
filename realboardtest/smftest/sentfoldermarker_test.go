package smftest

import (
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestSentFolderMarker: SMF's selectors.sent_folder is on its real sent
// folder, empty and not, and on no other page
// (boardtest.CheckSentFolderMarker).
func TestSentFolderMarker(t *testing.T) {
	t.Parallel()
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: []string{"Alice", "Bob"}})
	setUpBot(t, b)
	boardtest.CheckSentFolderMarker(t, b, boardtest.Connect(t, b, b.Bot))
}
