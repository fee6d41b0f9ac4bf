package realboardtest_test

import (
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestMarkerMarkup: the marker line under the bot's post and PM is small
// print on real phpBB and MyBB, in each engine's own [size] units
// (boardtest.CheckMarkerMarkup).
func TestMarkerMarkup(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			b := realboardtest.Start(t, engine, realboardtest.Options{Players: []string{"Alice", "Bob"}})
			b.ExemptBot(t)
			boardtest.CheckMarkerMarkup(t, b, boardtest.Connect(t, b, b.Bot))
		})
	}
}
