package forumconn_test

import (
	"context"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/scraper/fakemybb"
)

// TestMember: `replace` checks the new account on the board through the
// profile's member page: phpBB's profile by name (the local board), MyBB's
// member list searched for one name (the MyBB fake). The name comes back as
// the board writes it, with the user id; an unknown name is not found.
func TestMember(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)
	clk := clock.NewFake(t0)
	t.Setenv("FORUMGM_MEMBER_PW", "s3cret")

	sim := forumsim.New(forumsim.Options{Clock: clk})
	if _, err := sim.AddUser("GMBot", "s3cret", true); err != nil {
		t.Fatal(err)
	}
	zoe, err := sim.AddUser("Zoë Bold", "z", false)
	if err != nil {
		t.Fatal(err)
	}
	phpbb := httptest.NewServer(sim)
	defer phpbb.Close()

	board := fakemybb.New(clk)
	board.AddUser("GMBot", "s3cret")
	ann := board.AddUser("Ann", "a")
	mybb := httptest.NewServer(board)
	defer mybb.Close()

	for _, c := range []struct {
		engine, url, name string
		want              forum.Author
		found             bool
	}{
		{"phpbb", phpbb.URL + "/", "zoë bold", forum.Author{Name: "Zoë Bold", ID: itoa(zoe)}, true},
		{"phpbb", phpbb.URL + "/", "Zoe", forum.Author{}, false},
		{"mybb", mybb.URL + "/forum/", "ANN", forum.Author{Name: "Ann", ID: itoa(ann)}, true},
		{"mybb", mybb.URL + "/forum/", "Anne", forum.Author{}, false},
	} {
		fc := gameconfig.ForumConfig{URL: c.url, Engine: c.engine, Thread: "1", Bot: "GMBot", PasswordEnv: "FORUMGM_MEMBER_PW"}
		conn, err := forumconn.Connect(siteOf(t, fc), clk, "test")
		if err != nil {
			t.Fatal(err)
		}
		got, found, err := conn.Member(context.Background(), c.name)
		if err != nil {
			t.Fatalf("%s %q: %v", c.engine, c.name, err)
		}
		if found != c.found || got != c.want {
			t.Errorf("%s %q: %+v found=%v, want %+v found=%v", c.engine, c.name, got, found, c.want, c.found)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
