// Package referee is the game-independent part of running a phase: it feeds
// the segments of one post or PM to a game, records what became of each, and
// turns the events into the messages the bot sends (one thread post per step,
// one PM per player per step, a receipt for every PM). Replay and the live
// moderator both go through it, so a dry run behaves exactly like a game.
// It is pure: no I/O, no clock.
package referee

import (
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// Verdict is what the referee made of one segment.
type Verdict string

const (
	Accepted Verdict = "accepted"
	Rejected Verdict = "rejected"
	Ignored  Verdict = "ignored" // not an order (chatter)
)

// Outcome is what became of one segment of a message.
type Outcome struct {
	Seq    int    // index of the segment in its message
	Text   string // the segment as written
	Status Verdict
	Reason string         // why, for Rejected (and Ignored when known)
	Cmd    *rules.Command // the command, when one was parsed
}

// Outgoing is one message the bot must send.
type Outgoing struct {
	To        string // rules.Everyone for a thread post, else a slot id
	Subject   string // for PMs
	Text      string // BBCode
	NotBefore time.Time
}

// Public says whether the message is a thread post.
func (o Outgoing) Public() bool { return o.To == rules.Everyone }

// Step is the result of one input.
type Step struct {
	State    rules.State
	Outcomes []Outcome
	Events   []rules.Event
	Out      []Outgoing
}

// Message applies the segments of one post (src.Channel public) or PM
// (private) from a player, in the order written.
func Message(g rules.Game, s rules.State, src rules.Source, segments []string) Step {
	st := Step{State: s}
	over := g.Status(s).Finished
	var notices []string // rejections from the thread the game did not announce
	for i, seg := range segments {
		seg = strings.TrimSpace(seg)
		if seg == "" {
			continue
		}
		oc := Outcome{Seq: i, Text: seg}
		if over {
			oc.Status, oc.Reason = Rejected, "the game is over"
			if src.Channel == rules.Public {
				// Bold text after the end is chatter, not an order.
				oc.Status, oc.Reason = Ignored, "the game is over"
			}
			st.Outcomes = append(st.Outcomes, oc)
			continue
		}
		p := g.Parse(st.State, seg, src)
		switch {
		case p.Cmd != nil:
			c := *p.Cmd
			c.Src = src
			if c.Text == "" {
				c.Text = seg
			}
			oc.Cmd = &c
			ns, evs, err := g.Apply(st.State, c)
			st.Events = append(st.Events, evs...)
			if err != nil {
				oc.Status, oc.Reason = Rejected, err.Error()
				if src.Channel == rules.Public && !told(evs, src.Player) {
					notices = append(notices, "✘ "+quote(seg)+" — "+rules.Esc(err.Error()))
				}
			} else {
				oc.Status = Accepted
				st.State = ns
			}
		case p.Reject != "":
			oc.Status, oc.Reason = Rejected, p.Reject
			if src.Channel == rules.Public {
				notices = append(notices, "✘ "+quote(seg)+" — "+rules.Esc(p.Reject))
			}
		default:
			oc.Status, oc.Reason = Ignored, "not a command"
		}
		st.Outcomes = append(st.Outcomes, oc)
	}
	var lead map[string]string
	switch {
	case src.Channel == rules.Private && len(st.Outcomes) > 0:
		lead = map[string]string{src.Player: receipt(st.Outcomes)}
	case len(notices) > 0:
		lead = map[string]string{src.Player: "Not accepted from your post in the thread:\n" + strings.Join(notices, "\n")}
	}
	st.Out = group(g, st.State, st.Events, lead)
	return st
}

// Late answers a post or PM that reached the bot only after the phase it was
// made in had been resolved: every segment is rejected with reason, and the
// player is told as for any rejection (a receipt for a PM, a notice by PM
// for a post).
func Late(g rules.Game, s rules.State, src rules.Source, segments []string, reason string) Step {
	st := Step{State: s}
	var notices []string
	for i, seg := range segments {
		if seg = strings.TrimSpace(seg); seg == "" {
			continue
		}
		st.Outcomes = append(st.Outcomes, Outcome{Seq: i, Text: seg, Status: Rejected, Reason: reason})
		notices = append(notices, "✘ "+quote(seg)+" — "+rules.Esc(reason))
	}
	switch {
	case len(st.Outcomes) == 0:
	case src.Channel == rules.Private:
		st.Out = group(g, s, nil, map[string]string{src.Player: receipt(st.Outcomes)})
	default:
		st.Out = group(g, s, nil, map[string]string{src.Player: "Not accepted from your post in the thread:\n" + strings.Join(notices, "\n")})
	}
	return st
}

// Resolve closes the current phase at now.
func Resolve(g rules.Game, s rules.State, now time.Time) Step {
	ns, evs := g.Resolve(s, now)
	return Step{State: ns, Events: evs, Out: group(g, ns, evs, nil)}
}

// End closes the game at the GM's word.
func End(g rules.Game, s rules.State, now time.Time) Step {
	ns, evs := g.End(s, now)
	return Step{State: ns, Events: evs, Out: group(g, ns, evs, nil)}
}

// Setup starts a game.
func Setup(g rules.Game, cfg rules.Config) (Step, error) {
	s, evs, err := g.Setup(cfg)
	if err != nil {
		return Step{}, err
	}
	return Step{State: s, Events: evs, Out: group(g, s, evs, nil)}, nil
}

// told says whether the events already tell the player (publicly or to them).
func told(evs []rules.Event, player string) bool {
	for _, e := range evs {
		if e.To == rules.Everyone || e.To == player {
			return true
		}
	}
	return false
}

func receipt(ocs []Outcome) string {
	var b strings.Builder
	b.WriteString("Your message was read:")
	for _, o := range ocs {
		switch o.Status {
		case Accepted:
			fmt.Fprintf(&b, "\n✔ %s — accepted", quote(o.Text))
		case Rejected:
			// Reasons often repeat what the player typed (an unknown name).
			fmt.Fprintf(&b, "\n✘ %s — %s", quote(o.Text), rules.Esc(o.Reason))
		default:
			fmt.Fprintf(&b, "\n· %s — not an order, ignored", quote(o.Text))
		}
	}
	return b.String()
}

// quote shows a player's text back to them, escaped so it cannot open tags.
func quote(s string) string {
	const max = 120
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return "“" + rules.Esc(s) + "”"
}

// group turns events into messages: per NotBefore, one thread post with every
// public event, then one PM per player (lead text first).
func group(g rules.Game, s rules.State, evs []rules.Event, lead map[string]string) []Outgoing {
	type key struct {
		to string
		nb time.Time
	}
	var order []key
	texts := map[key][]string{}
	add := func(k key, t string) {
		if _, ok := texts[k]; !ok {
			order = append(order, k)
		}
		texts[k] = append(texts[k], t)
	}
	for p, t := range lead {
		add(key{to: p}, t)
	}
	for _, e := range evs {
		if e.Text == "" {
			continue
		}
		add(key{to: e.To, nb: e.NotBefore}, e.Text)
	}
	var pub, priv []Outgoing
	for _, k := range order {
		o := Outgoing{To: k.to, Text: strings.Join(texts[k], "\n\n"), NotBefore: k.nb}
		if k.to == rules.Everyone {
			pub = append(pub, o)
		} else {
			o.Subject = subject(g, s, lead[k.to] != "" && k.nb.IsZero())
			priv = append(priv, o)
		}
	}
	return append(pub, priv...)
}

func subject(g rules.Game, s rules.State, isReceipt bool) string {
	title := g.Name()
	if st := g.Status(s); st.Title != "" {
		title += " — " + st.Title
	}
	if isReceipt {
		return title + ": your orders"
	}
	return title
}
