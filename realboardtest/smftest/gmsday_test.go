package smftest

import (
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestGMsDay plays boardtest.GMsDay (a GM's day with one Protest game:
// a schedule in another zone, edits and a deletion, a replacement, the
// GM's count, a prod, preview and resolve-now, pictures, the public vote
// log; each a subtest and a cell of the engine matrix) on SMF, the bot set
// up as setUpBot does. About a minute and a half.
func TestGMsDay(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a GM's day on a real board")
	}
	t.Parallel()
	boardtest.GMsDay(t, realboardtest.SMF, setUpBot)
}

// TestPicturesOff: boardtest.PicturesOff on SMF with img among the
// disabled BBC tags (disabledBBC, as the admin's "Enabled BBC tags" list
// saves it).
func TestPicturesOff(t *testing.T) {
	t.Parallel()
	boardtest.PicturesOff(t, realboardtest.SMF, setUpBot,
		func(t *testing.T, b *realboardtest.Board) { b.Setting(t, "disabledBBC", "img") }, "disabled BBC")
}
