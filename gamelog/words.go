package gamelog

import (
	"time"

	"github.com/forumgm/forumgm/gmwords"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// GMWord is one of the GM's own texts as the audit log lists it: an
// announcement or note (say) or a flavor that went out with its phase.
type GMWord struct {
	At    time.Time `json:"at"`
	Phase string    `json:"phase"`
	Kind  string    `json:"kind"` // "say" or "flavor"
	To    string    `json:"to"`   // "thread" or the player's name
	Text  string    `json:"text"`
}

// GMWords are the GM's own texts game id has sent or queued, oldest first.
// They hold PMs' text: for the GM only (the CLI's audit, the desk's GM
// pages).
func GMWords(tx *store.Tx, id int64) ([]GMWord, error) {
	evs, err := tx.Events(id)
	if err != nil {
		return nil, err
	}
	var out []GMWord
	for _, e := range evs {
		kind := map[string]string{gmwords.EventSay: "say", gmwords.EventFlavor: "flavor"}[e.Kind]
		if kind == "" {
			continue
		}
		to := "thread"
		if e.To != rules.Everyone {
			to = e.To
		}
		out = append(out, GMWord{At: e.At, Phase: e.Phase, Kind: kind, To: to, Text: e.Text})
	}
	return out, nil
}

// FlavorNote is a flavor as the GM's pages list it.
type FlavorNote struct {
	Phase string
	To    string // the player's name; "" for the thread
	Text  string
	At    time.Time
}

// Flavors are the flavors written for a game's phase ("": every phase's),
// written but not necessarily gone out yet. They may be private (a
// player's): for the GM's pages only.
func Flavors(tx *store.Tx, g Game, phase string) ([]FlavorNote, error) {
	var out []FlavorNote
	fs, err := tx.Flavors(g.Row.ID, phase)
	for _, f := range fs {
		to := f.To
		if to != "" && g.State != nil {
			to = g.State.Roster().Display(to)
		}
		out = append(out, FlavorNote{Phase: f.Phase, To: to, Text: f.Text, At: f.At})
	}
	return out, err
}
