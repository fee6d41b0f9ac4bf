package webdesk

import (
	"bytes"
	"net/http"
	"net/url"
	"time"

	"github.com/forumgm/forumgm/gamelog"
	"github.com/forumgm/forumgm/moderator"
)

// Between deadlines on the desk (docs/between-deadlines.md): each player's
// activity phase by phase and the commands as a spreadsheet, for the GM;
// the vote log, for everyone, on the game's public page.

type activityPage struct {
	GameHead
	Phases []gamelog.PhaseActivity // the latest first
}

func (d *Desk) activityPage(w http.ResponseWriter, r *http.Request, s *session) {
	g, ok := d.load(w, r)
	if !ok {
		return
	}
	all, err := d.m.Activity(r.Context(), g.Report.Name)
	if err != nil {
		d.fail(w, err)
		return
	}
	p := activityPage{GameHead: GameHead{D: g, Public: d.public(g.Report), Now: d.now()}}
	for i := len(all) - 1; i >= 0; i-- {
		p.Phases = append(p.Phases, all[i])
	}
	d.render(w, r, http.StatusOK, "activity", d.gmPage(s, g.Report.Name+": activity", g.Report.Name, "activity", p))
}

// auditCSV is the commands as `forumgm audit --csv` prints them, to
// download.
func (d *Desk) auditCSV(w http.ResponseWriter, r *http.Request, _ *session) {
	name := r.PathValue("name")
	q := r.URL.Query()
	lines, zone, err := d.m.CommandLines(r.Context(), name, gamelog.Filter{Player: q.Get("player"), Phase: q.Get("phase")})
	if err != nil {
		d.fail(w, err)
		return
	}
	var buf bytes.Buffer
	if err := gamelog.WriteCSV(&buf, lines, zone); err != nil {
		d.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+url.PathEscape(name)+`-commands.csv"`)
	buf.WriteTo(w)
}

type voteLogPage struct {
	R   moderator.GameReport
	Log *gamelog.VoteLog
	Now time.Time
}

// voteLogPage is the public vote log: served, like the public page, only
// for a game the GM opened to the public, and made only of what players
// may see (gamelog.VoteLog).
func (d *Desk) voteLogPage(w http.ResponseWriter, r *http.Request) {
	g, _, ok := d.publicGame(w, r)
	if !ok {
		return
	}
	rep := &g.Report
	log, err := d.m.VoteLog(r.Context(), rep.Name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	// The latest phase first, as players look for the current one.
	for i, j := 0, len(log.Phases)-1; i < j; i, j = i+1, j-1 {
		log.Phases[i], log.Phases[j] = log.Phases[j], log.Phases[i]
	}
	d.render(w, r, http.StatusOK, "votelog", page{Title: rep.Name + ": vote log", Data: voteLogPage{R: *rep, Log: log, Now: d.now()}})
}
