package moderator

// What a game's read of the shared inbox pays to know the account's other
// games, when another game has just changed: run
//
//	go test -run '^$' -bench Siblings ./moderator
//
// 1,000 games on one bot account. Each iteration times three reads of the
// sibling games (as a game's read of PMs asks for them), in turns: after
// nothing changed (the baseline), after another game's own bookkeeping in
// its config was saved (what a count, a reminder or a prod writes), and
// after another game was paused or resumed (a change that does count).
// Reported as ratios to the baseline: config-x-unchanged should stay near
// 1 (nothing to reload), status-x-unchanged small (one game reloaded, not
// every game's revision listed).

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
)

func BenchmarkSiblings(b *testing.B) {
	const n = 1000
	ctx := context.Background()
	names := make([]string, n)
	players := make([][]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("g%04d", i)
		players[i] = []string{fmt.Sprintf("A%04d", i), fmt.Sprintf("B%04d", i)}
	}
	si := newSharedInbox(b, []string{"http://fake/"}, []string{"GMbot"}, names, players)
	db, m, ids := si.db, si.m, si.ids

	var reader *loaded
	if err := db.View(ctx, func(tx *store.Tx) error {
		g, err := tx.GameByID(ids[0])
		if err != nil {
			return err
		}
		reader, err = decodeGame(g)
		return err
	}); err != nil {
		b.Fatal(err)
	}
	reader.site = &gameconfig.Site{Account: reader.forum.Account()}
	read := func() time.Duration {
		s := time.Now()
		if err := db.View(ctx, func(tx *store.Tx) error {
			ix, err := m.siblings(tx, reader)
			if err == nil && len(ix.others(ids[0])) != n-1 {
				err = fmt.Errorf("%d other games; want %d", len(ix.others(ids[0])), n-1)
			}
			return err
		}); err != nil {
			b.Fatal(err)
		}
		return time.Since(s)
	}
	other := ids[n/2]
	bookkeeping := func(i int) {
		err := db.Tx(ctx, func(tx *store.Tx) error {
			g, err := tx.GameByID(other)
			if err != nil {
				return err
			}
			var cfg gameconfig.GameConfig
			if err := json.Unmarshal(g.Config, &cfg); err != nil {
				return err
			}
			cfg.Between = &gameconfig.BetweenState{Phase: fmt.Sprint(i), Asked: true}
			return tx.Save(&store.Changes{Settings: &store.SettingsChange{GameID: other, Config: mustJSON(cfg), Forum: g.Forum}})
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	paused := false
	toggle := func() {
		var err error
		if paused {
			err = m.Resume(ctx, names[n/2])
		} else {
			err = m.Pause(ctx, names[n/2])
		}
		if err != nil {
			b.Fatal(err)
		}
		paused = !paused
	}
	read() // the first read loads every game
	var base, cfgd, status time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// In turns, so that neither gets the warm cache or the cold one.
		for j := 0; j < 3; j++ {
			switch (i + j) % 3 {
			case 0:
				base += read()
			case 1:
				bookkeeping(i)
				cfgd += read()
			case 2:
				toggle()
				status += read()
			}
		}
	}
	b.ReportMetric(float64(cfgd)/float64(base), "config-x-unchanged")
	b.ReportMetric(float64(status)/float64(base), "status-x-unchanged")
	b.ReportMetric(float64(base.Microseconds())/float64(b.N), "unchanged-µs")
}
