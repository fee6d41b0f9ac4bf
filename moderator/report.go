package moderator

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gamelog"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/signups"
	"github.com/forumgm/forumgm/store"
)

// GameReport is what `forumgm status` shows of one game: public facts only
// (who has acted, not what they did).
type GameReport struct {
	Name   string           `json:"name"`
	Game   string           `json:"game"`
	Status store.GameStatus `json:"status"`
	Error  string           `json:"error,omitempty"` // the game could not be read
	Rules  rules.Status     `json:"rules"`
	// DeadlineText is the deadline as the game's posts write it: in the
	// board's time zone (rules.When); "" without one.
	DeadlineText string `json:"deadline_text,omitempty"`
	// Zone is the board's time zone, for writing other times the same way.
	Zone    *time.Location `json:"-"`
	Thread  string         `json:"thread"`
	Pending int            `json:"outbox_pending"`
	Failed  int            `json:"outbox_failed"`
	Sent    int            `json:"outbox_sent"`
	// Taken are messages the board said it took whose markers were not
	// found on it: never sent again by themselves (`retry` does).
	Taken int `json:"outbox_taken"`
	// Flood is the bot account's flood control as `forumgm run` last
	// learned it (unknown until it has posted).
	Flood forum.FloodStatus `json:"flood"`
	// ForumHealth is how the bot's reads of the board are going: the last
	// good read, the last error and since when reads fail, the next try.
	ForumHealth store.Health `json:"forum_health"`
	// ThreadRead is how far the bot has read the thread (nil before its
	// first read): a long first read runs over several polls.
	ThreadRead *store.ThreadProgress `json:"thread_read,omitempty"`
	// PublicURL is the game's public_url: its posts link the map pictures
	// of the desk's public page there, which the desk therefore serves.
	PublicURL string `json:"public_url,omitempty"`
	// PicturesAsText is the bot's post in which the board showed the
	// game's [img] as text ("" while it has not): posts carry the text
	// map alone since.
	PicturesAsText string `json:"pictures_as_text,omitempty"`
	// StepError is why the game's steps are failing (nil while they
	// succeed): what `forumgm run` met at its last try, and since when.
	StepError *store.StepError `json:"step_error,omitempty"`
	// Activity is each player's in the current phase: posts in the
	// thread, accepted commands, when last heard from (gamelog.Current).
	Activity []gamelog.PlayerActivity `json:"activity,omitempty"`
	// Signups is the game's sign-ups (nil: its players were in its game
	// file): while they run, who is in and when they close; after, who
	// signed up and when the game started.
	Signups *signups.List `json:"signups,omitempty"`
}

// HealthText is the forum health in one line for a GM, times in the
// board's zone: "read fine, last at …" or "NOT READABLE since … (n failed
// reads): error; last good read …; next try …".
func (r GameReport) HealthText() string {
	h := r.ForumHealth
	at := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.In(r.zoneOrUTC()).Format("Mon 2 Jan 15:04:05 MST")
	}
	if !h.Failing() {
		if h.LastGoodRead.IsZero() {
			return "not read yet"
		}
		return "read fine, last at " + at(h.LastGoodRead) + inboxText(h, at)
	}
	text := fmt.Sprintf("NOT READABLE since %s (%d failed %s): %s; last good read %s", at(h.FailingSince), h.Failures,
		map[bool]string{true: "read", false: "reads"}[h.Failures == 1], h.LastError, at(h.LastGoodRead))
	if !h.NextRetry.IsZero() {
		text += "; next try " + at(h.NextRetry)
	}
	return text
}

func (r GameReport) zoneOrUTC() *time.Location {
	if r.Zone == nil {
		return time.UTC
	}
	return r.Zone
}

// Report summarises games (all when name is "").
func (m *Moderator) Report(ctx context.Context, name string) ([]GameReport, error) {
	var out []GameReport
	var onBoard []*loaded // out[i]'s game, nil when unreadable: its board is resolved after the read
	err := m.DB.View(ctx, func(tx *store.Tx) error {
		var games []store.Game
		if name != "" {
			g, err := tx.Game(name)
			if err != nil {
				return err
			}
			games = []store.Game{*g}
		} else {
			var err error
			if games, err = tx.Games(); err != nil {
				return err
			}
		}
		for i := range games {
			l, err := decodeGame(&games[i])
			if err != nil {
				if name != "" {
					return err
				}
				// One unreadable game must not hide the others.
				out = append(out, GameReport{Name: games[i].Name, Game: games[i].Kind, Status: games[i].Status, Error: "unreadable: " + err.Error()})
				onBoard = append(onBoard, nil)
				continue
			}
			st := l.game.Status(l.state)
			st.Extra = nil // game-specific results may hold secrets mid-game
			names(l.state.Roster(), &st)
			r := GameReport{Name: l.row.Name, Game: l.row.Kind, Status: l.row.Status, Rules: st, PublicURL: l.cfg.PublicURL, PicturesAsText: l.cfg.PicturesAsText}
			items, err := tx.Outbox(l.row.ID)
			if err != nil {
				return err
			}
			if r.Flood, err = loadFlood(tx, l.row.ID); err != nil {
				return err
			}
			if r.ForumHealth, err = tx.Health(l.row.ID); err != nil {
				return err
			}
			if p, ok, err := tx.ThreadProgressOf(l.row.ID); err != nil {
				return err
			} else if ok {
				r.ThreadRead = &p
			}
			if r.StepError, err = tx.StepError(l.row.ID); err != nil {
				return err
			}
			if r.Activity, err = gamelog.Current(tx, l.records()); err != nil {
				return err
			}
			if l.cfg.Signups != nil {
				ps, err := tx.Players(l.row.ID)
				if err != nil {
					return err
				}
				r.Signups = signupList(l, ps, time.UTC) // written in the board's zone below
			}
			for _, it := range items {
				switch it.State {
				case store.OutboxSent:
					r.Sent++
				case store.OutboxFailed:
					r.Failed++
				case store.OutboxTaken:
					r.Taken++
				case store.OutboxSplit, store.OutboxLapsed:
					// replaced by its parts, counted instead; or never to go
				default:
					r.Pending++
				}
			}
			out = append(out, r)
			onBoard = append(onBoard, l)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("status %s: %w", name, err)
	}
	for i, l := range onBoard {
		if l == nil {
			continue
		}
		site := m.site(l.row.ID, l.row.Forum, l.forum)
		r := &out[i]
		r.Thread, r.Zone = site.ThreadURL(), site.Zone
		if !r.Rules.Deadline.IsZero() {
			r.DeadlineText = rules.When(r.Rules.Deadline, site.Zone)
		}
		if r.Signups != nil {
			r.Signups.CloseText = rules.WhenUTC(r.Signups.Close, site.Zone)
		}
	}
	return out, nil
}

// loadFlood is the flood status recorded for a game (unknown when none).
func loadFlood(tx *store.Tx, id int64) (forum.FloodStatus, error) {
	st := forum.FloodStatus{State: forum.FloodUnknown}
	doc, err := tx.Flood(id)
	if err != nil || doc == nil {
		return st, err
	}
	if err := json.Unmarshal(doc, &st); err != nil {
		return st, fmt.Errorf("game #%d: flood status: %w", id, err)
	}
	return st, nil
}

// names shows players by their current forum names (after a replacement,
// the new account's), not by their sign-up slot ids.
func names(r *rules.Roster, st *rules.Status) {
	conv := func(ids []string) []string {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = r.Display(id)
		}
		return out
	}
	st.Waiting, st.Acted, st.Out, st.Winners = conv(st.Waiting), conv(st.Acted), conv(st.Out), conv(st.Winners)
	if st.Scores != nil {
		sc := map[string]int{}
		for id, v := range st.Scores {
			sc[r.Display(id)] = v
		}
		st.Scores = sc
	}
}
