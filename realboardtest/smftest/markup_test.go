package smftest

import (
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestMarkerMarkup: the marker line under the bot's post and PM is small
// print on a real SMF (its [size] takes no percentage: phpBB's [size=85]
// would show raw), as boardtest.CheckMarkerMarkup checks.
func TestMarkerMarkup(t *testing.T) {
	t.Parallel()
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: []string{"Alice", "Bob"}})
	setUpBot(t, b)
	boardtest.CheckMarkerMarkup(t, b, boardtest.Connect(t, b, b.Bot))
}
