//go:build linux

package boardtest

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/protest"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/webdesk"
)

// dayEngine is what the GM's day does differently on each engine: where
// the thread is, where the board keeps posts and PMs, and how a player
// edits and a moderator deletes a post.
type dayEngine struct {
	threadPage string // the thread as a player opens it (%d: the thread id)
	// threadRows: id, author, body of the thread's posts; inbox: id, body
	// of the PMs in a member's inbox (%d: the member).
	threadRows, inbox string
	edit              func(t testing.TB, b *realboardtest.Board, as realboardtest.Account, post int, text string)
	// post and pm are a player's post in the thread (its id) and PM to
	// the bot.
	post   func(t testing.TB, b *realboardtest.Board, as realboardtest.Account, text string) int
	pm     func(t testing.TB, b *realboardtest.Board, from realboardtest.Account, text string)
	delete func(t testing.TB, b *realboardtest.Board, post int)
}

func smfPHP(t testing.TB, b *realboardtest.Board, code string) {
	b.PHP(t, `require_once $sourcedir . '/RemoveTopic.php'; require_once $sourcedir . '/Subs-Post.php'; `+code)
}

var dayEngines = map[string]dayEngine{
	realboardtest.PhpBB: {
		threadPage: "viewtopic.php?t=%d",
		threadRows: "SELECT post_id AS id, poster_id AS author, post_text AS body FROM {prefix}posts WHERE topic_id = %d ORDER BY post_id",
		inbox:      "SELECT p.msg_id AS id, p.message_text AS body FROM {prefix}privmsgs p JOIN {prefix}privmsgs_to t ON t.msg_id = p.msg_id WHERE t.user_id = %d AND t.user_id <> p.author_id",
		edit:       EditPost,
		post:       formPost,
		pm:         formPM,
		delete: func(t testing.TB, b *realboardtest.Board, id int) {
			b.PHP(t, fmt.Sprintf(`include_once($phpbb_root_path . 'includes/functions_admin.php'); include_once($phpbb_root_path . 'includes/functions_posting.php'); delete_posts('post_id', [%d]);`, id))
		},
	},
	realboardtest.MyBB: {
		threadPage: "showthread.php?tid=%d",
		threadRows: "SELECT pid AS id, uid AS author, message AS body FROM {prefix}posts WHERE tid = %d ORDER BY pid",
		inbox:      "SELECT pmid AS id, message AS body FROM {prefix}privatemessages WHERE uid = %d AND folder = 1",
		edit:       EditPost,
		post:       formPost,
		pm:         formPM,
		delete: func(t testing.TB, b *realboardtest.Board, id int) {
			// MyBB's moderation code on the board's SQLite beside its
			// own server once answered its error page in a CI run (the
			// database busy): a moderator would click again.
			code := fmt.Sprintf(`require_once MYBB_ROOT . 'inc/class_moderation.php'; $m = new Moderation; $m->delete_post(%d);`, id)
			var err error
			for try := 0; try < 3; try++ {
				if _, err = b.PHPErr(code); err == nil {
					return
				}
				time.Sleep(time.Second)
			}
			t.Fatalf("deleting post %d on MyBB: %v", id, err)
		},
	},
	realboardtest.SMF: {
		threadPage: "index.php?topic=%d.0",
		threadRows: "SELECT id_msg AS id, id_member AS author, body FROM {prefix}messages WHERE id_topic = %d ORDER BY id_msg",
		inbox:      "SELECT pm.id_pm AS id, pm.body AS body FROM {prefix}personal_messages pm JOIN {prefix}pm_recipients r ON r.id_pm = pm.id_pm WHERE r.id_member = %d",
		// SMF's own modifyPost, as its edit form calls it (a form edit
		// needs the editor's session token dance; the stored result is
		// the same).
		edit: func(t testing.TB, b *realboardtest.Board, as realboardtest.Account, post int, text string) {
			smfPHP(t, b, fmt.Sprintf(`rb_as(%d); $body = $smcFunc['htmlspecialchars'](%q, ENT_QUOTES); preparsecode($body);
$msg = ['id' => %d, 'body' => $body, 'modify_time' => time(), 'modify_name' => $user_info['name'], 'modify_member' => %d, 'modify_reason' => ''];
$top = ['id' => %d, 'board' => %d]; $poster = [];
modifyPost($msg, $top, $poster);`, as.ID, text, post, as.ID, b.ThreadID, b.ForumID))
		},
		// Players post and PM through SMF's own code, as smftest's
		// players do (SMF asks members with few posts for a PM captcha).
		post: func(t testing.TB, b *realboardtest.Board, as realboardtest.Account, text string) int {
			return b.Post(t, as, text)
		},
		pm: func(t testing.TB, b *realboardtest.Board, from realboardtest.Account, text string) {
			b.PM(t, from, b.Bot, "orders", text)
		},
		delete: func(t testing.TB, b *realboardtest.Board, id int) {
			smfPHP(t, b, fmt.Sprintf(`rb_as(1); removeMessage(%d);`, id))
		},
	},
}

// Day is a GM's day on one board, for the engine's own tests to add to.
type Day struct {
	T      *testing.T
	B      *realboardtest.Board
	DB     *store.DB
	M      *moderator.Moderator
	Game   *store.Game
	Public string // the web desk's address (public_url)
	eng    dayEngine
	stop   func() // stops the moderator (and waits for it)
}

// GMsDay plays a GM's day on one real board: one Protest game, with the
// moderator running as `forumgm run` runs it and the web desk serving the
// game's public page, on which every step is a subtest and a cell of the
// engine matrix:
//
//   - schedule-zone: the game's deadlines are on a schedule written in
//     another zone (Asia/Kolkata, half an hour off UTC's hours), two days
//     off; the first turn closes at the schedule's slot and the opening
//     post, as a player reads it, states it in the board's zone and UTC;
//   - edits-deletions: a NAME posted in the thread and edited before the
//     deadline is replaced by the edit (the first superseded); a post a
//     moderator deletes is flagged and its NAME stands; an edit after the
//     turn resolved is only flagged;
//   - replacement: the GM replaces a player; the board shows the
//     replacement post once and the new player's orders count for the seat;
//   - counts: the GM's count goes out in the thread;
//   - reminders-prods: the player who never speaks is prodded by PM;
//   - resolve-now-preview: the preview of turn 1 queues nothing, resolve-now
//     for turn 1 queues exactly what it showed, and the same again is
//     refused as stale;
//   - pictures: the opening and the turn's post show the desk's maps as
//     pictures to a player reading the thread, served as PNGs;
//   - vote-log: the desk's public vote log lists the thread's commands
//     (the replaced NAME struck through, each linking its post) and the PM
//     commands only as a number.
//
// Everything the bot sent is on the board exactly once. prepare sets the
// board up as the engine's GM would (exempt bot, SMF's time format). About
// a minute and a half of real time, mostly the prod's wait.
func GMsDay(t *testing.T, engine string, prepare func(t *testing.T, b *realboardtest.Board), edit ...func(*gameconfig.ForumConfig)) {
	eng, ok := dayEngines[engine]
	if !ok {
		t.Fatalf("no GM's day for %s", engine)
	}
	ctx := context.Background()
	names := []string{"Pia", "Quin", "Rob", "Sue", "Una"}
	b := realboardtest.Start(t, engine, realboardtest.Options{Players: append(append([]string(nil), names...), "Tom"), Subject: "Protest, a GM's day"})
	prepare(t, b)

	const zone = "Asia/Kolkata"
	kolkata, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	// Every day at the Kolkata minute 50 h 15 m from now, at least 48 h:
	// each turn closes at that slot, about two days off.
	slot := now.Add(50*time.Hour + 15*time.Minute).In(kolkata)
	const prodAfter = 40 * time.Second
	none := gameconfig.Offsets{}
	d := startProtest(t, b, eng, gameconfig.GameConfig{Players: names, Seed: 5, Start: now,
		Options:   map[string]any{"turn_hours": 1, "sites": 3},
		Setup:     map[string]any{"map": map[string]any{"columns": 5, "rows": 4, "layout": "odd-q"}, "sites": []any{"A1", "C2", "E4"}},
		Deadlines: &gameconfig.Deadlines{At: slot.Format("15:04"), Zone: zone, Minimum: "48h"},
		Reminders: &gameconfig.Reminders{Before: &none, Prod: prodAfter.String()}}, edit...)
	db, m, g, public := d.DB, d.M, d.Game, d.Public
	stop := d.stop
	name := g.Name
	pia := b.Player("Pia")
	reader := Connect(t, b, pia) // the thread as a player reads it
	t0 := time.Now()

	waitFor(t, "the opening post on the board", 60*time.Second, func() bool {
		box := d.Outbox()
		return len(box) > 0 && box[0].State == store.OutboxSent
	})

	t.Run("schedule-zone", func(t *testing.T) {
		matrix.Cell(t, engine, matrix.Schedule)
		st := d.Status()
		if want := slot.Truncate(time.Minute); st.Phase != "turn-1" || !st.Deadline.Equal(want) {
			t.Fatalf("the first turn: %s until %v, want turn-1 until the Kolkata slot %v", st.Phase, st.Deadline, want)
		}
		// The board's zone (the bot's on the board: UTC here) and UTC.
		text := d.page(t, reader).Text()
		if want := rules.WhenUTC(st.Deadline, time.UTC); !strings.Contains(text, want) {
			t.Errorf("the opening as a player reads it does not state the deadline %q", want)
		}
	})

	// The players: two order by PM, two name their organisations in the
	// thread, Una says nothing.
	// Sue's post is not the thread's last when it is deleted: a read
	// covers the posts from the page of the last one seen, and flags
	// those inside its range it no longer finds.
	sue := eng.post(t, b, b.Player("Sue"), "[b]NAME: Sea Dogs[/b] at your service")
	rob := eng.post(t, b, b.Player("Rob"), "We're in. [b]NAME: Red Rovers[/b]")
	eng.pm(t, b, pia, "A 1 B2\nPROTEST C2")
	eng.pm(t, b, b.Player("Quin"), "A 2 D3")
	waitFor(t, "the first orders and names applied", 60*time.Second, func() bool { return d.accepted() == 5 })

	t.Run("edits-deletions", func(t *testing.T) {
		matrix.Cell(t, engine, matrix.Edits)
		eng.edit(t, b, b.Player("Rob"), rob, "Changed our name. [b]NAME: Blue Rovers[/b]")
		waitFor(t, "the edit applied", 60*time.Second, func() bool { return d.org("Rob") == "Blue Rovers" })
		if cs := d.commandsOf("Rob", "Red Rovers"); len(cs) != 1 || cs[0].Status != store.CommandSuperseded {
			t.Errorf("Rob's first NAME in the audit: %+v; want one, superseded", cs)
		}
		eng.delete(t, b, sue)
		waitFor(t, "the deletion seen", 60*time.Second, func() bool {
			var msgs []store.Message
			db.View(ctx, func(tx *store.Tx) error { var err error; msgs, err = tx.Messages(g.ID); return err })
			for _, msg := range msgs {
				if msg.ForumID == strconv.Itoa(sue) {
					return msg.Deleted
				}
			}
			return false
		})
		if cs := d.commandsOf("Sue", "Sea Dogs"); len(cs) != 1 || cs[0].Status != store.CommandAccepted || d.org("Sue") != "Sea Dogs" {
			t.Errorf("Sue's deleted NAME: %+v, org %q; want it to stand", cs, d.org("Sue"))
		}
	})

	t.Run("replacement", func(t *testing.T) {
		matrix.Cell(t, engine, matrix.Replacement)
		tom := b.Player("Tom")
		if _, _, err := m.Replace(ctx, name, "Quin", "Tom", tom.IDString()); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the replacement post on the board", 60*time.Second, func() bool {
			return strings.Contains(d.threadText(t), "Tom replaces Quin")
		})
		eng.pm(t, b, tom, "A 1 E4")
		waitFor(t, "Tom's scan applied", 60*time.Second, func() bool {
			for _, c := range d.commands() {
				if strings.Contains(c.Text, "E4") && c.Status == store.CommandAccepted {
					return true
				}
			}
			return false
		})
	})

	t.Run("counts", func(t *testing.T) {
		matrix.Cell(t, engine, matrix.Counts)
		before := len(d.Outbox())
		n, err := m.Count(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		// The running bot may queue a message of its own meanwhile (a
		// receipt): the count is the one post queued since.
		box := d.Outbox()
		var posts []store.OutboxItem
		var queued []string
		for _, it := range box[before:] {
			queued = append(queued, fmt.Sprintf("%s to %q (%s)", it.Kind, it.Recipient, it.Marker))
			if it.Kind == forum.KindPost {
				posts = append(posts, it)
			}
		}
		if n != 1 || len(posts) != 1 {
			t.Fatalf("the GM's count queued %d messages; since it was asked for: %v", n, queued)
		}
		waitFor(t, "the GM's count on the board", 60*time.Second, d.Drained)
		key := strings.TrimPrefix(posts[0].Marker, forum.MarkerPrefix)
		var body string
		for _, r := range d.rows(t, fmt.Sprintf(eng.threadRows, b.ThreadID)) {
			if slicesContains(forum.Markers(r.Body), key) {
				body = r.Body
			}
		}
		if !strings.Contains(body, "Una") {
			t.Errorf("the GM's count on the board does not name Una, who owes orders: %q", body)
		}
	})

	t.Run("reminders-prods", func(t *testing.T) {
		matrix.Cell(t, engine, matrix.Reminders)
		una := b.Player("Una")
		waitFor(t, "Una's prod in her inbox", time.Until(t0.Add(prodAfter))+90*time.Second, func() bool {
			for _, r := range d.rows(t, fmt.Sprintf(eng.inbox, una.ID)) {
				if strings.Contains(r.Body, "has not heard from you") {
					return true
				}
			}
			return false
		})
	})

	var pv *moderator.Preview
	t.Run("resolve-now-preview", func(t *testing.T) {
		matrix.Cell(t, engine, matrix.ResolveNow)
		waitFor(t, "the outbox sent", 60*time.Second, d.Drained)
		before := d.Outbox()
		p, err := m.Preview(ctx, name, "turn-1")
		if err != nil {
			t.Fatal(err)
		}
		if after := d.Outbox(); len(after) != len(before) || d.Status().Phase != "turn-1" {
			t.Fatalf("the preview queued %d messages or resolved the turn", len(after)-len(before))
		}
		if _, err := m.ResolvePhase(ctx, name, p.Phase); err != nil {
			t.Fatal(err)
		}
		queued := d.Outbox()[len(before):]
		if len(queued) != len(p.Messages) {
			t.Fatalf("the resolution queued %d messages, the preview showed %d", len(queued), len(p.Messages))
		}
		for i, it := range queued {
			if pm := p.Messages[i]; it.Kind != pm.Kind || it.RecipientName != pm.RecipientName || it.Body != pm.Body || it.Marker != pm.Marker {
				t.Errorf("message %d: the resolution queued\n%+v\nthe preview showed\n%+v", i+1, it, pm)
			}
		}
		if _, err := m.ResolvePhase(ctx, name, p.Phase); err == nil || !strings.Contains(err.Error(), "the current phase is turn-2") {
			t.Errorf("a stale resolve-now --phase turn-1: %v", err)
		}
		pv = p
	})
	if pv == nil {
		t.Fatal("turn 1 did not resolve")
	}
	waitFor(t, "turn 1's post and results on the board", 60*time.Second, d.Drained)

	t.Run("pictures", func(t *testing.T) {
		matrix.Cell(t, engine, matrix.Pictures)
		d.CheckPictures(t, reader, 0, 1)
	})

	t.Run("late-edit", func(t *testing.T) {
		matrix.Cell(t, engine, matrix.Edits)
		eng.edit(t, b, b.Player("Rob"), rob, "Too late? [b]NAME: Late Rovers[/b]")
		waitFor(t, "the late edit flagged", 60*time.Second, func() bool {
			for _, c := range d.commands() {
				if c.Player == "Rob" && c.Kind == "edit" && strings.Contains(c.Reason, "after its phase") {
					return true
				}
			}
			return false
		})
		if got := d.org("Rob"); got != "Blue Rovers" {
			t.Errorf("Rob's organisation after the late edit: %q, want Blue Rovers", got)
		}
	})

	t.Run("vote-log", func(t *testing.T) {
		matrix.Cell(t, engine, matrix.VoteLog)
		page := httpGet(t, public+"/p/"+name+"/log")
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		turn1 := doc.Find("#log-turn-1")
		if turn1.Length() != 1 {
			t.Fatalf("no turn 1 in the vote log:\n%s", page)
		}
		if s := turn1.Find("s").Text(); !strings.Contains(s, "Red Rovers") {
			t.Errorf("the replaced NAME is not struck through: struck %q", s)
		}
		text := turn1.Text()
		for _, want := range []string{"Blue Rovers", "Sea Dogs", "4 commands by PM (private)"} {
			if !strings.Contains(text, want) {
				t.Errorf("turn 1's vote log lacks %q:\n%s", want, text)
			}
		}
		for _, never := range []string{"PROTEST C2", "A 2 D3", "A 1 E4"} {
			if strings.Contains(page, never) {
				t.Errorf("the public vote log shows %q, a PM's order", never)
			}
		}
		var links []string
		turn1.Find("td.when a").Each(func(_ int, s *goquery.Selection) { links = append(links, s.AttrOr("href", "")) })
		found := false
		for _, l := range links {
			found = found || (strings.HasPrefix(l, b.URL) && strings.Contains(l, strconv.Itoa(rob)))
		}
		if !found {
			t.Errorf("no link to Rob's post %d on the board among %v", rob, links)
		}
	})

	// A send the board's pace cut short (a loaded machine) goes again at
	// the next drain: the check wants the outbox sent, not caught mid-way.
	waitFor(t, "the outbox sent before the bot stops", 2*time.Minute, d.Drained)
	stop()
	d.CheckExactlyOnce(t)
}

// startProtest creates a Protest game of gc (its players are accounts on
// the board) the way `forumgm new` does, with public_url the address of a
// web desk it serves, and runs the moderator as `forumgm run` does until
// the test ends (or the Day's stop).
func startProtest(t *testing.T, b *realboardtest.Board, eng dayEngine, gc gameconfig.GameConfig, edit ...func(*gameconfig.ForumConfig)) *Day {
	t.Helper()
	ctx := context.Background()
	// The desk's address goes in the game's public_url before the game is
	// created.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	srv.Listener.Close()
	srv.Listener = ln
	public := "http://" + ln.Addr().String()

	gc.PublicURL = public

	dir := t.TempDir()
	pw := filepath.Join(dir, "bot.password")
	if err := os.WriteFile(pw, []byte(b.Bot.Password), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, filepath.Join(dir, "forumgm.db"))
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	// A full read of the thread every 5 s: edits show on no engine's
	// topic list (docs/polling.md), and the day's edits are checked
	// within seconds, not the default interval.
	fc := gameconfig.ForumConfig{URL: b.URL, Engine: b.Engine, Thread: b.ThreadIDString(), Bot: b.Bot.Name,
		PasswordFile: pw, PollSeconds: 1, FloodSeconds: &zero, RequestsPerSecond: 50, FullReadSeconds: 5}
	for _, e := range edit {
		e(&fc)
	}
	var seats []store.Player
	for _, n := range gc.Players {
		a := b.Player(n)
		seats = append(seats, store.Player{Slot: n, ForumName: n, ForumUserID: a.IDString()})
	}
	m := &moderator.Moderator{DB: db, Clock: clock.Real{},
		Log: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
		Connect: func(ctx context.Context, site *gameconfig.Site) (moderator.Forum, error) {
			return forumconn.Connect(site, clock.Real{}, "gmsday-test")
		}}
	g, err := m.Create(ctx, "day-"+b.Engine, "protest", gc, fc, seats)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); m.Run(runCtx) }()
	stop := sync.OnceFunc(func() { cancel(); wg.Wait() })
	t.Cleanup(func() { stop(); db.Close() })

	desk, err := webdesk.New(webdesk.Config{Moderator: m, Secret: "a desk password for the test"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = desk.Handler()
	srv.Start()
	t.Cleanup(srv.Close)

	return &Day{T: t, B: b, DB: db, M: m, Game: g, Public: public, eng: eng, stop: stop}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// CheckPictures checks that the thread, as the reader sees it, shows the
// desk's maps after exactly these turns as pictures, each served as a PNG
// to a browser with no desk session.
func (d *Day) CheckPictures(t *testing.T, reader *forumconn.Conn, turns ...int) {
	t.Helper()
	var srcs []string
	d.page(t, reader).Find("img").Each(func(_ int, s *goquery.Selection) {
		if src, ok := s.Attr("src"); ok && strings.HasPrefix(src, d.Public) {
			srcs = append(srcs, src)
		}
	})
	var want []string
	for _, n := range turns {
		want = append(want, fmt.Sprintf("%s/p/%s/map/%d.png", d.Public, d.Game.Name, n))
	}
	if strings.Join(srcs, " ") != strings.Join(want, " ") {
		t.Fatalf("the thread shows the desk's pictures %v, want %v", srcs, want)
	}
	for _, src := range srcs {
		resp, err := http.Get(src)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("%s: %s %s", src, resp.Status, resp.Header.Get("Content-Type"))
		}
		if _, err := png.Decode(bytes.NewReader(body)); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
}

// page is the game thread's first page as the reader's browser gets it.
func (d *Day) page(t testing.TB, reader *forumconn.Conn) *goquery.Selection {
	t.Helper()
	pg, err := reader.Session.Fetch(context.Background(), fmt.Sprintf(d.eng.threadPage, d.B.ThreadID))
	if err != nil {
		t.Fatal(err)
	}
	return pg.Doc.Selection
}

func httpGet(t testing.TB, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", url, resp.Status)
	}
	return string(b)
}

func waitFor(t testing.TB, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	end := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("gave up after %v waiting for %s", limit, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (d *Day) rows(t testing.TB, sql string) []Row {
	var out []Row
	for _, r := range d.B.Query(t, sql) {
		var br Row
		fmt.Sscan(fmt.Sprint(r["id"]), &br.ID)
		if a, ok := r["author"]; ok {
			fmt.Sscan(fmt.Sprint(a), &br.Author)
		}
		br.Body = fmt.Sprint(r["body"])
		out = append(out, br)
	}
	return out
}

func (d *Day) threadText(t testing.TB) string {
	var b strings.Builder
	for _, r := range d.rows(t, fmt.Sprintf(d.eng.threadRows, d.B.ThreadID)) {
		b.WriteString(r.Body + "\n")
	}
	return b.String()
}

// Outbox is the game's outbox.
func (d *Day) Outbox() []store.OutboxItem {
	var out []store.OutboxItem
	if err := d.DB.View(context.Background(), func(tx *store.Tx) error { var err error; out, err = tx.Outbox(d.Game.ID); return err }); err != nil {
		d.T.Fatal(err)
	}
	return out
}

// Drained: nothing left to send.
func (d *Day) Drained() bool {
	var it *store.OutboxItem
	d.DB.View(context.Background(), func(tx *store.Tx) error {
		var err error
		it, err = tx.NextOutbox(d.Game.ID, time.Now().Add(time.Hour))
		return err
	})
	return it == nil
}

func (d *Day) commands() []store.CommandRow {
	var out []store.CommandRow
	if err := d.DB.View(context.Background(), func(tx *store.Tx) error {
		var err error
		out, err = tx.Commands(d.Game.ID, store.CommandFilter{})
		return err
	}); err != nil {
		d.T.Fatal(err)
	}
	return out
}

func (d *Day) commandsOf(player, text string) []store.CommandRow {
	var out []store.CommandRow
	for _, c := range d.commands() {
		if c.Player == player && strings.Contains(c.Text, text) {
			out = append(out, c)
		}
	}
	return out
}

func (d *Day) accepted() int {
	n := 0
	for _, c := range d.commands() {
		if c.Status == store.CommandAccepted {
			n++
		}
	}
	return n
}

func (d *Day) state() *protest.State {
	var row *store.Game
	if err := d.DB.View(context.Background(), func(tx *store.Tx) error { var err error; row, err = tx.GameByID(d.Game.ID); return err }); err != nil {
		d.T.Fatal(err)
	}
	st, err := protest.Game{}.Decode(row.State)
	if err != nil {
		d.T.Fatal(err)
	}
	return st.(*protest.State)
}

// Status is the game's status now.
func (d *Day) Status() rules.Status { return protest.Game{}.Status(d.state()) }

func (d *Day) org(slot string) string {
	st := d.state()
	for id, p := range st.Players {
		if st.Seats.Display(id) == slot || id == slot {
			return p.Org
		}
	}
	return ""
}

// CheckExactlyOnce: every outbox item sent and on the board once, a post
// in the thread, a PM in its recipient's inbox.
func (d *Day) CheckExactlyOnce(t testing.TB) {
	t.Helper()
	thread := d.threadText(t)
	inboxes := map[string]string{}
	for _, it := range d.Outbox() {
		if it.State == store.OutboxSplit {
			continue
		}
		if it.State != store.OutboxSent {
			t.Errorf("outbox %s (%s to %q) is %s: %s", it.Marker, it.Kind, it.RecipientName, it.State, it.LastError)
			continue
		}
		where := thread
		if it.Kind == forum.KindPM {
			if _, ok := inboxes[it.RecipientID]; !ok {
				var b strings.Builder
				for _, r := range d.rows(t, fmt.Sprintf(d.eng.inbox, mustAtoi(it.RecipientID))) {
					b.WriteString(r.Body + "\n")
				}
				inboxes[it.RecipientID] = b.String()
			}
			where = inboxes[it.RecipientID]
		}
		key := strings.TrimPrefix(it.Marker, forum.MarkerPrefix)
		n := 0
		for _, k := range forum.Markers(where) {
			if k == key {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s %s (to %q) is on the board %d times, want once", it.Kind, it.Marker, it.RecipientName, n)
		}
	}
}

func mustAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// formPost is a player's reply through the board's reply form, waiting
// out the board's flood limit as a person does.
func formPost(t testing.TB, b *realboardtest.Board, as realboardtest.Account, text string) int {
	t.Helper()
	ctx := context.Background()
	c := Connect(t, b, as)
	c.Poster.Unmarked = true // players' posts carry no marker
	c.Poster.Attempts = 60   // phpBB's post review bounces a reply when another came in since the form
	id, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
		return c.Poster.Reply(ctx, b.ThreadIDString(), "player", "", text)
	})
	if err != nil {
		t.Fatalf("%s's reply: %v", as.Name, err)
	}
	return mustAtoi(id)
}

// formPM is a player's PM to the bot through the board's PM form. Marked:
// MyBB's "message sent" page names no PM, so the poster confirms it by
// its marker in the player's sent folder (a marker line is no command).
func formPM(t testing.TB, b *realboardtest.Board, from realboardtest.Account, text string) {
	t.Helper()
	ctx := context.Background()
	c := Connect(t, b, from)
	key := fmt.Sprintf("player.%s.%d", from.Name, time.Now().UnixNano())
	if _, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
		return c.Poster.SendPM(ctx, forum.Author{Name: b.Bot.Name, ID: b.Bot.IDString()}, key, "orders from "+from.Name, text)
	}); err != nil {
		t.Fatalf("%s's PM: %v", from.Name, err)
	}
}
