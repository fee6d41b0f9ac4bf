package between

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// Work is the between-deadline work of a moderator's games. Its zero value
// is ready; it keeps only a lower bound of when each game's prods are next
// worth looking for, in memory (lost on restart, harmlessly).
type Work struct {
	mu     sync.Mutex
	prodAt map[int64]time.Time
}

// IsCountRequest says whether a bold segment asks for a count: VOTECOUNT,
// VOTE COUNT or COUNT, in any case, perhaps with a question mark.
func IsCountRequest(seg string) bool {
	w := strings.Join(strings.Fields(strings.ToUpper(strings.TrimRight(strings.TrimSpace(seg), "?!.: "))), " ")
	switch w {
	case "VOTECOUNT", "VOTE COUNT", "VOTE-COUNT", "COUNT":
		return true
	}
	return false
}

// Requests is called for each post the step applies (msg, by the player
// in slot, in phase): it takes the requests for a count out of the post's
// segments and returns the rest, for the game (a request is no game's
// command). Each request is recorded in the audit log as waiting for the
// next count, which Due posts once the game's gap allows. A game that
// takes no requests leaves them to the game, which reads them as chatter.
func (w *Work) Requests(s *Step, msg store.Message, slot, phase string, segs []string) []string {
	if !s.active() || !s.Config.Counts.OnRequest() || s.Rules.Status(s.State).Finished {
		return segs
	}
	var out []string
	for i, seg := range segs {
		if !IsCountRequest(seg) {
			continue
		}
		if out == nil {
			out = slices.Clone(segs)
		}
		out[i] = ""
		s.Changes.Commands = append(s.Changes.Commands, store.CommandRow{GameID: s.Row.ID, MessageID: msg.ID, Seq: i, Phase: phase, Player: slot,
			Channel: string(rules.Public), Text: strings.TrimSpace(seg), Kind: CountKind, Status: store.CommandAccepted, Reason: countWaiting, Time: msg.Time})
		b := s.Config.Between.For(phase)
		b.Asked = true
		s.setBetween(b)
	}
	if out == nil {
		return segs
	}
	return out
}

// Due does what is due at t between deadlines; the moderator calls it in
// the tick's last step, after its resolutions: a count a player asked for
// once the gap allows, a count on the GM's schedule when it has changed,
// the reminders of a reminder time just passed, the prods of players
// silent too long. Nothing before the opening post is up, nothing in a
// game that is over, and only counts asked for while the game is paused.
func (w *Work) Due(s *Step, t time.Time) error {
	st := s.Rules.Status(s.State)
	if !s.active() || st.Finished || s.Config.OpeningPost == "" || s.Behind {
		return nil
	}
	b := s.Config.Between.For(st.Phase)
	fresh := s.Config.Between == nil || s.Config.Between.Phase != st.Phase
	length := time.Duration(0)
	if !st.Deadline.IsZero() {
		length = st.Deadline.Sub(s.Opened)
	}
	running := s.Row.Status == store.GameRunning
	every := s.Config.Counts.EveryTime()
	answer := false
	if b.Asked {
		var err error
		if answer, err = gapPassed(s, b, t, s.Config.Counts.GapFor(length)); err != nil {
			return err
		}
	}
	switch {
	case answer:
		if _, err := postCount(s, b, t, ""); err != nil {
			return err
		}
	case every > 0 && running && fresh:
		// Where "changed" is counted from: the phase as it opened.
		body, _, err := countBody(s)
		if err != nil {
			return err
		}
		b.CountSum, b.Checked = digest(body), t
	case every > 0 && running && !t.Before(laterOf(laterOf(b.CountAt, b.Checked), s.Opened).Add(every)):
		body, _, err := countBody(s)
		if err != nil {
			return err
		}
		b.Checked = t
		if digest(body) != b.CountSum {
			if _, err := postCount(s, b, t, fmt.Sprintf("(posted every %s while it changes)", rules.Span(every))); err != nil {
				return err
			}
		}
	}
	if running {
		remind(s, b, st, t, length)
		if err := w.prod(s, b, st, t); err != nil {
			return err
		}
	}
	s.setBetween(b)
	return nil
}

// Count posts a count of the game's current phase at t, at the GM's word
// (`forumgm count`, the desk's button), whatever the gap and whether it
// has changed; it answers the requests waiting for one. It returns the
// count's number in the phase. The game must be running or paused, and
// not over (the moderator's control checks).
func (w *Work) Count(s *Step, t time.Time) (int, error) {
	b := s.Config.Between.For(s.Rules.Status(s.State).Phase)
	n, err := postCount(s, b, t, "(posted by the GM)")
	if err != nil {
		return 0, err
	}
	s.setBetween(b)
	return n, nil
}

// gapPassed says whether a count on request may go out at t: the phase
// has had none, or its last is the gap old, counted from when it went on
// the board (its outbox item's send), so that two counts on the board are
// never closer than the gap, however long the first waited to go out. A
// last count not sent yet holds the next back.
func gapPassed(s *Step, b *gameconfig.BetweenState, t time.Time, gap time.Duration) (bool, error) {
	if b.CountAt.IsZero() {
		return true, nil
	}
	if t.Before(b.CountAt.Add(gap)) {
		return false, nil
	}
	if b.CountKey == "" {
		return true, nil
	}
	it, err := s.Tx.OutboxByMarker(s.Row.ID, b.CountKey)
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
func countBody(s *Step) (string, []store.CommandPost, error) {
	phase := s.Rules.Status(s.State).Phase
	cmds, err := s.Tx.CommandPosts(s.Row.ID, store.CommandFilter{Phase: phase, Status: store.CommandAccepted})
	if err != nil {
		return "", nil, err
	}
	var thread []rules.Command
	var waiting []store.CommandPost
	for _, c := range cmds {
		if c.Channel != string(rules.Public) || changedIn(s, c.ID) {
			continue
		}
		if c.Kind == CountKind {
			if c.Reason == countWaiting {
				waiting = append(waiting, c)
			}
			continue
		}
		thread = append(thread, rules.Command{Kind: c.Kind, Args: c.Args, Text: c.Text,
			Src: rules.Source{Player: c.Player, Channel: rules.Public, Time: c.Time, Ref: c.ForumID}})
	}
	// Commands of this very step, not saved yet.
	for _, c := range s.Changes.Commands {
		if c.Phase == phase && c.Channel == string(rules.Public) && c.Status == store.CommandAccepted && c.Kind != CountKind {
			thread = append(thread, rules.Command{Kind: c.Kind, Args: c.Args, Text: c.Text, Src: rules.Source{Player: c.Player, Channel: rules.Public, Time: c.Time}})
		}
	}
	link := func(ref string) string {
		id, _, _ := strings.Cut(ref, "+") // text a board appended to a post: the post's own link
		return s.Site.PostURL(id)
	}
	return rules.CountOf(s.Rules, s.State, rules.CountInput{Thread: thread, Link: link}), waiting, nil
}

// changedIn says whether this step changes command id's status (an edit
// superseding it, a GM's void): it no longer counts as it stood.
func changedIn(s *Step, id int64) bool {
	for _, c := range s.Changes.CommandStatuses {
		if c.ID == id && c.Status != store.CommandAccepted {
			return true
		}
	}
	return false
}

// postCount posts the next count of the current phase at t and answers the
// requests waiting for it; note says why it goes out when no player asked
// ("" for a request). It returns the count's number in the phase.
func postCount(s *Step, b *gameconfig.BetweenState, t time.Time, note string) (int, error) {
	st := s.Rules.Status(s.State)
	body, waiting, err := countBody(s)
	if err != nil {
		return 0, err
	}
	b.Counts++
	roster := s.State.Roster()
	var askers []string
	for _, c := range waiting {
		if name := rules.Esc(roster.Display(c.Player)); !slices.Contains(askers, name) {
			askers = append(askers, name)
		}
		s.Changes.CommandStatuses = append(s.Changes.CommandStatuses, store.CommandStatusChange{ID: c.ID, Status: store.CommandAccepted, Reason: fmt.Sprintf("answered by count %d", b.Counts)})
	}
	for i := range s.Changes.Commands {
		if c := &s.Changes.Commands[i]; c.Kind == CountKind && c.Phase == st.Phase && c.Reason == countWaiting {
			if name := rules.Esc(roster.Display(c.Player)); !slices.Contains(askers, name) {
				askers = append(askers, name)
			}
			c.Reason = fmt.Sprintf("answered by count %d", b.Counts)
		}
	}
	text := fmt.Sprintf("[b]%s — count %d[/b]\n%s", rules.Esc(st.Title), b.Counts, body)
	if !st.Deadline.IsZero() {
		text += "\n\n" + rules.Deadline(st.Deadline, s.zone(), t)
	}
	switch {
	case len(askers) > 0:
		text += "\n(asked for by " + rules.JoinNames(askers) + ")"
	case note != "":
		text += "\n" + note
	}
	from := len(s.Changes.Outbox)
	s.Emit(store.SendAnswers, st.Phase, referee.Step{Events: []rules.Event{{Kind: EventCount, Text: text}}, Out: []referee.Outgoing{{To: rules.Everyone, Text: text}}}, t)
	b.CountAt, b.CountSum, b.Asked, b.CountKey = t, digest(body), false, ""
	if n := len(s.Changes.Outbox); n > from {
		b.CountKey = s.Changes.Outbox[n-1].Marker // a count in parts: its last
	}
	return b.Counts, nil
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
func remind(s *Step, b *gameconfig.BetweenState, st rules.Status, t time.Time, length time.Duration) {
	if st.Deadline.IsZero() || !t.Before(st.Deadline) {
		return
	}
	offs := s.Config.Reminders.BeforeFor(length)
	due := 0
	for due < len(offs) && !st.Deadline.Add(-offs[due]).After(t) {
		due++
	}
	if due <= b.Reminded {
		return
	}
	b.Reminded = due
	if !st.Deadline.Add(-offs[due-1]).After(s.Opened) {
		return
	}
	roster := s.State.Roster()
	closes := fmt.Sprintf("%s closes %s", rules.Esc(st.Title), rules.WhenUTC(st.Deadline, s.zone()))
	// The reminder time's own distance from the deadline, not the send's:
	// the same words whenever it goes out.
	before := rules.Span(offs[due-1])
	var r referee.Step
	for _, id := range roster.IDs() {
		owed := rules.OwedOf(s.Rules, s.State, id)
		if len(owed) == 0 {
			continue
		}
		text := fmt.Sprintf("%s, a reminder %s before the deadline: %s, and you still have to:\n- %s", roster.Name(id), before, closes, strings.Join(owed, "\n- "))
		r.Events = append(r.Events, rules.Event{To: id, Kind: eventReminder, Text: text})
		r.Out = append(r.Out, referee.Outgoing{To: id, Subject: fmt.Sprintf("%s — %s: reminder", s.Rules.Name(), st.Title), Text: text})
	}
	if s.Config.Reminders.InThread() && len(st.Waiting) > 0 {
		names := make([]string, len(st.Waiting))
		for i, id := range st.Waiting {
			names[i] = roster.Name(id)
		}
		text := fmt.Sprintf("[b]Reminder:[/b] %s (%s). Still waiting for %s.", closes, rules.Until(st.Deadline.Sub(t)), rules.JoinNames(names))
		r.Events = append([]rules.Event{{Kind: eventReminder, Text: text}}, r.Events...)
		r.Out = append([]referee.Outgoing{{To: rules.Everyone, Text: text}}, r.Out...)
	}
	if len(r.Out) > 0 {
		s.emitLapsing(st.Phase, r, t)
	}
}

// prod PMs each player still in the game whom the game has not heard from
// (no post in the thread, no PM to the bot) for the reminders' prod time,
// counted from his last post or PM, his last prod, or the game's start,
// whichever is latest: one prod per silence of that length.
func (w *Work) prod(s *Step, b *gameconfig.BetweenState, st rules.Status, t time.Time) error {
	after := s.Config.Reminders.ProdAfter()
	if after <= 0 || t.Before(w.prodCheck(s.Row.ID)) {
		return nil
	}
	heard, err := s.Tx.LastHeard(s.Row.ID)
	if err != nil {
		return err
	}
	roster := s.State.Roster()
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
		since := laterOf(laterOf(s.Config.Start, last[id]), b.Prodded[id])
		if t.Sub(since) >= after {
			r.Events = append(r.Events, rules.Event{To: id, Kind: eventProd, Text: prodText(s, st, id, laterOf(s.Config.Start, last[id]), t)})
			r.Out = append(r.Out, referee.Outgoing{To: id, Subject: fmt.Sprintf("%s — %s: are you still with us?", s.Rules.Name(), st.Title), Text: r.Events[len(r.Events)-1].Text})
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
	w.setProdCheck(s.Row.ID, next)
	if len(r.Out) > 0 {
		s.Emit(store.SendChores, st.Phase, r, t)
	}
	return nil
}

// prodText is the prod PM to player id, silent since since.
func prodText(s *Step, st rules.Status, id string, since, t time.Time) string {
	roster := s.State.Roster()
	text := fmt.Sprintf("%s, the game has not heard from you since %s (%s): no post in the thread and no PM to me.",
		roster.Name(id), rules.WhenUTC(since, s.zone()), rules.Span(t.Sub(since)))
	if !st.Deadline.IsZero() {
		text += fmt.Sprintf(" %s closes %s.", rules.Esc(st.Title), rules.WhenUTC(st.Deadline, s.zone()))
	}
	if owed := rules.OwedOf(s.Rules, s.State, id); len(owed) > 0 {
		text += "\nYou still have to:\n- " + strings.Join(owed, "\n- ")
	}
	return text + "\nIf you cannot play on, please tell the GM, who can find someone to take your place."
}

// prodCheck is when game id's prods are next worth looking for (zero:
// now). It is only a lower bound, kept in memory: a player's silence
// can only end later, never earlier, than it was last computed.
func (w *Work) prodCheck(id int64) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.prodAt[id]
}

func (w *Work) setProdCheck(id int64, t time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.prodAt == nil {
		w.prodAt = map[int64]time.Time{}
	}
	w.prodAt[id] = t
}

// Closed is a phase a step closed, with its title.
type Closed struct{ Phase, Title string }

// Close settles what the phases a step closed leave behind; the moderator
// calls it before the step is saved: reminders of those phases still
// queued lapse (the phase's close says the rest), and requests for a count
// still waiting are answered by the close.
func (w *Work) Close(s *Step, closed []Closed) error {
	if len(closed) == 0 {
		return nil
	}
	un, err := s.Tx.Unsent(s.Row.ID)
	if err != nil {
		return err
	}
	for _, c := range closed {
		prefix := s.Marker + "/" + c.Phase + "/"
		why := "not sent: " + c.Title + " closed first"
		lapses := func(it store.OutboxItem) bool {
			return it.State == store.OutboxPending && strings.HasPrefix(it.Marker, prefix) && strings.HasSuffix(it.Marker, LapseSuffix)
		}
		for _, it := range un {
			if lapses(it) {
				if s.Changes.Lapse == nil {
					s.Changes.Lapse = &store.LapseChange{Why: why}
				}
				s.Changes.Lapse.IDs = append(s.Changes.Lapse.IDs, it.ID)
			}
		}
		for i := range s.Changes.Outbox {
			if it := &s.Changes.Outbox[i]; lapses(*it) {
				it.State, it.LastError = store.OutboxLapsed, why
			}
		}
		answered := "answered by the close of " + c.Title
		cmds, err := s.Tx.Commands(s.Row.ID, store.CommandFilter{Phase: c.Phase, Status: store.CommandAccepted})
		if err != nil {
			return err
		}
		for _, cmd := range cmds {
			if cmd.Kind == CountKind && cmd.Reason == countWaiting && !changedIn(s, cmd.ID) {
				s.Changes.CommandStatuses = append(s.Changes.CommandStatuses, store.CommandStatusChange{ID: cmd.ID, Status: store.CommandAccepted, Reason: answered})
			}
		}
		for i := range s.Changes.Commands {
			if cmd := &s.Changes.Commands[i]; cmd.Kind == CountKind && cmd.Phase == c.Phase && cmd.Reason == countWaiting {
				cmd.Reason = answered
			}
		}
	}
	return nil
}
