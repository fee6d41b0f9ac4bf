// Package replay plays a scenario file through the same path as a live game,
// without a forum: each post's BBCode is rendered to the HTML a phpBB board
// would show and read back by the real parser, each PM likewise, and the
// referee applies what it finds. It is how a GM dry-runs a game and how games
// are tested end to end.
package replay

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/scenario"
)

// Entry is one line of the transcript: something a player or the bot sent.
type Entry struct {
	Time time.Time `json:"time"`
	// Kind: "post" / "pm" (a player's), "deadline", "bot-post", "bot-pm".
	Kind string `json:"kind"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	Text string `json:"text"`
}

// Rejection is a command that was not accepted.
type Rejection struct {
	Player string `json:"player"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// Result is what a replay produced.
type Result struct {
	Game       string
	Status     rules.Status
	State      rules.State
	Rejected   []Rejection
	Public     []string
	Private    map[string][]string
	Transcript []Entry
}

// Options tune a replay.
type Options struct {
	// AfterResolve, when set, is called after every phase resolution with the
	// new state and the number of resolutions so far (the map pictures).
	AfterResolve func(s rules.State, n int) error
	// Progress, when set, is called after each script step with the steps
	// done and the steps in all (the CLI shows long replays' progress).
	Progress func(done, total int)
}

// Run plays a scenario to its end.
func Run(sc *scenario.Scenario, opt Options) (*Result, error) {
	g, err := rules.Lookup(sc.Game)
	if err != nil {
		return nil, sc.Errorf("game", "%v", err)
	}
	var seed int64 = 1
	if sc.Seed != nil {
		seed = *sc.Seed
	}
	now := sc.StartTime()
	cfg := rules.Config{
		Players: sc.Players, Aliases: sc.Aliases, Options: rules.Options(sc.Options),
		Setup: sc.Setup, Seed: seed, Start: now,
	}
	r := &Result{Game: g.Name(), Private: map[string][]string{}}
	step, err := referee.Setup(g, cfg)
	if err != nil {
		return nil, sc.Errorf(setupKey(sc, err), "setting up %s: %v", g.Name(), err)
	}
	// Deadlines are written as a live game writes them, in UTC here.
	step = referee.Deadline(g, step, "setup", now, time.UTC)
	r.take(now, step)
	s := step.State
	resolutions := 0
	resolve := func(at time.Time) error {
		st := referee.Deadline(g, referee.Resolve(g, s, at), g.Status(s).Phase, at, time.UTC)
		s = st.State
		r.take(at, st)
		resolutions++
		if opt.AfterResolve != nil {
			return opt.AfterResolve(s, resolutions)
		}
		return nil
	}
	// settle resolves whatever is due at t: a time limit that passed, or a
	// phase whose every player has acted.
	settle := func(t time.Time) error {
		for i := 0; i < 1000; i++ {
			stt := g.Status(s)
			if stt.Finished || !g.Due(s, t) {
				return nil
			}
			at := t
			if !stt.Deadline.IsZero() && stt.Deadline.Before(t) {
				at = stt.Deadline
			}
			if err := resolve(at); err != nil {
				return err
			}
		}
		return fmt.Errorf("%s keeps resolving at %s: the game never settles", g.Name(), t)
	}
	for i, stp := range sc.Script {
		if opt.Progress != nil && i > 0 {
			opt.Progress(i, len(sc.Script))
		}
		now = now.Add(time.Second)
		if err := settle(now); err != nil {
			return nil, err
		}
		if stp.Deadline {
			stt := g.Status(s)
			r.Transcript = append(r.Transcript, Entry{Time: now, Kind: "deadline", Text: "the deadline of " + stt.Title + " passes"})
			if stt.Finished {
				continue
			}
			if !stt.Deadline.IsZero() && stt.Deadline.After(now) {
				now = stt.Deadline
			}
			if err := resolve(now); err != nil {
				return nil, err
			}
			continue
		}
		author, ch, segs := stp.Post, rules.Public, PostSegments(stp.Text)
		kind := "post"
		if stp.PM != "" {
			author, ch, segs, kind = stp.PM, rules.Private, PMLines(stp.Text), "pm"
		}
		r.Transcript = append(r.Transcript, Entry{Time: now, Kind: kind, From: author, Text: stp.Text})
		id, ok := s.Roster().Author(author)
		if !ok || g.Status(s).Finished {
			// Someone who is not playing (a spectator, the GM), or a game
			// that is over: recorded, never a command (as in a live game).
			continue
		}
		before := g.Status(s).Phase
		st := referee.Message(g, s, rules.Source{Player: id, Channel: ch, Time: now, Ref: fmt.Sprintf("line-%d", stp.Line)}, segs)
		st = referee.Deadline(g, st, before, now, time.UTC)
		s = st.State
		for _, o := range st.Outcomes {
			if o.Status == referee.Rejected {
				r.Rejected = append(r.Rejected, Rejection{Player: id, Text: o.Text, Reason: o.Reason})
			}
		}
		r.take(now, st)
		if err := settle(now); err != nil {
			return nil, err
		}
	}
	if opt.Progress != nil {
		opt.Progress(len(sc.Script), len(sc.Script))
	}
	r.State = s
	r.Status = g.Status(s)
	return r, nil
}

// setupKey guesses which part of the scenario a setup error is about, to
// point at its line.
func setupKey(sc *scenario.Scenario, err error) string {
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, "option") && sc.Lines["options"] > 0:
		return "options"
	case sc.Lines["setup"] > 0 && !strings.Contains(msg, "player"):
		return "setup"
	case strings.Contains(msg, "alias") && sc.Lines["aliases"] > 0:
		return "aliases"
	}
	return "players"
}

func (r *Result) take(now time.Time, st referee.Step) {
	for _, o := range st.Out {
		at := now
		if o.NotBefore.After(at) {
			at = o.NotBefore
		}
		if o.Public() {
			r.Public = append(r.Public, o.Text)
			r.Transcript = append(r.Transcript, Entry{Time: at, Kind: "bot-post", Text: o.Text})
		} else {
			r.Private[o.To] = append(r.Private[o.To], o.Text)
			r.Transcript = append(r.Transcript, Entry{Time: at, Kind: "bot-pm", To: o.To, Text: o.Text})
		}
	}
}

// JSON is the `replay --json` object.
func (r *Result) JSON() map[string]any {
	out := map[string]any{}
	for k, v := range r.Status.Extra {
		out[k] = v
	}
	nz := func(xs []string) []string {
		if xs == nil {
			return []string{}
		}
		return xs
	}
	scores := r.Status.Scores
	if scores == nil {
		scores = map[string]int{}
	}
	rej := r.Rejected
	if rej == nil {
		rej = []Rejection{}
	}
	out["game"] = r.Game
	out["finished"] = r.Status.Finished
	out["winners"] = nz(r.Status.Winners)
	out["scores"] = scores
	out["out"] = nz(r.Status.Out)
	out["rejected"] = rej
	out["public"] = nz(r.Public)
	out["private"] = r.Private
	out["phase"] = r.Status.Phase
	return out
}

// Text writes the transcript for a person: every post and PM in order.
func (r *Result) Text() string {
	var b strings.Builder
	for _, e := range r.Transcript {
		ts := e.Time.Format("Jan 2 15:04:05")
		text := strings.ReplaceAll(e.Text, "\u200b", "")
		switch e.Kind {
		case "post":
			fmt.Fprintf(&b, "[%s] %s posts in the thread:\n%s\n\n", ts, e.From, indent(text))
		case "pm":
			fmt.Fprintf(&b, "[%s] %s sends the bot a PM:\n%s\n\n", ts, e.From, indent(text))
		case "deadline":
			fmt.Fprintf(&b, "[%s] ⏰ %s\n\n", ts, text)
		case "bot-post":
			fmt.Fprintf(&b, "[%s] ▶ BOT POSTS IN THE THREAD:\n%s\n\n", ts, indent(text))
		case "bot-pm":
			fmt.Fprintf(&b, "[%s] ▶ BOT PMs %s:\n%s\n\n", ts, e.To, indent(text))
		}
	}
	st := r.Status
	fmt.Fprintf(&b, "== %s: %s", r.Game, map[bool]string{true: "finished", false: "not finished"}[st.Finished])
	if len(st.Winners) > 0 {
		fmt.Fprintf(&b, "; winners: %s", strings.Join(st.Winners, ", "))
	}
	b.WriteString("\n")
	if len(st.Scores) > 0 {
		names := make([]string, 0, len(st.Scores))
		for n := range st.Scores {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&b, "   %-20s %d\n", n, st.Scores[n])
		}
	}
	if len(r.Rejected) > 0 {
		fmt.Fprintf(&b, "== %s:\n", rules.Plural(len(r.Rejected), "rejected command"))
		for _, rj := range r.Rejected {
			fmt.Fprintf(&b, "   %s: %q — %s\n", rj.Player, rj.Text, rj.Reason)
		}
	}
	return b.String()
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
