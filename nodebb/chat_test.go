package nodebb

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
)

// fakeChats is a NodeBB of chat rooms only, on a clock the test sets (its
// Date header).
type fakeChats struct {
	mu    sync.Mutex
	now   time.Time
	rooms map[string][]apiMessage // room → messages, oldest first
	// lists and reads count the room lists and room reads asked for.
	lists, reads int
}

func (f *fakeChats) add(room string, mid int, at time.Time, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rooms[room] = append(f.rooms[room], apiMessage{MID: json.Number(fmt.Sprint(mid)), FromUID: "2",
		Timestamp: at.UnixMilli(), Content: "<p>" + text + "</p>"})
}

func (f *fakeChats) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Date", f.now.UTC().Format(http.TimeFormat))
	ok := func(v any) {
		b, _ := json.Marshal(map[string]any{"status": map[string]string{"code": "ok"}, "response": v})
		w.Write(b)
	}
	if fakeSession(w, r, 1) {
		return
	}
	switch {
	case r.URL.Path == "/api/v3/chats":
		f.lists++
		// As NodeBB lists them: newest activity first, a page at a time.
		var rooms []map[string]any
		for id, ms := range f.rooms {
			last := ms[len(ms)-1]
			rooms = append(rooms, map[string]any{"roomId": id, "teaser": map[string]any{"fromuid": 2, "timestamp": last.Timestamp}})
		}
		at := func(r map[string]any) int64 { return r["teaser"].(map[string]any)["timestamp"].(int64) }
		slices.SortFunc(rooms, func(a, b map[string]any) int { return cmp.Compare(at(b), at(a)) })
		start, _ := strconv.Atoi(r.URL.Query().Get("start"))
		stop, _ := strconv.Atoi(r.URL.Query().Get("stop"))
		rooms = rooms[min(start, len(rooms)):min(stop+1, len(rooms))]
		ok(map[string]any{"rooms": rooms})
	case strings.HasSuffix(r.URL.Path, "/messages"):
		f.reads++
		room := strings.Split(r.URL.Path, "/")[4]
		if r.URL.Query().Get("start") != "0" {
			ok(map[string]any{"messages": []apiMessage{}})
			return
		}
		ok(map[string]any{"messages": f.rooms[room]})
	default:
		http.NotFound(w, r)
	}
}

// chatClient is a client of the bot's on the board f, served for the test's length.
func chatClient(t *testing.T, f http.Handler, opt Options) *Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	p, _ := forum.Builtin("nodebb")
	c, err := New(srv.URL, p, forum.Credentials{Username: "GMBot", Password: "pw"}, opt)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestNewPMsSettle: a chat message stored a moment after one with a
// higher id in another room was read is not passed over: a read takes only
// messages older than settle on the board's clock, in (time, id) order, so
// the late one comes with the next read; each message comes once, and the
// read says it holds what was sent up to settle (and a second) before it.
func TestNewPMsSettle(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	f := &fakeChats{now: t0, rooms: map[string][]apiMessage{}}
	c := chatClient(t, f, Options{})
	ctx := context.Background()
	f.add("1", 5, t0.Add(-20*time.Second), "old order")
	f.add("2", 11, t0.Add(-time.Second), "just sent")
	before := time.Now()
	in, err := c.NewPMs(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(in.PMs); got != "5" {
		t.Fatalf("first read: %s, want only the message older than %v", got, settle)
	}
	if d := before.Sub(in.ListedAt); d < settle || d > settle+2*time.Second {
		t.Errorf("ListedAt %v before the read, want about %v", d, settle+time.Second)
	}
	// Message 10 was given its id before 11 but is stored only now.
	f.add("1", 10, t0.Add(-1500*time.Millisecond), "stored late")
	f.mu.Lock()
	f.now = t0.Add(5 * time.Second)
	f.mu.Unlock()
	in2, err := c.NewPMs(ctx, in.Next, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(in2.PMs); got != "10 11" {
		t.Errorf("second read: %s, want 10 11 (time order)", got)
	}
	in3, err := c.NewPMs(ctx, in2.Next, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(in3.PMs) != 0 {
		t.Errorf("third read: %s, want nothing again", ids(in3.PMs))
	}
}

func ids(pms []forum.PrivateMessage) string {
	var s []string
	for _, p := range pms {
		s = append(s, p.ID)
	}
	return strings.Join(s, " ")
}

// TestSharedRoomList: the account's games read their chats through one
// client with ListAge: a room list asked for within it that reaches back
// to a read's cursor, and the rooms read with it, serve every game's read
// (each from its own cursor, each getting every message after it); with
// no ListAge each read lists and reads for itself.
func TestSharedRoomList(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name         string
		age          time.Duration
		lists, reads int
	}{
		{"shared", time.Minute, 1, 2},
		{"each its own", 0, 3, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeChats{now: t0, rooms: map[string][]apiMessage{}}
			cl := chatClient(t, f, Options{ListAge: c.age})
			ctx := context.Background()
			f.add("1", 5, t0.Add(-20*time.Second), "game one's order")
			f.add("2", 7, t0.Add(-15*time.Second), "game two's order")
			// Game two has read nothing yet (its list is every room's);
			// game one has read up to message 5.
			two, err := cl.NewPMs(ctx, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			cur, _ := json.Marshal(pmCursor{Last: 5, At: t0.Add(-20 * time.Second).UnixMilli()})
			one, err := cl.NewPMs(ctx, cur, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ids(one.PMs) != "7" || ids(two.PMs) != "5 7" {
				t.Errorf("game one read %q (want 7), game two %q (want 5 7)", ids(one.PMs), ids(two.PMs))
			}
			if !one.ListedAt.Equal(two.ListedAt) && c.age > 0 {
				t.Errorf("a shared list gives both reads its time: %v and %v", one.ListedAt, two.ListedAt)
			}
			// Game two again, from its new cursor, within the age.
			if again, err := cl.NewPMs(ctx, two.Next, nil); err != nil || len(again.PMs) != 0 {
				t.Errorf("game two again: %q, %v; want nothing", ids(again.PMs), err)
			}
			f.mu.Lock()
			lists, reads := f.lists, f.reads
			f.mu.Unlock()
			if lists != c.lists || reads != c.reads {
				t.Errorf("%d room lists and %d room reads for three reads, want %d and %d", lists, reads, c.lists, c.reads)
			}
		})
	}
}

// TestSharedRoomListEitherOrder: two games whose cursors differ share one
// room list whichever reads first. A list is asked for back to its first
// reader's cursor, but holds every room on the pages it fetched: on a board
// whose rooms fit one page it serves a game whose cursor is older too (it
// once served only newer cursors, and games whose receipts had moved their
// cursors apart each listed for itself). Where the rooms run to more pages
// than the newer cursor needs, the older lists for itself.
func TestSharedRoomListEitherOrder(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name       string
		between    int // rooms with activity between the two cursors
		newerFirst bool
		requests   int // room list requests (a page each)
	}{
		{"older cursor first", 0, false, 1},
		{"newer cursor first", 0, true, 1},
		{"older cursor first, rooms past a page", roomsPerPage, false, 2},
		{"newer cursor first, rooms past a page", roomsPerPage, true, 1 + 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeChats{now: t0, rooms: map[string][]apiMessage{}}
			cl := chatClient(t, f, Options{ListAge: time.Minute})
			f.add("1", 3, t0.Add(-60*time.Second), "game two's order")
			var wantTwo []string
			for i := c.between - 1; i >= 0; i-- {
				f.add(strconv.Itoa(100+i), 100+i, t0.Add(-30*time.Second-time.Duration(i)*100*time.Millisecond), "another game's order")
				wantTwo = append(wantTwo, strconv.Itoa(100+i))
			}
			f.add("1", 5, t0.Add(-20*time.Second), "game one's order")
			f.add("2", 7, t0.Add(-15*time.Second), "game one's second order")
			wantTwo = append(wantTwo, "5", "7")
			// Game one has read up to message 5, game two up to 3.
			one, _ := json.Marshal(pmCursor{Last: 5, At: t0.Add(-20 * time.Second).UnixMilli()})
			two, _ := json.Marshal(pmCursor{Last: 3, At: t0.Add(-60 * time.Second).UnixMilli()})
			ctx := context.Background()
			read := func(cur []byte) string {
				in, err := cl.NewPMs(ctx, cur, nil)
				if err != nil {
					t.Fatal(err)
				}
				return ids(in.PMs)
			}
			var gotOne, gotTwo string
			if c.newerFirst {
				gotOne, gotTwo = read(one), read(two)
			} else {
				gotTwo, gotOne = read(two), read(one)
			}
			if gotOne != "7" || gotTwo != strings.Join(wantTwo, " ") {
				t.Errorf("game one read %q (want 7), game two %q (want %s)", gotOne, gotTwo, strings.Join(wantTwo, " "))
			}
			f.mu.Lock()
			lists := f.lists
			f.mu.Unlock()
			if lists != c.requests {
				t.Errorf("%d room list requests for two reads, want %d", lists, c.requests)
			}
		})
	}
}

// TestRoomListSharedAcrossSlowReads: when two games' reads come round
// further apart than ListAge (a loaded machine, slow ticks), a game still
// takes the list another game asked for after its own last read: it is news
// to it. A list no newer than the game's own last one, or older than three
// ListAges, is not taken.
func TestRoomListSharedAcrossSlowReads(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	const age = 2 * time.Second
	for _, c := range []struct {
		name string
		// the two games' reads, as offsets from t0, in order: game 0 reads
		// at each even index's time, game 1 at each odd one's
		reads []time.Duration
		lists int
	}{
		// Each game reads every 5 s, 2.5 s after the other: game 0
		// takes game 1's lists, one list a round (with ListAge alone,
		// six: each read listed for itself).
		{"apart by more than ListAge", []time.Duration{0, 2500 * time.Millisecond, 5 * time.Second, 7500 * time.Millisecond, 10 * time.Second, 12500 * time.Millisecond}, 4},
		// Game 1 reads long after game 0's list (past three ListAges):
		// too old, it lists for itself.
		{"past three ListAges", []time.Duration{0, 7 * time.Second}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeChats{now: t0, rooms: map[string][]apiMessage{}}
			clk := clock.NewFake(t0)
			cl := chatClient(t, f, Options{ListAge: age, Clock: clk})
			f.add("1", 5, t0.Add(-time.Minute), "an order")
			ctx := context.Background()
			cursors := [2][]byte{}
			for i, at := range c.reads {
				clk.Set(t0.Add(at))
				f.mu.Lock()
				f.now = clk.Now()
				f.mu.Unlock()
				in, err := cl.NewPMs(ctx, cursors[i%2], nil)
				if err != nil {
					t.Fatal(err)
				}
				cursors[i%2] = in.Next
			}
			f.mu.Lock()
			lists := f.lists
			f.mu.Unlock()
			if lists != c.lists {
				t.Errorf("%d room lists for %d reads, want %d", lists, len(c.reads), c.lists)
			}
		})
	}
}

// TestRoomListReach: how far back a room list reaches. A list that ended
// holds every room (0); one cut at a page reaches that page's last room's
// activity; pages of rooms without messages say nothing of it, so a list of
// only those, cut at the last page it may ask for, reaches no time back
// (it once said it held every room).
func TestRoomListReach(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		rooms func(i int) map[string]any // the board's i-th room, newest first
		total int
		want  int64
	}{
		{"the list ends", func(i int) map[string]any {
			return map[string]any{"roomId": i, "teaser": map[string]any{"timestamp": 1000 - i}}
		}, 3, 0},
		{"cut at the last page it may ask for", func(i int) map[string]any {
			return map[string]any{"roomId": i, "teaser": map[string]any{"timestamp": 100000 - i}}
		}, maxRoomPages * roomsPerPage, 100000 - (maxRoomPages*roomsPerPage - 1) + 1},
		{"rooms without messages only", func(i int) map[string]any {
			return map[string]any{"roomId": i}
		}, maxRoomPages * roomsPerPage, math.MaxInt64},
	} {
		t.Run(c.name, func(t *testing.T) {
			board := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if fakeSession(w, r, 1) {
					return
				}
				start, _ := strconv.Atoi(r.URL.Query().Get("start"))
				stop, _ := strconv.Atoi(r.URL.Query().Get("stop"))
				var rooms []map[string]any
				for i := start; i <= stop && i < c.total; i++ {
					rooms = append(rooms, c.rooms(i))
				}
				b, _ := json.Marshal(map[string]any{"status": map[string]string{"code": "ok"}, "response": map[string]any{"rooms": rooms}})
				w.Write(b)
			})
			cl := chatClient(t, board, Options{})
			_, reach, _, err := cl.rooms(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			if reach != c.want {
				t.Errorf("reach %d, want %d", reach, c.want)
			}
		})
	}
}
