package scraper

import "testing"

// A session's first fetch logs in first rather than fetching the page as
// a guest to learn it must (issue 39: one request less per game at
// start): the login page, its submission (its answer shows it worked),
// then the thread's one page. After a forced logout the page shows the
// guest first, as always.
func TestFirstFetchLogsInFirst(t *testing.T) {
	t.Parallel()
	r := newRig(t, 3)
	res, posts := r.read(t, Cursor{})
	if len(posts) != 3 || r.board.Logins != 1 {
		t.Fatalf("first read: %d posts, %d logins", len(posts), r.board.Logins)
	}
	if r.board.Requests != 3 {
		t.Errorf("the first read took %d requests, want 3 (the login page, the login, the thread; was 4 with the guest page first)", r.board.Requests)
	}
	r.board.LogoutAll()
	before := r.board.Requests
	if _, posts := r.read(t, res.Cursor); len(posts) != 3 || r.board.Logins != 2 {
		t.Fatalf("after a forced logout: %d posts, %d logins", len(posts), r.board.Logins)
	}
	if n := r.board.Requests - before; n != 4 {
		t.Errorf("a read after a forced logout took %d requests, want 4 (the guest page, the login page, the login, the thread)", n)
	}
}
