package gametest

import (
	"testing"
	"time"

	"github.com/forumgm/forumgm/replay"
	"github.com/forumgm/forumgm/rules"
)

// Played is a game its simulated players (rules.Bot) played from the
// setup: every accepted command and every resolution as a rules.Moment,
// as the desk replays a live game's journal.
type Played struct {
	Game    rules.Game
	Start   rules.State
	History []rules.Moment
}

// State is the game after the first n moments (0: as set up).
func (p *Played) State(n int) rules.State {
	if n == 0 {
		return p.Start
	}
	return p.History[n-1].After
}

// Resolutions are the indexes n (for State and History[:n]) just after
// each resolution.
func (p *Played) Resolutions() []int {
	var out []int
	for i, m := range p.History {
		if m.Command == nil {
			out = append(out, i+1)
		}
	}
	return out
}

// Play sets g up from cfg and lets its simulated players play it: in each
// phase every player's moves are read as the bot reads them (a post's bold
// runs, a PM's lines) and applied, a second after each other; the phase
// resolves as soon as it is due, else at its deadline. It stops when the
// game is over or after phases resolutions.
func Play(tb testing.TB, g rules.Game, cfg rules.Config, seed int64, phases int) *Played {
	tb.Helper()
	bot, ok := g.(rules.Bot)
	if !ok {
		tb.Fatalf("%s has no simulated players", g.Name())
	}
	s, _, err := g.Setup(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	p := &Played{Game: g, Start: s}
	now := cfg.Start
	rngs := map[string]*rules.Rand{}
	resolve := func(at time.Time) {
		ns, _ := g.Resolve(s, at)
		p.History = append(p.History, rules.Moment{Before: s, After: ns, At: at})
		s = ns
	}
	for done := 0; done < phases && !g.Status(s).Finished; {
		// Players move again while the phase gives them something new to
		// do (the team is proposed, then they vote).
		for pass := 0; pass < 6; pass++ {
			applied := 0
			for _, id := range s.Roster().IDs() {
				r, ok := rngs[id]
				if !ok {
					r = rules.NewRand(seed, "gametest/"+id)
					rngs[id] = r
				}
				for _, mv := range bot.Bot(s, id, r) {
					ch, segs := rules.Public, replay.PostSegments(mv.Text)
					if mv.Private {
						ch, segs = rules.Private, replay.PMLines(mv.Text)
					}
					for _, seg := range segs {
						now = now.Add(time.Second)
						src := rules.Source{Player: id, Channel: ch, Time: now}
						parsed := g.Parse(s, seg, src)
						if parsed.Cmd == nil {
							continue
						}
						c := *parsed.Cmd
						c.Src = src
						ns, _, err := g.Apply(s, c)
						if err != nil {
							continue
						}
						p.History = append(p.History, rules.Moment{Before: s, After: ns, Command: &c, At: now})
						s = ns
						applied++
					}
				}
			}
			if applied == 0 || g.Due(s, now) {
				break
			}
		}
		now = now.Add(time.Second)
		if !g.Due(s, now) {
			if dl := g.Status(s).Deadline; dl.After(now) {
				now = dl
			}
		}
		resolve(now)
		done++
	}
	return p
}
