package realboardtest_test

import (
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestSentFolderMarker: phpBB's and MyBB's selectors.sent_folder is on
// their real sent folder (and phpBB's outbox), empty and not, and on no
// other page (boardtest.CheckSentFolderMarker).
func TestSentFolderMarker(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			b := realboardtest.Start(t, engine, realboardtest.Options{Players: []string{"Alice", "Bob"}})
			b.ExemptBot(t)
			boardtest.CheckSentFolderMarker(t, b, boardtest.Connect(t, b, b.Bot))
		})
	}
}
