package probe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/scraper"
)

// TestProbeClosedBoard: probing a board its admin has closed (the real
// phpBB 3.3.10 closed page) fails the login check saying so, not "check
// the password" or "set selectors.logged_in".
func TestProbeClosedBoard(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("../parser/testdata/real/phpbb3310_closed.html")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(page) }))
	t.Cleanup(srv.Close)
	r, err := Run(context.Background(), Config{URL: srv.URL + "/", Profile: builtin("phpbb"), Thread: "2",
		Creds: forum.Credentials{Username: "GMBot", Password: "pw"}, Scraper: scraper.Options{MinInterval: time.Millisecond, Retries: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if c := check(t, r, "login"); r.OK || c.Status != Fail || !strings.Contains(c.Fix, "closed for maintenance") || !strings.Contains(c.Detail, "currently unavailable") {
		t.Errorf("closed board: %+v\n%s", c, text(r))
	}
}
