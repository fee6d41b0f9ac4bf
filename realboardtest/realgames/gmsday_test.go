package realgames

import (
	"fmt"
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestGMsDay plays boardtest.GMsDay (a GM's day with one Protest game:
// a schedule in another zone, edits and a deletion, a replacement, the
// GM's count, a prod, preview and resolve-now, pictures, the public vote
// log; each a subtest and a cell of the engine matrix) on phpBB and MyBB,
// side by side. About a minute and a half.
func TestGMsDay(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a GM's day on real boards")
	}
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			boardtest.GMsDay(t, engine, func(t *testing.T, b *realboardtest.Board) { b.ExemptBot(t) })
		})
	}
}

// TestPicturesOffMyBB: boardtest.PicturesOff on MyBB with the forum's
// "Allow [img] Code" off (forums.allowimgcode, as the admin's forum
// permissions set it, the forum cache rebuilt).
func TestPicturesOffMyBB(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a turn on a real board")
	}
	boardtest.PicturesOff(t, realboardtest.MyBB, func(t *testing.T, b *realboardtest.Board) { b.ExemptBot(t) },
		func(t *testing.T, b *realboardtest.Board) {
			b.PHP(t, fmt.Sprintf(`$db->update_query('forums', ['allowimgcode' => 0], 'fid = %d'); $cache->update_forums();`, b.ForumID))
		}, `"Allow [img] Code"`)
}
