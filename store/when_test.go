package store_test

import (
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/store"
)

func TestWhenText(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.DateTime, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zone data:", err)
	}
	const layout = "2006-01-02 15:04:05"
	tests := []struct {
		name string
		m    store.Message
		loc  *time.Location
		want string
	}{
		{"exact", store.Message{Stamp: forum.ExactStamp(at("2026-12-06 12:03:40"), "")}, nil, "2026-12-06 12:03:40"},
		{"a whole minute", store.Message{Stamp: forum.Stamp{Earliest: at("2026-12-06 12:03:00"), Latest: at("2026-12-06 12:04:00"), Precision: forum.PrecisionMinute}}, nil, "2026-12-06 12:03"},
		{"a minute cut short by the read that saw it", store.Message{Stamp: forum.Stamp{Earliest: at("2026-12-06 12:03:00"), Latest: at("2026-12-06 12:03:41"), Precision: forum.PrecisionMinute}}, nil, "2026-12-06 12:03 (between 12:03:00 and 12:03:41)"},
		{"in the board's zone", store.Message{Stamp: forum.Stamp{Earliest: at("2026-12-06 12:03:20"), Latest: at("2026-12-06 12:03:41"), Precision: forum.PrecisionMinute}}, berlin, "2026-12-06 13:03 (between 13:03:20 and 13:03:41)"},
		{"a day", store.Message{Stamp: forum.Stamp{Earliest: at("2026-12-06 00:00:00"), Latest: at("2026-12-07 00:00:00"), Precision: forum.PrecisionDay}}, nil, "2026-12-06"},
		{"unreadable", store.Message{Stamp: forum.UnreadableStamp("yesterday-ish", nil)}, nil, `unreadable time "yesterday-ish"`},
		{"a time only (an older row)", store.Message{Time: at("2026-12-06 12:03:40")}, nil, "2026-12-06 12:03:40"},
	}
	for _, tc := range tests {
		if got := tc.m.WhenText(tc.loc, layout); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	desk := store.Message{Stamp: forum.Stamp{Earliest: at("2026-12-06 00:00:00"), Latest: at("2026-12-07 00:00:00"), Precision: forum.PrecisionDay}}
	if got, want := desk.WhenText(nil, "Mon 2 Jan 2006, 15:04:05 MST"), "Sun 6 Dec 2026 UTC"; got != want {
		t.Errorf("a day in the desk's layout: %q, want %q", got, want)
	}
}
