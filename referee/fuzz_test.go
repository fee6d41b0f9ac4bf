package referee_test

// Run: go test -run '^$' -fuzz FuzzMessage -fuzztime 30s ./referee

import (
	"strings"
	"testing"
	"time"

	_ "github.com/forumgm/forumgm/games"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
)

var fuzzStart = time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC)

const (
	receiptHead = "Your message was read:"
	noticeHead  = "Not accepted from your post in the thread:"
)

// checkEscaped finds the receipt or notice the referee wrote to the player
// (the first block of their PM) and checks that every "[" in it is
// followed by U+200B, so no text echoed from the message can open a tag.
// It returns whether there was one.
func checkEscaped(t *testing.T, game string, st referee.Step, player string) bool {
	t.Helper()
	found := false
	for _, o := range st.Out {
		if o.To != player || !(strings.HasPrefix(o.Text, receiptHead) || strings.HasPrefix(o.Text, noticeHead)) {
			continue
		}
		found = true
		lead, _, _ := strings.Cut(o.Text, "\n\n") // the game's own private events follow
		for i := strings.Index(lead, "["); i >= 0; i = strings.Index(lead, "[") {
			if !strings.HasPrefix(lead[i+1:], "\u200b") {
				t.Fatalf("%s: unescaped [ in %q", game, lead)
			}
			lead = lead[i+1:]
		}
	}
	return found
}

// FuzzMessage: text split into lines goes through referee.Message, in the
// thread and by PM, for every registered game: no panic; a PM always gets
// one receipt; in receipts and notices every "[" is escaped.
func FuzzMessage(f *testing.F) {
	players := []string{"Ann", "Ben", "Cat", "Dan", "Eli"}
	type start struct {
		g rules.Game
		s rules.State
	}
	var games []start
	for _, name := range rules.Names() {
		g, err := rules.Lookup(name)
		if err != nil {
			f.Fatal(err)
		}
		st, err := referee.Setup(g, rules.Config{Players: players, Seed: 4, Start: fuzzStart})
		if err != nil {
			f.Fatalf("%s: %v", name, err)
		}
		games = append(games, start{g, st.State})
	}
	if len(games) < 3 {
		f.Fatalf("only %d games registered", len(games))
	}
	// Seeds: testdata/fuzz/FuzzMessage (text, sender).
	f.Fuzz(func(t *testing.T, text string, who uint8) {
		segs := strings.Split(text, "\n")
		nonEmpty := 0
		for _, s := range segs {
			if strings.TrimSpace(s) != "" {
				nonEmpty++
			}
		}
		player := players[int(who)%len(players)]
		for _, gs := range games {
			at := fuzzStart.Add(time.Second)
			pub := referee.Message(gs.g, gs.s, rules.Source{Player: player, Channel: rules.Public, Time: at, Ref: "1"}, segs)
			checkEscaped(t, gs.g.Name(), pub, player)
			// The PM goes to the state the post left (a team proposed, ...).
			at = at.Add(time.Second)
			pm := referee.Message(gs.g, pub.State, rules.Source{Player: player, Channel: rules.Private, Time: at, Ref: "2"}, segs)
			if got := checkEscaped(t, gs.g.Name(), pm, player); got != (nonEmpty > 0) {
				t.Fatalf("%s: %d lines, receipt sent: %v", gs.g.Name(), nonEmpty, got)
			}
			if len(pm.Outcomes) != nonEmpty {
				t.Fatalf("%s: %d lines but %d outcomes", gs.g.Name(), nonEmpty, len(pm.Outcomes))
			}
		}
	})
}
