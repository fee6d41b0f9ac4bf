package moderator

import (
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gamelog"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestAuditInReadingOrder: PM pages stamp to the minute, thread posts to
// the second. The audit lists messages in the order the moderator applied
// them, which is the order a reader met them: a PM stamped 12:03 that the
// bot first saw after a post made at 12:03:40 stands below that post. By
// stamps alone (the audit's order before issue 38), the PM's minute put it
// above.
func TestAuditInReadingOrder(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newNations(t, db)
		at := func(hms string) time.Time {
			v, err := time.Parse(time.TimeOnly, hms)
			if err != nil {
				t.Fatal(err)
			}
			return start.Add(time.Duration(v.Hour())*time.Hour + time.Duration(v.Minute())*time.Minute + time.Duration(v.Second())*time.Second - 12*time.Hour)
		}
		minute := func(hm, seen string) forum.Stamp {
			e := at(hm + ":00")
			st, ok := forum.Stamp{Earliest: e, Latest: e.Add(time.Minute), Precision: forum.PrecisionMinute, Text: hm}.Narrow(time.Time{}, at(seen))
			if !ok {
				t.Fatalf("narrowing %s by %s", hm, seen)
			}
			return st
		}
		msgs := []store.Message{
			{Kind: forum.KindPM, ForumID: "5", AuthorName: "Bob", Stamp: minute("12:03", "12:03:55"), FirstSeen: at("12:03:55")},
			{Kind: forum.KindPost, ForumID: "100", AuthorName: "Alice", Stamp: forum.ExactStamp(at("12:03:40"), ""), FirstSeen: at("12:03:41")},
			{Kind: forum.KindPM, ForumID: "4", AuthorName: "Carol", Stamp: minute("12:02", "12:02:30"), FirstSeen: at("12:02:30")},
			{Kind: forum.KindPost, ForumID: "101", AuthorName: "Carol", Stamp: forum.ExactStamp(at("12:03:58"), ""), FirstSeen: at("12:04:01")},
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(db.Tx(r.ctx, func(tx *store.Tx) error {
			for i := range msgs {
				m := msgs[i]
				m.GameID, m.BodyHTML, m.Hash = r.id, "hello", "h"+m.ForumID
				if _, err := tx.RecordMessage(&m); err != nil {
					return err
				}
			}
			return nil
		}))
		rows, _, err := r.m.Audit(r.ctx, "n1", gamelog.Filter{})
		must(err)
		var got []string
		for _, row := range rows {
			if row.Message.AuthorName != "GMbot" {
				got = append(got, string(row.Message.Kind)+" "+row.Message.ForumID)
			}
		}
		if g, want := strings.Join(got, ", "), "pm 4, post 100, pm 5, post 101"; g != want {
			t.Errorf("audit order %s, want %s", g, want)
		}
		for _, row := range rows {
			if row.Message.Kind == forum.KindPM && row.Message.ForumID == "5" {
				if g, want := row.Message.WhenText(time.UTC, "2006-01-02 15:04:05"), "2026-03-01 12:03 (between 12:03:00 and 12:03:55)"; g != want {
					t.Errorf("the PM's time %q, want %q", g, want)
				}
			}
		}
	})
}
