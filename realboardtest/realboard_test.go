package realboardtest_test

import (
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestStart brings each board up and checks what Start promises: the
// thread page is served with the opening post, the accounts exist with
// their ids, PHP snippets run inside the board, and Stop ends the server.
func TestStart(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			b := realboardtest.Start(t, engine, realboardtest.Options{Players: []string{"Alice", "Bjørn"}})
			thread := map[string]string{
				realboardtest.PhpBB: "viewtopic.php?t=",
				realboardtest.MyBB:  "showthread.php?tid=",
			}[engine] + b.ThreadIDString()
			accounts := map[string]string{realboardtest.PhpBB: "SELECT user_id AS id, username AS name FROM {prefix}users WHERE user_id IN (%s)",
				realboardtest.MyBB: "SELECT uid AS id, username AS name FROM {prefix}users WHERE uid IN (%s)"}[engine]
			boardtest.CheckStart(t, b, thread, accounts)
		})
	}
}
