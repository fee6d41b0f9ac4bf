package rules_test

// Run: go test -run '^$' -fuzz FuzzMatch -fuzztime 30s ./rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/rules"
)

// outcome is what a match gives, minus the error text (which quotes the
// name as written).
type outcome struct {
	id  string
	ids string
	ok  bool
}

func matchOne(r *rules.Roster, s string) outcome {
	id, err := r.Match(s)
	return outcome{id: id, ok: err == nil}
}

func matchList(r *rules.Roster, s string) outcome {
	ids, err := r.MatchList(s)
	return outcome{ids: strings.Join(ids, "\x00"), ok: err == nil}
}

// normParts is how a list splits, each part as NormName sees it.
func normParts(s string) string {
	var out []string
	for _, p := range rules.SplitList(s) {
		out = append(out, rules.NormName(p))
	}
	return fmt.Sprintf("%q", out)
}

// insertAt puts sep before the rune at position i (mod the rune count + 1).
func insertAt(s, sep string, i int) string {
	rs := []rune(s)
	i %= len(rs) + 1
	return string(rs[:i]) + sep + string(rs[i:])
}

// FuzzMatch: Match and MatchList never panic; a match is always a slot id
// (and an error gives none); the result does not change when the name is
// written in upper or lower case, nor (Match) when a space, underscore or
// hyphen is inserted anywhere (MatchList: anywhere that leaves its parts
// the same names).
func FuzzMatch(f *testing.F) {
	r, err := rules.NewRoster(
		[]string{"Alice", "Alicia", "Bob", "Bjørn Ærøe", "Mary_Jane", "Al-Amin", "Ünal Şahin", "Robert", "[/quote]", "Işık"},
		map[string][]string{"Robert": {"Bobby", "Rob"}, "Alice": {"Ali"}})
	if err != nil {
		f.Fatal(err)
	}
	ids := map[string]bool{}
	for _, id := range r.IDs() {
		ids[id] = true
	}
	// Seeds: testdata/fuzz/FuzzMatch (name, where to insert, which separator).
	f.Fuzz(func(t *testing.T, name string, at, which uint8) {
		one := matchOne(r, name)
		if one.ok != ids[one.id] || (!one.ok && one.id != "") {
			t.Fatalf("Match(%q) = %q (ok %v): not a slot id", name, one.id, one.ok)
		}
		list := matchList(r, name)
		if list.ok && list.ids != "" {
			for _, id := range strings.Split(list.ids, "\x00") {
				if !ids[id] {
					t.Fatalf("MatchList(%q) gave %q: not a slot id", name, id)
				}
			}
		} else if !list.ok && list.ids != "" {
			t.Fatalf("MatchList(%q) failed but gave %q", name, list.ids)
		}
		for _, c := range []string{strings.ToUpper(name), strings.ToLower(name)} {
			if got := matchOne(r, c); got != one {
				t.Fatalf("Match(%q) = %+v but Match(%q) = %+v", name, one, c, got)
			}
			if got := matchList(r, c); got != list {
				t.Fatalf("MatchList(%q) = %+v but MatchList(%q) = %+v", name, list, c, got)
			}
		}
		sep := []string{" ", "_", "-"}[int(which)%3]
		ins := insertAt(name, sep, int(at))
		if got := matchOne(r, ins); got != one {
			t.Fatalf("Match(%q) = %+v but Match(%q) = %+v", name, one, ins, got)
		}
		// A list is compared when the insertion leaves its parts the same
		// names (a separator inside or next to the word "and", or a "_" as a
		// part of its own, changes the list itself).
		if normParts(ins) == normParts(name) {
			if got := matchList(r, ins); got != list {
				t.Fatalf("MatchList(%q) = %+v but MatchList(%q) = %+v", name, list, ins, got)
			}
		}
	})
}
