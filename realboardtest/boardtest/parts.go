//go:build linux

package boardtest

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/store"
)

// Row is a post or PM as the board's database holds it.
type Row struct {
	ID, Author int
	Body       string
}

// PartsOf are the outbox items cut from root, in order.
func PartsOf(box []store.OutboxItem, root int64) []store.OutboxItem {
	var out []store.OutboxItem
	for _, it := range box {
		if it.PartOf == root {
			out = append(out, it)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// CheckSaid: the board's words, as recorded with the split, name the limit
// as the engine's language file has it.
func CheckSaid(t testing.TB, lastError, want string) {
	t.Helper()
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	if !strings.Contains(norm(lastError), norm(want)) {
		t.Errorf("the split's record %q does not hold the board's words %q", lastError, want)
	}
}

// CheckParts checks the parts of split item root, given the game's outbox
// and rows, where they went (the thread's posts, or the recipient's PMs):
// at least two parts, each with its marker line within the limit, each on
// the board once and in order (rows by id, markers within a row in their
// order: MyBB merges a member's consecutive posts), before the thread's
// later posts, and together the whole message. In the thread only the
// bot's posts (author bot) count: a player may quote the bot. It returns
// the parts.
func CheckParts(t testing.TB, box []store.OutboxItem, root store.OutboxItem, limit int, rows []Row, bot int) []store.OutboxItem {
	t.Helper()
	parts := PartsOf(box, root.ID)
	if len(parts) < 2 {
		t.Fatalf("%s was cut into %d parts", root.Marker, len(parts))
	}
	rows = append([]Row(nil), rows...)
	sort.Slice(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	seq, count := map[string]int{}, map[string]int{}
	for _, r := range rows {
		if root.Kind == forum.KindPost && r.Author != bot {
			continue
		}
		for _, k := range forum.Markers(r.Body) {
			count[k]++
			if seq[k] == 0 {
				seq[k] = len(seq) + 1
			}
		}
	}
	var text []string
	last := 0
	for i, p := range parts {
		key := strings.TrimPrefix(p.Marker, forum.MarkerPrefix)
		if n := forum.MessageSize(forum.WithMarker(longestMarkup(), p.Body, key)); n > limit {
			t.Errorf("part %d of %s is of size %d with its marker (forum.MessageSize), over the limit %d", i+1, root.Marker, n, limit)
		}
		head := fmt.Sprintf("(part %d of %d)\n", i+1, len(parts))
		if !strings.HasPrefix(p.Body, head) {
			t.Errorf("part %d of %s does not begin %q: %.40q", i+1, root.Marker, head, p.Body)
		}
		text = append(text, strings.TrimPrefix(p.Body, head))
		at := seq[key]
		switch {
		case count[key] != 1:
			t.Errorf("part %d of %s (%s) is on the board %d times, want once", i+1, root.Marker, key, count[key])
		case at <= last:
			t.Errorf("part %d of %s is on the board before part %d", i+1, root.Marker, i)
		}
		last = at
	}
	if root.Kind == forum.KindPost {
		// The thread's later posts went out after the parts.
		for _, it := range box {
			key := strings.TrimPrefix(it.Marker, forum.MarkerPrefix)
			if it.Kind == forum.KindPost && it.ID > root.ID && it.PartOf == 0 && it.State == store.OutboxSent && seq[key] <= last {
				t.Errorf("post %s, queued after %s, is on the board before its last part", it.Marker, root.Marker)
			}
		}
	}
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	if squeeze(strings.Join(text, "\n")) != squeeze(root.Body) {
		t.Errorf("the parts of %s do not hold its text:\n%s\n---- want ----\n%s", root.Marker, strings.Join(text, "\n"), root.Body)
	}
	t.Logf("%s (%d bytes): %d parts on the board in order", root.Marker, len(root.Body), len(parts))
	return parts
}

// longestMarkup is the longest marker markup of the built-in engines: a
// part that fits with it fits on every one of them.
func longestMarkup() string {
	var m string
	for _, name := range forum.BuiltinNames() {
		if p, _ := forum.Builtin(name); len(p.MarkerMarkup) > len(m) {
			m = p.MarkerMarkup
		}
	}
	return m
}
