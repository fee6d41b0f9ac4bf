package smftest

import (
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestStart brings an SMF board up and checks what Start promises: the
// thread page is served with the opening post at the copy's own URL, the
// accounts exist with their ids, PHP snippets run inside the board, and
// Stop ends the server.
func TestStart(t *testing.T) {
	t.Parallel() // top-level too: a sequential test holds every parallel one back
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: []string{"Alice", "Bjørn"}})
	boardtest.CheckStart(t, b, "index.php?topic="+b.ThreadIDString()+".0",
		"SELECT id_member AS id, member_name AS name FROM {prefix}members WHERE id_member IN (%s)",
		b.URL+"index.php?topic="+b.ThreadIDString())
}
