package moderator

import (
	"fmt"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/schedule"
	"github.com/forumgm/forumgm/store"
)

// Deadlines a GM schedules, and the grace period (docs/schedules.md,
// moderator/RULINGS.md "Deadlines a GM schedules").
//
// The engines count a phase's deadline from its start (a length of time);
// when the game file has a schedule for the phase's kind, the deadline a
// phase opens with is the schedule's first slot at least its minimum after
// the phase opened instead. Either way it goes on the board's unit, and it
// is journalled as a "deadline" entry, so a rebuild (SetDeadline) has it.
// GM changes after that (extend, pause, outages, grace) move it exactly as
// before: the schedule only says where a phase starts out.

// schedule is the game's deadline schedule (nil: none). A schedule that no
// longer builds (its zone gone from the system's zone data since the game
// was created, which checked it) is none: the game's lengths apply.
func (l *loaded) schedule() *schedule.Schedule {
	s, err := l.cfg.Deadlines.Schedule(l.zone())
	if err != nil {
		return nil
	}
	return s
}

// openDeadline sets the deadline of the phase that just opened, at opened
// (when its players can act: a post held back until then, as Nations holds
// a round's report through the break, opens it when it goes out): the
// schedule's slot if the schedule sets this kind of phase, else the
// engine's, on the board's unit. Journalled at at.
func openDeadline(s *step, opened, at time.Time) {
	st := s.l.game.Status(s.l.state)
	if st.Finished || st.Deadline.IsZero() {
		return
	}
	d := st.Deadline
	if sd, ok := scheduled(s, opened); ok {
		d = sd
	}
	if d = forum.DeadlineOn(d, s.l.deadlineUnit()); !d.Equal(st.Deadline) {
		s.l.state = s.l.game.SetDeadline(s.l.state, d)
		s.journal(at, journal.Deadline{Deadline: d})
	}
}

// scheduled is the deadline the schedule gives the current phase if it
// opened at opened; ok is false when no schedule sets this kind of phase.
func scheduled(s *step, opened time.Time) (time.Time, bool) {
	sc := s.l.schedule()
	if sc == nil || !s.l.cfg.Deadlines.Scheduled(s.l.game, rules.KindOf(s.l.game, s.l.state)) {
		return time.Time{}, false
	}
	return sc.Next(opened), true
}

// openedAt is when a phase a step opened at at opens to its players: when
// its thread post goes out, if the game holds it back.
func openedAt(r referee.Step, at time.Time) time.Time {
	for _, o := range r.Out {
		if o.Public() && o.NotBefore.After(at) {
			at = o.NotBefore
		}
	}
	return at
}

// inGrace says whether the current phase has had its grace period: it then
// closes as soon as nobody is missing.
func inGrace(s *step) bool {
	return s.l.cfg.GracePhase != "" && s.l.cfg.GracePhase == s.l.phase()
}

// giveGrace is asked before a phase is resolved by its deadline dl: when
// the game has a grace period, the phase has not had one yet and someone
// has still not acted (rules.Status.Waiting), the deadline moves on by the
// grace, the thread is told once who is missing and until when, and it
// says true (do not resolve). The new deadline is journalled like any, so a
// rebuild has it; the phase that had its grace is kept with the game's
// settings (GracePhase), saved with the step.
func giveGrace(s *step, dl time.Time) bool {
	g := s.l.cfg.Deadlines.GraceTime()
	st := s.l.game.Status(s.l.state)
	if g <= 0 || st.Finished || len(st.Waiting) == 0 || inGrace(s) {
		return false
	}
	nd := forum.DeadlineOn(dl.Add(g), s.l.deadlineUnit())
	s.l.state = s.l.game.SetDeadline(s.l.state, nd)
	s.journal(dl, journal.Deadline{Deadline: nd})
	s.l.cfg.GracePhase = st.Phase
	s.l.cfgChanged = true
	roster := s.l.state.Roster()
	names := make([]string, len(st.Waiting))
	for i, id := range st.Waiting {
		names[i] = rules.Esc(roster.Display(id))
	}
	text := fmt.Sprintf("[b]Time is up for %s[/b], but not everyone has acted: still waiting for %s. It stays open for them until %s (a grace period of %s) and closes as soon as everyone has acted.",
		rules.Esc(st.Title), rules.JoinNames(names), rules.WhenUTC(nd, s.l.zone()), rules.Span(g))
	s.emit(store.SendResults, s.l.phase(), referee.Step{Out: []referee.Outgoing{{To: rules.Everyone, Text: text}}}, dl)
	return true
}

// saveSettings saves the game's settings when the step changed them (the
// grace period given), with the rest of the step.
func saveSettings(s *step) {
	if !s.l.cfgChanged {
		return
	}
	cfg := mustJSON(s.l.cfg)
	s.ch.Settings = &store.SettingsChange{GameID: s.l.row.ID, Config: cfg, Forum: s.l.row.Forum}
	s.l.row.Config = cfg
	s.l.cfgChanged = false
}
