package signups

import (
	"testing"
	"time"

	"github.com/forumgm/forumgm/signup"
	"github.com/forumgm/forumgm/store"
)

// TestItem: an outbox item belongs to the sign-ups by its marker's phase,
// whatever the game's name and instance.
func TestItem(t *testing.T) {
	for marker, want := range map[string]bool{
		"g1.ab12/" + signup.Phase + "/1":       true,
		"g1/" + signup.Phase + "/12":           true,
		"g1.ab12/day-1/3":                      false,
		"g1.ab12/setup/2":                      false,
		"g1.ab12/" + signup.Phase + "-extra/1": false,
		"g1.ab12/" + signup.Phase + "/1.lapse": true,
		"no-slash":                             false,
	} {
		if got := Item(marker); got != want {
			t.Errorf("Item(%q) = %v, want %v", marker, got, want)
		}
	}
}

// TestListOf: while sign-ups run the list is the state's; once the game
// started, its players, closed at its start.
func TestListOf(t *testing.T) {
	close := time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC)
	st := signup.New(3, 5, close, time.Hour, false, "bot", []string{"gm"})
	st, r := st.Join("Ann", "7", close.Add(-time.Hour), "101")
	if !r.OK {
		t.Fatalf("join: %+v", r)
	}
	l := ListOf(store.GameSignups, 3, 5, st, time.Time{}, nil, time.UTC)
	if !l.Open || !l.Close.Equal(close) || len(l.In) != 1 || l.In[0].Name != "Ann" || l.CloseText == "" {
		t.Errorf("open list = %+v", l)
	}
	start := close.Add(-time.Minute)
	l = ListOf(store.GameRunning, 3, 5, nil, start, []store.Player{{ForumName: "Ann", ForumUserID: "7"}, {ForumName: "Ben"}}, time.UTC)
	if l.Open || !l.Close.Equal(start) || len(l.In) != 2 || l.In[0].ID != "7" || l.In[1].Name != "Ben" {
		t.Errorf("started list = %+v", l)
	}
}
