package store_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/pgtest"
)

// benchBoth runs op b.N times on a fresh SQLite file and b.N times on a
// fresh PostgreSQL database and reports each one's time per op and their
// ratio (postgres/sqlite; > 1 means SQLite is faster). Without PostgreSQL
// it reports SQLite alone (or fails under FORUMGM_REQUIRE_POSTGRES=1).
func benchBoth(b *testing.B, op func(b *testing.B, db *store.DB, g *store.Game, i int)) {
	setup := func(dsn string) (*store.DB, *store.Game) {
		db, err := store.Open(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		g := &store.Game{Name: "bench", Kind: "nations", Status: "running"}
		if err := db.Tx(ctx, func(tx *store.Tx) error { return tx.CreateGame(g) }); err != nil {
			b.Fatal(err)
		}
		return db, g
	}
	measure := func(db *store.DB, g *store.Game) float64 {
		start := time.Now()
		for i := 0; i < b.N; i++ {
			op(b, db, g, i)
		}
		return float64(time.Since(start).Nanoseconds()) / float64(b.N)
	}
	sdb, sg := setup(filepath.Join(b.TempDir(), "bench.db"))
	var pdb *store.DB
	var pg *store.Game
	dsn, err := pgtest.TryDSN(b)
	switch {
	case err == nil:
		pdb, pg = setup(dsn)
	case pgtest.Required():
		b.Fatalf("PostgreSQL required but unavailable: %v", err)
	default:
		b.Logf("no PostgreSQL, measuring SQLite alone: %v", err)
	}
	b.ResetTimer()
	s := measure(sdb, sg)
	b.ReportMetric(s, "sqlite-ns/op")
	if pdb != nil {
		p := measure(pdb, pg)
		b.ReportMetric(p, "postgres-ns/op")
		b.ReportMetric(p/s, "pg/sqlite")
	}
}

func BenchmarkRecordMessage(b *testing.B) {
	benchBoth(b, func(b *testing.B, db *store.DB, g *store.Game, i int) {
		err := db.Tx(ctx, func(tx *store.Tx) error {
			m := &store.Message{GameID: g.ID, Kind: "post", ForumID: fmt.Sprint(i), AuthorName: "Alice",
				Time: t0.Add(time.Duration(i) * time.Second), BodyHTML: "<b>VOTE Bob</b> and some words", Hash: "h"}
			_, err := tx.RecordMessage(m)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkEnqueueNextOutbox(b *testing.B) {
	benchBoth(b, func(b *testing.B, db *store.DB, g *store.Game, i int) {
		err := db.Tx(ctx, func(tx *store.Tx) error {
			if err := tx.Enqueue([]store.OutboxItem{{GameID: g.ID, Kind: "post", Body: "Round report", Marker: fmt.Sprintf("b%d", i)}}); err != nil {
				return err
			}
			it, err := tx.NextOutbox(g.ID, t0)
			if err != nil || it == nil {
				return fmt.Errorf("NextOutbox: %v, %v", it, err)
			}
			it.State, it.Attempts, it.SentAt = "sent", 1, t0
			return tx.UpdateOutbox(it)
		})
		if err != nil {
			b.Fatal(err)
		}
	})
}
