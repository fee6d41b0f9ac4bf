package resistance

import (
	"encoding/json"
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
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(5, 10).Draw(t, "players")
		seed := rapid.Int64().Draw(t, "seed")
		opts := rules.Options{
			"missing_vote":     rapid.SampledFrom([]string{"abstain", "reject"}).Draw(t, "missing_vote"),
			"missing_proposal": rapid.SampledFrom([]string{"pass", "reject"}).Draw(t, "missing_proposal"),
			"chain_spies":      rapid.SampledFrom([]string{"auto", "on", "off"}).Draw(t, "chain_spies"),
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
		for _, id := range s.Seats.IDs() {
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
			for _, id := range s.Seats.IDs() {
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

// Random commands, well-formed or not, in random states of bot games: never
// a panic, a rejection leaves the state as it was, and the input state is
// never changed.
func TestPropertyRandomCommands(t *testing.T) {
	t.Parallel()
	words := []string{"APPROVE", "REJECT", "VOTE", "TEAM:", "PROPOSE", "SUPPORT", "SABOTAGE", "GIVE", "TO", "PLAY", "ON",
		"OVERHEAR", "OPEN", "UP", "Strong Leader", "speech", "close eye", "spotlight", "double vote", "successor", "open up",
		"Ann", "ben", "Cat,", "Dan", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jon", "Zed", "and", ",", "[b]", "x"}
	rapid.Check(t, func(t *rapid.T) {
		g := Game{}
		n := rapid.IntRange(5, 10).Draw(t, "players")
		// Walk a fresh game with the bots for a random number of steps.
		seed := rapid.Int64().Draw(t, "seed")
		st, _, _ := g.Setup(rules.Config{Players: botNames[:n], Seed: seed, Start: startTime})
		rnd := rules.NewRand(seed, "walk")
		steps := rapid.IntRange(0, 60).Draw(t, "steps")
		for i := 0; i < steps && !st.(*State).Finished; i++ {
			p := botNames[rnd.IntN(n)]
			for _, m := range g.Bot(st, p, rnd) {
				w := &run{State: st.(*State), Private: map[string][]string{}}
				w.message(g, p, m.Private, m.Text, startTime)
				st = w.State
			}
		}
		for k := 0; k < 20; k++ {
			var parts []string
			for j := rapid.IntRange(1, 6).Draw(t, "len"); j > 0; j-- {
				parts = append(parts, rapid.SampledFrom(words).Draw(t, "word"))
			}
			text := strings.Join(parts, " ")
			src := rules.Source{Player: rapid.SampledFrom(botNames[:n]).Draw(t, "who"),
				Channel: rapid.SampledFrom([]rules.Channel{rules.Public, rules.Private}).Draw(t, "ch"), Time: startTime}
			before, _ := json.Marshal(st)
			p := g.Parse(st, text, src)
			if p.Cmd == nil {
				continue
			}
			c := *p.Cmd
			c.Src = src
			ns, _, err := g.Apply(st, c)
			after, _ := json.Marshal(st)
			if string(before) != string(after) {
				t.Fatalf("Apply(%q) changed its input state", text)
			}
			if err != nil {
				got, _ := json.Marshal(ns)
				if string(got) != string(before) {
					t.Fatalf("rejected %q (%v) but the state changed", text, err)
				}
				continue
			}
			st = ns
		}
	})
}
