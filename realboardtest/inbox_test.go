package realboardtest_test

import (
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestInboxMarker: phpBB's and MyBB's selectors.inbox_folder is on their
// real inbox, empty and not, and on no other page; with the board's
// private messages turned off (phpBB allow_privmsg, MyBB enablepms) the
// inbox read fails as no inbox (boardtest.CheckInboxMarker).
func TestInboxMarker(t *testing.T) {
	t.Parallel()
	off := map[string]string{realboardtest.PhpBB: "allow_privmsg", realboardtest.MyBB: "enablepms"}
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			b := realboardtest.Start(t, engine, realboardtest.Options{Players: []string{"Alice", "Bob"}})
			boardtest.CheckInboxMarker(t, b, boardtest.Connect(t, b, b.Bot), func(t testing.TB) { b.Setting(t, off[engine], "0") })
		})
	}
}
