package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forumsim"
	_ "github.com/forumgm/forumgm/games"
	"github.com/forumgm/forumgm/internal/partest"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/pgtest"
)

// TestMain runs the package's whole games side by side (partest.Default):
// they mostly wait on their phases, the board's form ages and the runners
// they start, and stops the throwaway PostgreSQL server.
func TestMain(m *testing.M) {
	partest.Default(8)
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	pgtest.Stop()
	os.Exit(code)
}

// TestGamesEndToEnd plays each game to its end on the local forum, through
// the real scraper, parser, moderator and poster, on SQLite and on
// PostgreSQL, with simulated players using the forum's own forms; then
// checks that the thread and the bot's sent folder hold exactly what the
// game's events called for: every outbox item once, in order, nothing else.
func TestGamesEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays whole games in real time")
	}
	// All six games run at once (they mostly wait on their phases); t.Parallel
	// would run only GOMAXPROCS of them at a time.
	type run struct {
		name string
		res  *Result
		err  error
		out  syncBuffer
		done chan struct{}
	}
	var runs []*run
	for _, game := range Games() {
		for _, driver := range []string{"sqlite", "postgres"} {
			dsn := filepath.Join(t.TempDir(), "e2e.db")
			if driver == "postgres" {
				dsn = pgtest.DSN(t)
			}
			r := &run{name: game + "/" + driver, done: make(chan struct{})}
			runs = append(runs, r)
			go func() {
				defer close(r.done)
				ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
				defer cancel()
				r.res, r.err = Run(ctx, Config{Game: game, Speed: 2, DSN: dsn, Out: &r.out})
			}()
		}
	}
	for _, r := range runs {
		<-r.done
		t.Run(r.name, func(t *testing.T) {
			if r.err != nil {
				t.Fatal(r.err)
			}
			defer r.res.DB.Close()
			checkExactlyOnce(t, r.res.Outbox, r.res.BotPosts, r.res.BotPMs)
			if !r.res.Status.Finished {
				t.Errorf("%s did not finish", r.name)
			}
			if r.res.EndedByGM {
				t.Logf("%s ran out of time and was ended by the GM", r.name)
			}
			checkAudit(t, r.res.DB, "demo-"+r.res.Game)
			checkPlayersAreTold(t, r.res)
			// Without --keep the board goes away: its address is given
			// once, at the start, and not again at the end.
			if n := strings.Count(r.out.String(), r.res.ThreadURL); n != 1 {
				t.Errorf("the thread's URL is printed %d times without --keep, want once (at the start)", n)
			}
		})
	}
}

// checkExactlyOnce compares the outbox with what is on the forum.
func checkExactlyOnce(t *testing.T, out []store.OutboxItem, posts []forumsim.Post, pms []forumsim.PM) {
	t.Helper()
	for _, bad := range ExactlyOnce(out, posts, pms) {
		t.Error(bad)
	}
}

// checkAudit: every message the bot read is recorded and processed, and the
// commands carry statuses (and reasons when rejected).
func checkAudit(t *testing.T, db *store.DB, name string) {
	t.Helper()
	ctx := context.Background()
	err := db.View(ctx, func(tx *store.Tx) error {
		g, err := tx.Game(name)
		if err != nil {
			t.Fatal(err)
		}
		msgs, _ := tx.Messages(g.ID)
		cmds, _ := tx.Commands(g.ID, store.CommandFilter{})
		accepted := 0
		for _, m := range msgs {
			if m.Status == "new" {
				t.Errorf("message %s %s was never processed", m.Kind, m.ForumID)
			}
		}
		for _, c := range cmds {
			if c.Status == "accepted" {
				accepted++
			}
			if c.Status == "rejected" && c.Reason == "" {
				t.Errorf("command %d rejected without a reason", c.ID)
			}
		}
		if accepted < 5 {
			t.Errorf("only %d accepted commands in %d messages", accepted, len(msgs))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the audit: %v", err)
	}
}

// checkPlayersAreTold: every post that opens a phase states its deadline,
// and every Protest turn post carries the map.
func checkPlayersAreTold(t *testing.T, res *Result) {
	t.Helper()
	opened, maps := 0, 0
	for _, p := range res.BotPosts {
		// Nations and Protest say "before the deadline below"; a Resistance
		// proposal opens with its leader.
		if strings.Contains(p.Source, "the deadline below") || strings.Contains(p.Source, "Leader: ") {
			opened++
			if !strings.Contains(p.Source, "[b]Deadline:[/b] ") {
				t.Errorf("a phase post without its deadline:\n%s", p.Source)
			}
		}
		if strings.Contains(p.Source, "Protest: results of turn") || strings.Contains(p.Source, "Protest begins") {
			maps++
			if !strings.Contains(p.Source, "[code]") {
				t.Errorf("a Protest turn post without the map:\n%s", p.Source)
			}
		}
	}
	if opened == 0 {
		t.Errorf("%s: no post opened a phase", res.Game)
	}
	if res.Game == "protest" && maps < 2 {
		t.Errorf("protest: %d posts with a map", maps)
	}
}

// syncBuffer is a bytes.Buffer the demo may write to while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
