package webdesk

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/gamelog"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// gameRow is one game on the games page.
type gameRow struct {
	R      moderator.GameReport
	H      moderator.Health
	Public bool
}

func (d *Desk) games(w http.ResponseWriter, r *http.Request, s *session) {
	rs, err := d.m.Report(r.Context(), "")
	if err != nil {
		d.fail(w, err)
		return
	}
	hs, err := d.m.Healths(r.Context())
	if err != nil {
		d.fail(w, err)
		return
	}
	var rows []gameRow
	for _, g := range rs {
		rows = append(rows, gameRow{R: g, H: hs[g.Name], Public: d.public(g)})
	}
	d.render(w, r, http.StatusOK, "games", d.gmPage(s, "Games", "", "games", struct {
		Rows []gameRow
		Now  time.Time
	}{rows, d.now()}))
}

// GameHead is what every page of one game shows at the top.
type GameHead struct {
	D      *moderator.DeskGame
	Public bool
	Now    time.Time
}

func (d *Desk) load(w http.ResponseWriter, r *http.Request) (*moderator.DeskGame, bool) {
	g, err := d.m.Desk(r.Context(), r.PathValue("name"))
	if err != nil {
		d.fail(w, err)
		return nil, false
	}
	return g, true
}

// auditMsg is one post or PM in the audit log as the desk shows it.
type auditMsg struct {
	gamelog.AuditRow
	Lines []string // the message's text, line by line, as read
	Link  string   // the post on the board ("" for PMs)
}

type auditPage struct {
	GameHead
	Rows     []auditMsg
	Player   string
	Phase    string
	Status   string
	Players  []string
	Phases   []string
	Statuses []store.CommandStatus
	Total    int
	Current  string // the current phase: its accepted commands may be voided
}

func (d *Desk) audit(w http.ResponseWriter, r *http.Request, s *session) {
	g, ok := d.load(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	p := auditPage{GameHead: GameHead{D: g, Public: d.public(g.Report), Now: d.now()},
		Player: q.Get("player"), Phase: q.Get("phase"), Status: q.Get("status"), Current: g.Status.Phase,
		Statuses: []store.CommandStatus{store.CommandAccepted, store.CommandRejected, store.CommandIgnored, store.CommandSuperseded, store.CommandVoided}}
	all, _, err := d.m.Audit(r.Context(), g.Report.Name, gamelog.Filter{})
	if err != nil {
		d.fail(w, err)
		return
	}
	p.Total = len(all)
	seen := map[string]bool{}
	for _, a := range all {
		for _, c := range a.Commands {
			if !seen[c.Phase] {
				seen[c.Phase] = true
				p.Phases = append(p.Phases, c.Phase)
			}
		}
	}
	for _, pl := range g.Players {
		p.Players = append(p.Players, pl.ForumName)
	}
	rows, _, err := d.m.Audit(r.Context(), g.Report.Name, gamelog.Filter{Player: p.Player, Phase: p.Phase})
	if err != nil {
		d.fail(w, err)
		return
	}
	for _, a := range rows {
		if p.Status != "" {
			var keep []store.CommandRow
			for _, c := range a.Commands {
				if string(c.Status) == p.Status {
					keep = append(keep, c)
				}
			}
			if len(keep) == 0 {
				continue
			}
			a.Commands = keep
		}
		m := auditMsg{AuditRow: a}
		if r := g.Site.Reader; r != nil {
			m.Lines = r.Lines(a.Message.BodyHTML)
		}
		if a.Message.Kind == forum.KindPost {
			m.Link = g.Site.PostURL(a.Message.ForumID)
		}
		p.Rows = append(p.Rows, m)
	}
	d.render(w, r, http.StatusOK, "audit", d.gmPage(s, g.Report.Name+": audit log", g.Report.Name, "audit", p))
}

// phaseLog is one phase of the history: what the game said in it.
type phaseLog struct {
	Phase   string
	Public  []store.EventRow
	Private []privateEvent
}

type privateEvent struct {
	To string
	store.EventRow
}

type outItem struct {
	store.OutboxItem
	Link string
}

type historyPage struct {
	GameHead
	Phases []phaseLog
	Outbox []outItem
}

func (d *Desk) history(w http.ResponseWriter, r *http.Request, s *session) {
	g, ok := d.load(w, r)
	if !ok {
		return
	}
	p := historyPage{GameHead: GameHead{D: g, Public: d.public(g.Report), Now: d.now()}}
	p.Phases = phases(g.Events, g.State.Roster())
	for _, it := range g.Outbox {
		o := outItem{OutboxItem: it}
		if it.Kind == forum.KindPost && it.State == store.OutboxSent {
			o.Link = g.Site.PostURL(it.ForumID)
		}
		p.Outbox = append(p.Outbox, o)
	}
	d.render(w, r, http.StatusOK, "history", d.gmPage(s, g.Report.Name+": phase history", g.Report.Name, "history", p))
}

// phases groups a game's events by phase, in the order the phases began.
func phases(evs []store.EventRow, roster *rules.Roster) []phaseLog {
	var out []phaseLog
	at := map[string]int{}
	for _, e := range evs {
		i, ok := at[e.Phase]
		if !ok {
			i = len(out)
			at[e.Phase] = i
			out = append(out, phaseLog{Phase: e.Phase})
		}
		if e.To == rules.Everyone {
			out[i].Public = append(out[i].Public, e)
		} else {
			out[i].Private = append(out[i].Private, privateEvent{To: roster.Display(e.To), EventRow: e})
		}
	}
	return out
}

type statePage struct {
	GameHead
	Players []store.Player
	// Views are the game's own GM view (Drawn); a game without one shows
	// its whole state as a table of values (State).
	Views  []viewSection
	Drawn  bool
	State  any
	Config gameconfig.GameConfig
}

func (d *Desk) state(w http.ResponseWriter, r *http.Request, s *session) {
	g, ok := d.load(w, r)
	if !ok {
		return
	}
	p := statePage{GameHead: GameHead{D: g, Public: d.public(g.Report), Now: d.now()}, Players: g.Players, Config: g.Config}
	var err error
	if p.Views, p.Drawn, err = d.views(r.Context(), g, true); err != nil {
		d.fail(w, err)
		return
	}
	if !p.Drawn {
		p.State = jsonValue(g.State)
	}
	d.render(w, r, http.StatusOK, "state", d.gmPage(s, g.Report.Name+": GM view", g.Report.Name, "state", p))
}

// stateJSON is the game's whole state as the store keeps it, to download
// (the GM's view shows it laid out).
func (d *Desk) stateJSON(w http.ResponseWriter, r *http.Request, _ *session) {
	g, ok := d.load(w, r)
	if !ok {
		return
	}
	b, err := json.MarshalIndent(g.State, "", "  ")
	if err != nil {
		d.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="`+g.Report.Name+`.state.json"`)
	w.Write(b)
}

// jsonValue is v as plain JSON values (maps, slices, strings, numbers), for
// the generic tree view.
func jsonValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("(cannot show: %v)", err)
	}
	var out any
	json.Unmarshal(b, &out)
	return out
}

// mapPic is one drawn turn: the public picture and the GM's.
type mapPic struct {
	Turn       int
	Public, GM []byte // SVG
	PublicPNG  []byte // the public picture as PNG, for [img] in the posts
}

// drawAll draws every turn of a game with a map (rules.Drawer): turn 0
// (the start) to the last resolved one. Nil when the game has no map.
func (d *Desk) drawAll(name string, eng rules.Game, st rules.State) ([]mapPic, error) {
	dr, ok := eng.(rules.Drawer)
	if !ok {
		return nil, nil
	}
	b, _ := json.Marshal(st)
	sum := sha256.Sum256(b)
	key := name + "/" + hex.EncodeToString(sum[:])
	if p, ok := d.maps.get(key); ok {
		return p, nil
	}
	var out []mapPic
	for turn := 0; turn < 1000; turn++ {
		mp, err := drawTurn(dr, st, turn)
		if err != nil {
			if turn == 0 {
				return nil, err
			}
			break // past the last resolved turn
		}
		out = append(out, mp)
	}
	d.maps.put(key, out)
	return out, nil
}

// drawOne draws one turn, for a picture asked for by its address (a post's
// [img]): a board's readers fetch one turn's picture at a time, and
// drawing every turn for each (drawAll) would cost as much as the game is
// long after every command the bot applies.
func (d *Desk) drawOne(name string, eng rules.Game, st rules.State, turn int) (mapPic, error) {
	dr, ok := eng.(rules.Drawer)
	if !ok {
		return mapPic{}, fmt.Errorf("%s has no pictures", name)
	}
	b, _ := json.Marshal(st)
	sum := sha256.Sum256(b)
	key := fmt.Sprintf("%s/%s/%d", name, hex.EncodeToString(sum[:]), turn)
	if p, ok := d.maps.get(key); ok && len(p) == 1 {
		return p[0], nil
	}
	mp, err := drawTurn(dr, st, turn)
	if err != nil {
		return mapPic{}, err
	}
	d.maps.put(key, []mapPic{mp})
	return mp, nil
}

// drawTurn sorts turn's pictures into the public and the GM's.
func drawTurn(dr rules.Drawer, st rules.State, turn int) (mapPic, error) {
	pics, err := dr.Draw(st, turn)
	if err != nil {
		return mapPic{}, err
	}
	mp := mapPic{Turn: turn}
	for _, p := range pics {
		switch {
		case p.Format == "png" && !p.GM:
			mp.PublicPNG = p.Data
		case p.Format != "svg":
		case p.GM:
			mp.GM = p.Data
		default:
			mp.Public = p.Data
		}
	}
	return mp, nil
}

type mapsPage struct {
	GameHead
	HasMap bool
	Turns  []mapPic
}

func (d *Desk) mapsPage(w http.ResponseWriter, r *http.Request, s *session) {
	g, ok := d.load(w, r)
	if !ok {
		return
	}
	pics, err := d.drawAll(g.Report.Name, g.Engine, g.State)
	if err != nil {
		d.fail(w, err)
		return
	}
	_, has := g.Engine.(rules.Drawer)
	// Newest turn first: that is what the GM looks for.
	rev := make([]mapPic, len(pics))
	for i, p := range pics {
		rev[len(pics)-1-i] = p
	}
	p := mapsPage{GameHead: GameHead{D: g, Public: d.public(g.Report), Now: d.now()}, HasMap: has, Turns: rev}
	d.render(w, r, http.StatusOK, "maps", d.gmPage(s, g.Report.Name+": maps", g.Report.Name, "maps", p))
}

// parsePic reads "3.svg" (the public picture of turn 3), "3-gm.svg" (the
// GM's) or "3.png" (the public one as PNG: the posts' [img]; there is no GM
// PNG to serve).
func parsePic(s string) (turn int, gm, png bool, ok bool) {
	s, png = strings.CutSuffix(s, ".png")
	if !png {
		var found bool
		if s, found = strings.CutSuffix(s, ".svg"); !found {
			return 0, false, false, false
		}
		s, gm = strings.CutSuffix(s, "-gm")
	}
	n, err := strconv.Atoi(s)
	return n, gm, png, err == nil && n >= 0 && strconv.Itoa(n) == s
}

func (d *Desk) gmMap(w http.ResponseWriter, r *http.Request, _ *session) {
	g, ok := d.load(w, r)
	if !ok {
		return
	}
	d.serveMap(w, r, g.Report.Name, g.Engine, g.State, true)
}

// shown says whether players may see turn's picture by now: a Charter's
// is held back with its report (a break), the same answer as for a turn
// not yet resolved until then.
func (d *Desk) shown(eng rules.Game, st rules.State, turn int) bool {
	ch, ok := eng.(rules.Charter)
	return !ok || !ch.ShownAt(st, turn).After(d.now())
}

func (d *Desk) serveMap(w http.ResponseWriter, r *http.Request, name string, eng rules.Game, st rules.State, gmAllowed bool) {
	turn, gm, png, ok := parsePic(r.PathValue("pic"))
	if !ok || (gm && !gmAllowed) {
		http.NotFound(w, r)
		return
	}
	if !gmAllowed && !d.shown(eng, st, turn) {
		http.NotFound(w, r)
		return
	}
	pic, err := d.drawOne(name, eng, st, turn)
	if err != nil {
		http.NotFound(w, r) // not resolved yet, or no pictures at all
		return
	}
	data := pic.Public
	if gm {
		data = pic.GM
	}
	if data == nil && !png {
		http.NotFound(w, r) // a game with no GM picture (Nations' chart is all public)
		return
	}
	if png {
		// Boards show the posts' [img] from here: the public picture
		// only, cacheable for a while (a turn's picture never changes).
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Header().Set("Cross-Origin-Resource-Policy", "cross-origin")
		w.Write(pic.PublicPNG)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	// An SVG opened on its own is a document: no script in it may run.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	w.Write(data)
}

// The public page: only what players may see. It is built from the
// report (Report drops the game-specific results), the game's view for
// everyone, the posts already made in the thread and the public map.

type publicPage struct {
	R moderator.GameReport
	// Views are the game's own views for everyone (Drawn); a game
	// without them shows its public view as a table of values (View).
	Views  []viewSection
	Drawn  bool
	View   any
	Scores []score
	Posts  []store.OutboxItem
	Turns  []int
	Now    time.Time
}

type score struct {
	Name   string
	Points int
}

func (d *Desk) publicGame(w http.ResponseWriter, r *http.Request) (*moderator.DeskGame, []store.OutboxItem, bool) {
	g, err := d.m.Desk(r.Context(), r.PathValue("name"))
	if err != nil || !d.public(g.Report) {
		http.NotFound(w, r) // the same answer for a game not public and no such game
		return nil, nil, false
	}
	var posts []store.OutboxItem
	for _, it := range g.Outbox {
		if it.Kind == forum.KindPost && it.State == store.OutboxSent {
			posts = append(posts, it)
		}
	}
	return g, posts, true
}

func (d *Desk) publicPage(w http.ResponseWriter, r *http.Request) {
	g, posts, ok := d.publicGame(w, r)
	if !ok {
		return
	}
	rep, eng, st := &g.Report, g.Engine, g.State
	slices.Reverse(posts) // newest first: what someone following the game looks for
	p := publicPage{R: *rep, Posts: posts, Now: d.now()}
	var err error
	if p.Views, p.Drawn, err = d.views(r.Context(), g, false); err != nil {
		d.fail(w, err)
		return
	}
	if !p.Drawn {
		// A game that lays out no views of its own: its public view and
		// its scores as they are.
		p.View = jsonValue(eng.View(st, rules.Everyone))
		for n, v := range rep.Rules.Scores {
			p.Scores = append(p.Scores, score{n, v})
		}
		sort.Slice(p.Scores, func(i, j int) bool {
			if p.Scores[i].Points != p.Scores[j].Points {
				return p.Scores[i].Points > p.Scores[j].Points
			}
			return p.Scores[i].Name < p.Scores[j].Name
		})
	}
	// The map turn by turn; not a chart, whose latest holds every turn
	// (the game's views draw it).
	if _, chart := eng.(rules.Charter); !chart {
		pics, err := d.drawAll(rep.Name, eng, st)
		if err == nil {
			for i := len(pics) - 1; i >= 0; i-- {
				p.Turns = append(p.Turns, pics[i].Turn)
			}
		}
	}
	d.render(w, r, http.StatusOK, "public", page{Title: rep.Name, Data: p, Refresh: d.refresh(publicRefresh)})
}

func (d *Desk) publicMap(w http.ResponseWriter, r *http.Request) {
	g, _, ok := d.publicGame(w, r)
	if !ok {
		return
	}
	d.serveMap(w, r, g.Report.Name, g.Engine, g.State, false)
}
