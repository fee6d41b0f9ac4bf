package moderator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// Between deadlines (docs/between-deadlines.md, RULINGS.md "Between
// deadlines"): counts of the open phase in the thread (asked for by a
// player, on the GM's schedule, at the GM's word), reminders by PM before
// the deadline to the players who still have something to do, and a prod
// to a player gone silent.
//
// Exactly once: what was done in the phase (the counts, whether a request
// waits, the reminder times handled, each player's last prod) is kept with
// the game's settings (gameconfig.BetweenState) and saved in the step that
// queued the messages, so a crash loses both or neither; the outbox sends
// each once. A reminder still queued when its phase closes lapses and is
// never sent (closeOff).

const (
	// countKind is the command kind of a player's request for a count.
	countKind = "count"
	// countWaiting is a request's reason until a count answers it.
	countWaiting = "waiting for the next count"
	// The events the moderator records of what it said between deadlines.
	eventCount    = "count"
	eventReminder = "reminder"
	eventProd     = "prod"
	// lapseSuffix ends the marker of an outbox item that lapses when its
	// phase closes before it is sent (a reminder).
	lapseSuffix = ".lapse"
)

// isCountRequest says whether a bold segment asks for a count: VOTECOUNT,
// VOTE COUNT or COUNT, in any case, perhaps with a question mark.
func isCountRequest(seg string) bool {
	w := strings.Join(strings.Fields(strings.ToUpper(strings.TrimRight(strings.TrimSpace(seg), "?!.: "))), " ")
	switch w {
	case "VOTECOUNT", "VOTE COUNT", "VOTE-COUNT", "COUNT":
		return true
	}
	return false
}

// countRequests takes the requests for a count out of a post's segments
// (what is left goes to the game: a request is no game's command) and
// records each in the audit log as waiting for the next count, which
// between posts once the game's gap allows. A game that takes no requests
// leaves them to the game, which reads them as chatter.
func (s *step) countRequests(msg store.Message, slot, phase string, segs []string) []string {
	l := s.l
	if !l.active() || !l.cfg.Counts.OnRequest() || l.game.Status(l.state).Finished {
		return segs
	}
	var out []string
	for i, seg := range segs {
		if !isCountRequest(seg) {
			continue
		}
		if out == nil {
			out = slices.Clone(segs)
		}
		out[i] = ""
		s.ch.Commands = append(s.ch.Commands, store.CommandRow{GameID: l.row.ID, MessageID: msg.ID, Seq: i, Phase: phase, Player: slot,
			Channel: string(rules.Public), Text: strings.TrimSpace(seg), Kind: countKind, Status: store.CommandAccepted, Reason: countWaiting, Time: msg.Time})
		b := l.cfg.Between.For(phase)
		b.Asked = true
		s.setBetween(b)
	}
	if out == nil {
		return segs
	}
	return out
}

// setBetween keeps b as the game's between-deadlines state, saved with the
// step when it changed.
func (s *step) setBetween(b *gameconfig.BetweenState) {
	if string(mustJSON(b)) != string(mustJSON(s.l.cfg.Between)) {
		s.l.cfg.Between = b
		s.l.cfgChanged = true
	}
}

// between does what is due at t between deadlines, after the step's
// resolutions: a count a player asked for once the gap allows, a count on
// the GM's schedule when it has changed, the reminders of a reminder time
// just passed, the prods of players silent too long. Nothing before the
// opening post is up, nothing in a game that is over, and only counts
// asked for while the game is paused.
func (m *Moderator) between(tx *store.Tx, s *step, t time.Time) error {
	l := s.l
	st := l.game.Status(l.state)
	if !l.active() || st.Finished || l.cfg.OpeningPost == "" || l.behind {
		return nil
	}
	b := l.cfg.Between.For(st.Phase)
	fresh := l.cfg.Between == nil || l.cfg.Between.Phase != st.Phase
	length := time.Duration(0)
	if !st.Deadline.IsZero() {
		length = st.Deadline.Sub(s.opened)
	}
	running := l.row.Status == Running
	every := l.cfg.Counts.EveryTime()
	answer := false
	if b.Asked {
		var err error
		if answer, err = m.gapPassed(tx, s, b, t, l.cfg.Counts.GapFor(length)); err != nil {
			return err
		}
	}
	switch {
	case answer:
		if _, err := m.postCount(tx, s, b, t, ""); err != nil {
			return err
		}
	case every > 0 && running && fresh:
		// Where "changed" is counted from: the phase as it opened.
		body, _, err := m.countBody(tx, s)
		if err != nil {
			return err
		}
		b.CountSum, b.Checked = digest(body), t
	case every > 0 && running && !t.Before(laterOf(laterOf(b.CountAt, b.Checked), s.opened).Add(every)):
		body, _, err := m.countBody(tx, s)
		if err != nil {
			return err
		}
		b.Checked = t
		if digest(body) != b.CountSum {
			if _, err := m.postCount(tx, s, b, t, fmt.Sprintf("(posted every %s while it changes)", trimIn(rules.Until(every)))); err != nil {
				return err
			}
		}
	}
	if running {
		m.remind(s, b, st, t, length)
		if err := m.prod(tx, s, b, st, t); err != nil {
			return err
		}
	}
	s.setBetween(b)
	if s.l.cfgChanged {
		// A crash here, inside the step's transaction, must undo what it
		// queued with the state that says it was done.
		return m.crash("in-between")
	}
	return nil
}

// gapPassed says whether a count on request may go out at t: the phase
// has had none, or its last is the gap old, counted from when it went on
// the board (its outbox item's send), so that two counts on the board are
// never closer than the gap, however long the first waited to go out. A
// last count not sent yet holds the next back.
func (m *Moderator) gapPassed(tx *store.Tx, s *step, b *gameconfig.BetweenState, t time.Time, gap time.Duration) (bool, error) {
	if b.CountAt.IsZero() {
		return true, nil
	}
	if t.Before(b.CountAt.Add(gap)) {
		return false, nil
	}
	if b.CountKey == "" {
		return true, nil
	}
	it, err := tx.OutboxByMarker(s.l.row.ID, b.CountKey)
	if err != nil || it == nil {
		// None: saved before this step (a state from before the key).
		return it == nil && err == nil, err
	}
	switch {
	case it.State == store.OutboxSent && !it.SentAt.IsZero():
		return !t.Before(it.SentAt.Add(gap)), nil
	case it.State.Unsent():
		return false, nil
	}
	// Given up on, lapsed or split: the board has it in parts or not at
	// all; its queueing is what there is.
	return true, nil
}

func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// countBody is the game's count of the current phase, made from its
// public view and the thread's commands of the phase (rules.CountOf), with
// the requests still waiting for a count.
func (m *Moderator) countBody(tx *store.Tx, s *step) (string, []store.CommandPost, error) {
	l := s.l
	phase := l.phase()
	cmds, err := tx.CommandPosts(l.row.ID, store.CommandFilter{Phase: phase, Status: store.CommandAccepted})
	if err != nil {
		return "", nil, err
	}
	var thread []rules.Command
	var waiting []store.CommandPost
	for _, c := range cmds {
		if c.Channel != string(rules.Public) || changedIn(s, c.ID) {
			continue
		}
		if c.Kind == countKind {
			if c.Reason == countWaiting {
				waiting = append(waiting, c)
			}
			continue
		}
		thread = append(thread, rules.Command{Kind: c.Kind, Args: c.Args, Text: c.Text,
			Src: rules.Source{Player: c.Player, Channel: rules.Public, Time: c.Time, Ref: c.ForumID}})
	}
	// Commands of this very step, not saved yet.
	for _, c := range s.ch.Commands {
		if c.Phase == phase && c.Channel == string(rules.Public) && c.Status == store.CommandAccepted && c.Kind != countKind {
			thread = append(thread, rules.Command{Kind: c.Kind, Args: c.Args, Text: c.Text, Src: rules.Source{Player: c.Player, Channel: rules.Public, Time: c.Time}})
		}
	}
	link := func(ref string) string {
		id, _, _ := strings.Cut(ref, "+") // text a board appended to a post: the post's own link
		return l.site.PostURL(id)
	}
	return rules.CountOf(l.game, l.state, rules.CountInput{Thread: thread, Link: link}), waiting, nil
}

// changedIn says whether this step changes command id's status (an edit
// superseding it, a GM's void): it no longer counts as it stood.
func changedIn(s *step, id int64) bool {
	for _, c := range s.ch.CommandStatuses {
		if c.ID == id && c.Status != store.CommandAccepted {
			return true
		}
	}
	return false
}

// postCount posts the next count of the current phase at t and answers the
// requests waiting for it; note says why it goes out when no player asked
// ("" for a request). It returns the count's number in the phase.
func (m *Moderator) postCount(tx *store.Tx, s *step, b *gameconfig.BetweenState, t time.Time, note string) (int, error) {
	l := s.l
	st := l.game.Status(l.state)
	body, waiting, err := m.countBody(tx, s)
	if err != nil {
		return 0, err
	}
	b.Counts++
	var askers []string
	for _, c := range waiting {
		if name := rules.Esc(l.state.Roster().Display(c.Player)); !slices.Contains(askers, name) {
			askers = append(askers, name)
		}
		s.ch.CommandStatuses = append(s.ch.CommandStatuses, store.CommandStatusChange{ID: c.ID, Status: store.CommandAccepted, Reason: fmt.Sprintf("answered by count %d", b.Counts)})
	}
	for i := range s.ch.Commands {
		if c := &s.ch.Commands[i]; c.Kind == countKind && c.Phase == st.Phase && c.Reason == countWaiting {
			if name := rules.Esc(l.state.Roster().Display(c.Player)); !slices.Contains(askers, name) {
				askers = append(askers, name)
			}
			c.Reason = fmt.Sprintf("answered by count %d", b.Counts)
		}
	}
	text := fmt.Sprintf("[b]%s — count %d[/b]\n%s", rules.Esc(st.Title), b.Counts, body)
	if !st.Deadline.IsZero() {
		text += "\n\n" + rules.Deadline(st.Deadline, l.zone(), t)
	}
	switch {
	case len(askers) > 0:
		text += "\n(asked for by " + joinNames(askers) + ")"
	case note != "":
		text += "\n" + note
	}
	from := len(s.ch.Outbox)
	s.emit(store.SendAnswers, st.Phase, referee.Step{Events: []rules.Event{{Kind: eventCount, Text: text}}, Out: []referee.Outgoing{{To: rules.Everyone, Text: text}}}, t)
	b.CountAt, b.CountSum, b.Asked, b.CountKey = t, digest(body), false, ""
	if n := len(s.ch.Outbox); n > from {
		b.CountKey = s.ch.Outbox[n-1].Marker // a count in parts: its last
	}
	return b.Counts, nil
}

// Count posts a count of a game's current phase now, at the GM's word
// (`forumgm count`, the desk's button), whatever the gap and whether it has
// changed; it answers the requests waiting for one. It returns the count's
// number in the phase.
func (m *Moderator) Count(ctx context.Context, name string) (int, error) {
	n := 0
	err := m.control(ctx, "count", name, func(tx *store.Tx, s *step) error {
		if err := active(s.l); err != nil {
			return err
		}
		st := s.l.game.Status(s.l.state)
		if st.Finished {
			return fmt.Errorf("game %s is over", name)
		}
		b := s.l.cfg.Between.For(st.Phase)
		var err error
		if n, err = m.postCount(tx, s, b, m.now(), "(posted by the GM)"); err != nil {
			return err
		}
		s.setBetween(b)
		return nil
	})
	return n, err
}

// remind sends the reminders of the latest reminder time passed by t that
// the phase has not handled yet: a PM to each player who still owes
// something (rules.OwedOf), saying what and by when, and with reminders'
// thread setting a post naming whom the phase waits for. Reminder times
// are counted back from the deadline as it is now, so one that moves
// (extend, resume, a grace period) moves the reminders not sent yet; one
// already sent is not sent again. When several times have passed at once
// (the bot was down), one reminder goes, as of the latest; a time before
// the phase opened is none.
func (m *Moderator) remind(s *step, b *gameconfig.BetweenState, st rules.Status, t time.Time, length time.Duration) {
	l := s.l
	if st.Deadline.IsZero() || !t.Before(st.Deadline) {
		return
	}
	offs := l.cfg.Reminders.BeforeFor(length)
	due := 0
	for due < len(offs) && !st.Deadline.Add(-offs[due]).After(t) {
		due++
	}
	if due <= b.Reminded {
		return
	}
	b.Reminded = due
	if !st.Deadline.Add(-offs[due-1]).After(s.opened) {
		return
	}
	roster := l.state.Roster()
	closes := fmt.Sprintf("%s closes %s", rules.Esc(st.Title), rules.WhenUTC(st.Deadline, l.zone()))
	// The reminder time's own distance from the deadline, not the send's:
	// the same words whenever it goes out.
	before := trimIn(rules.Until(offs[due-1]))
	var r referee.Step
	for _, id := range roster.IDs() {
		owed := rules.OwedOf(l.game, l.state, id)
		if len(owed) == 0 {
			continue
		}
		text := fmt.Sprintf("%s, a reminder %s before the deadline: %s, and you still have to:\n- %s", roster.Name(id), before, closes, strings.Join(owed, "\n- "))
		r.Events = append(r.Events, rules.Event{To: id, Kind: eventReminder, Text: text})
		r.Out = append(r.Out, referee.Outgoing{To: id, Subject: fmt.Sprintf("%s — %s: reminder", l.game.Name(), st.Title), Text: text})
	}
	if l.cfg.Reminders.InThread() && len(st.Waiting) > 0 {
		names := make([]string, len(st.Waiting))
		for i, id := range st.Waiting {
			names[i] = roster.Name(id)
		}
		text := fmt.Sprintf("[b]Reminder:[/b] %s (%s). Still waiting for %s.", closes, rules.Until(st.Deadline.Sub(t)), joinNames(names))
		r.Events = append([]rules.Event{{Kind: eventReminder, Text: text}}, r.Events...)
		r.Out = append([]referee.Outgoing{{To: rules.Everyone, Text: text}}, r.Out...)
	}
	if len(r.Out) > 0 {
		s.emitLapsing(st.Phase, r, t)
	}
}

// emitLapsing is emit for messages that lapse if their phase closes before
// they are sent (closeOff).
func (s *step) emitLapsing(phase string, r referee.Step, at time.Time) {
	from := len(s.ch.Outbox)
	s.emit(store.SendChores, phase, r, at)
	for i := from; i < len(s.ch.Outbox); i++ {
		s.ch.Outbox[i].Marker += lapseSuffix
	}
}

// prod PMs each player still in the game whom the game has not heard from
// (no post in the thread, no PM to the bot) for the reminders' prod time,
// counted from his last post or PM, his last prod, or the game's start,
// whichever is latest: one prod per silence of that length.
func (m *Moderator) prod(tx *store.Tx, s *step, b *gameconfig.BetweenState, st rules.Status, t time.Time) error {
	l := s.l
	after := l.cfg.Reminders.ProdAfter()
	if after <= 0 || t.Before(m.prodCheck(l.row.ID)) {
		return nil
	}
	heard, err := tx.LastHeard(l.row.ID)
	if err != nil {
		return err
	}
	roster := l.state.Roster()
	last := map[string]time.Time{}
	for name, at := range heard {
		if slot, ok := roster.Author(name); ok && at.After(last[slot]) {
			last[slot] = at
		}
	}
	next := time.Time{}
	var r referee.Step
	for _, id := range roster.IDs() {
		if slices.Contains(st.Out, id) {
			continue
		}
		since := laterOf(laterOf(l.cfg.Start, last[id]), b.Prodded[id])
		if t.Sub(since) >= after {
			r.Events = append(r.Events, rules.Event{To: id, Kind: eventProd, Text: m.prodText(s, st, id, laterOf(l.cfg.Start, last[id]), t)})
			r.Out = append(r.Out, referee.Outgoing{To: id, Subject: fmt.Sprintf("%s — %s: are you still with us?", l.game.Name(), st.Title), Text: r.Events[len(r.Events)-1].Text})
			if b.Prodded == nil {
				b.Prodded = map[string]time.Time{}
			}
			b.Prodded[id] = t
			since = t
		}
		if due := since.Add(after); next.IsZero() || due.Before(next) {
			next = due
		}
	}
	m.setProdCheck(l.row.ID, next)
	if len(r.Out) > 0 {
		s.emit(store.SendChores, st.Phase, r, t)
	}
	return nil
}

// prodText is the prod PM to player id, silent since since.
func (m *Moderator) prodText(s *step, st rules.Status, id string, since, t time.Time) string {
	l := s.l
	roster := l.state.Roster()
	text := fmt.Sprintf("%s, the game has not heard from you since %s (%s): no post in the thread and no PM to me.",
		roster.Name(id), rules.WhenUTC(since, l.zone()), trimIn(rules.Until(t.Sub(since))))
	if !st.Deadline.IsZero() {
		text += fmt.Sprintf(" %s closes %s.", rules.Esc(st.Title), rules.WhenUTC(st.Deadline, l.zone()))
	}
	if owed := rules.OwedOf(l.game, l.state, id); len(owed) > 0 {
		text += "\nYou still have to:\n- " + strings.Join(owed, "\n- ")
	}
	return text + "\nIf you cannot play on, please tell the GM, who can find someone to take your place."
}

// prodCheck is when game id's prods are next worth looking for (zero:
// now). It is only a lower bound, kept in memory: a player's silence
// can only end later, never earlier, than it was last computed.
func (m *Moderator) prodCheck(id int64) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.prodAt[id]
}

func (m *Moderator) setProdCheck(id int64, t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.prodAt == nil {
		m.prodAt = map[int64]time.Time{}
	}
	m.prodAt[id] = t
}

// closing is a phase a step closed, with its title.
type closing struct{ phase, title string }

// closeOff settles what the step's closed phases leave behind, before the
// step is saved: reminders of those phases still queued lapse (the
// phase's close says the rest), and requests for a count still waiting
// are answered by the close.
func (m *Moderator) closeOff(tx *store.Tx, s *step) error {
	if len(s.closings) == 0 {
		return nil
	}
	un, err := tx.Unsent(s.l.row.ID)
	if err != nil {
		return err
	}
	for _, c := range s.closings {
		prefix := s.l.markerName() + "/" + c.phase + "/"
		why := "not sent: " + c.title + " closed first"
		lapses := func(it store.OutboxItem) bool {
			return it.State == store.OutboxPending && strings.HasPrefix(it.Marker, prefix) && strings.HasSuffix(it.Marker, lapseSuffix)
		}
		for _, it := range un {
			if lapses(it) {
				if s.ch.Lapse == nil {
					s.ch.Lapse = &store.LapseChange{Why: why}
				}
				s.ch.Lapse.IDs = append(s.ch.Lapse.IDs, it.ID)
			}
		}
		for i := range s.ch.Outbox {
			if it := &s.ch.Outbox[i]; lapses(*it) {
				it.State, it.LastError = store.OutboxLapsed, why
			}
		}
		answered := "answered by the close of " + c.title
		cmds, err := tx.Commands(s.l.row.ID, store.CommandFilter{Phase: c.phase, Status: store.CommandAccepted})
		if err != nil {
			return err
		}
		for _, cmd := range cmds {
			if cmd.Kind == countKind && cmd.Reason == countWaiting && !changedIn(s, cmd.ID) {
				s.ch.CommandStatuses = append(s.ch.CommandStatuses, store.CommandStatusChange{ID: cmd.ID, Status: store.CommandAccepted, Reason: answered})
			}
		}
		for i := range s.ch.Commands {
			if cmd := &s.ch.Commands[i]; cmd.Kind == countKind && cmd.Phase == c.phase && cmd.Reason == countWaiting {
				cmd.Reason = answered
			}
		}
	}
	return nil
}
