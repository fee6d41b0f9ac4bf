package resistance

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/forumgm/forumgm/rules"
)

var botNames = []string{"Ann", "Ben", "Cat", "Dan", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jon"}

// playBotGame plays a whole game with every player a Bot. Now and then the
// time limit passes before everyone has acted (missing votes, a leader who
// never proposes). It returns the run and the number of ticks.
func playBotGame(t *rapid.T, seed int64, n int, opts rules.Options) (*run, int) {
	g := Game{}
	players := botNames[:n]
	st, evs, err := g.Setup(rules.Config{Players: players, Options: opts, Seed: seed, Start: startTime})
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	r := &run{State: st.(*State), Private: map[string][]string{}}
	r.add(evs)
	rnd := rules.NewRand(seed, "bots")
	now := startTime
	ticks := 0
	for ; ticks < 3000 && !r.State.Finished; ticks++ {
		moved := false
		for _, p := range rules.Shuffled(rnd, players) {
			for _, m := range g.Bot(r.State, p, rnd) {
				now = now.Add(time.Second)
				r.message(g, p, m.Private, m.Text, now)
				moved = true
			}
			if rnd.IntN(40) == 0 {
				break // the time limit comes before everyone has acted
			}
		}
		if !moved || rnd.IntN(20) == 0 {
			now = g.Status(r.State).Deadline
			ns, evs := g.Resolve(r.State, now)
			r.State = ns.(*State)
			r.add(evs)
		}
	}
	return r, ticks
}

func TestPropertyRandomBotGames(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(5, 10).Draw(t, "players")
		seed := rapid.Int64().Draw(t, "seed")
		opts := rules.Options{
			"missing_vote": rapid.SampledFrom([]string{"abstain", "reject"}).Draw(t, "missing_vote"),
			"chain_spies":  rapid.SampledFrom([]string{"auto", "on", "off"}).Draw(t, "chain_spies"),
		}
		r, ticks := playBotGame(t, seed, n, opts)
		s := r.State
		if !s.Finished {
			t.Fatalf("game not finished after %d ticks: %s", ticks, Game{}.Status(s).Phase)
		}
		if len(s.Missions) > 5 || len(s.Missions) != len(s.Sabotages) {
			t.Fatalf("missions %v sabotages %v", s.Missions, s.Sabotages)
		}
		if s.Winner == "" {
			t.Fatal("a played-out game has a winning side")
		}
		// Exactly one role PM each.
		for _, id := range s.R.IDs() {
			c := 0
			for _, txt := range r.Private[id] {
				if strings.HasPrefix(txt, "You are ") {
					c++
				}
			}
			if c != 1 {
				t.Fatalf("%s got %d role PMs", id, c)
			}
		}
		checkPublicSecrets(t, s, r.Public)
	})
}

// checkPublicSecrets: before the final post, no public line names a player
// together with a role word or a mission order, except In The Spotlight's
// reveal of its target.
func checkPublicSecrets(t interface{ Fatalf(string, ...any) }, s *State, public []string) {
	roleWord := regexp.MustCompile(`(?i)\b(spy|spies|resistance)\b`)
	orderWord := regexp.MustCompile(`(?i)\b(support|supported|sabotage|sabotaged)\b`)
	for i, txt := range public {
		last := i == len(public)-1
		if last && strings.Contains(txt, "Roles:") {
			continue
		}
		for _, w := range []string{"is a SPY", "is a member of the RESISTANCE", "SUPPORTED", "SABOTAGED", "The spy you know", "other spies"} {
			if strings.Contains(txt, w) {
				t.Fatalf("public event holds a private reveal (%q): %q", w, txt)
			}
		}
		for _, line := range strings.Split(txt, "\n") {
			for _, id := range s.R.IDs() {
				if !strings.Contains(line, id) {
					continue
				}
				if roleWord.MatchString(line) {
					t.Fatalf("public line names %s with a role word: %q", id, line)
				}
				if orderWord.MatchString(line) && !strings.HasPrefix(line, "In The Spotlight: "+id+" sent") &&
					!strings.Contains(line, "send SUPPORT or SABOTAGE by PM") {
					t.Fatalf("public line names %s with a mission order: %q", id, line)
				}
			}
		}
	}
}
