package main

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/gameconfig"
)

// TestFirstReadShowsProgress: the first read of a thread of several pages
// (a game started in a long sign-up thread, a new database) logs how far it
// has got, page by page; an ordinary poll of the last page does not.
func TestFirstReadShowsProgress(t *testing.T) {
	sim := forumsim.New(forumsim.Options{})
	d, err := forumsim.SeedDemo(sim, func(string) string { return "pw-demo" })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim)
	defer srv.Close()
	t.Setenv("FORUMGM_PROGRESS_PW", "pw-demo")
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	fc := gameconfig.ForumConfig{URL: srv.URL + "/", Engine: "phpbb", Thread: strconv.Itoa(d.TopicID), Bot: d.Bot.Name, PasswordEnv: "FORUMGM_PROGRESS_PW", RequestsPerSecond: 1000}
	f, err := connectForum(clock.Real{}, log)(context.Background(), fc)
	if err != nil {
		t.Fatal(err)
	}
	next, _, _, err := f.ReadThread(context.Background(), fc.Thread, nil, func(forum.Post) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), `msg="reading the thread" thread=`+fc.Thread+` page="3 of 3"`) {
		t.Errorf("the first read logged:\n%s", logs.String())
	}
	logs.Reset()
	if _, _, _, err := f.ReadThread(context.Background(), fc.Thread, next, func(forum.Post) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "reading the thread") {
		t.Errorf("an ordinary poll logged progress:\n%s", logs.String())
	}
}
