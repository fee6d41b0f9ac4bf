package webdesk

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/probe"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// A new game from the desk: a form built from the game's description
// (rules.Describer: its players and options with the bounds its Setup
// checks), checked as `forumgm new` checks a game file
// (gameconfig.GameFile.Check, then the game's Setup), the board checked
// in place as `forumgm probe` does, and the game created only when the
// checks pass or the GM says to go ahead (`new --force`). The game file is
// written to the desk's game directory and offered for download.

// ProbeFunc checks a game's board as `forumgm probe` does; cmd/forumgm
// gives the desk its own.
type ProbeFunc func(ctx context.Context, fc gameconfig.ForumConfig) (*probe.Report, error)

// formField is one field of the form.
type formField struct {
	Name, Label, Help string
	Kind              string // text, number, select, radio, textarea
	Value             string
	Choices           []choice
	Placeholder       string
	Required          bool
	Error             string
	Inputmode         string
	Autocomplete      string
}

type choice struct {
	Value, Label string
}

type fieldset struct {
	Legend, Intro string
	Fields        []formField
}

type newPage struct {
	Games    []gamePick
	Game     string
	Desc     rules.Description
	Sets     []fieldset
	Errors   []formField // the fields with an error, for the summary at the top
	General  string      // an error that is no one field's
	Report   *probe.Report
	ProbeErr string
	CanProbe bool
	Form     bool // the checklist is shown above the form it can send again
}

type gamePick struct {
	Name, Title, Summary string
	On                   bool
}

// envName is what an environment variable's name looks like; anything
// else in that field is likely the password itself, which never goes in a
// game file.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (d *Desk) newGameForm(w http.ResponseWriter, r *http.Request, s *session) {
	game := r.URL.Query().Get("game")
	p := d.newPageFor(game, url.Values{})
	d.renderNew(w, r, s, http.StatusOK, p)
}

func (d *Desk) renderNew(w http.ResponseWriter, r *http.Request, s *session, status int, p newPage) {
	title := "New game"
	if p.Desc.Title != "" {
		title = "New game: " + p.Desc.Title
	}
	pg := d.gmPage(s, title, "", "new", p)
	pg.Refresh = 0 // a form being filled in
	d.render(w, r, status, "newgame", pg)
}

// describers are the games that describe themselves, by name.
func describers() []gamePick {
	var out []gamePick
	for _, n := range rules.Names() {
		g, _ := rules.Lookup(n)
		if dg, ok := g.(rules.Describer); ok {
			desc := dg.Describe()
			out = append(out, gamePick{Name: n, Title: desc.Title, Summary: desc.Summary})
		}
	}
	return out
}

// newPageFor is the form for game, filled with v (a posted form, or none).
func (d *Desk) newPageFor(game string, v url.Values) newPage {
	p := newPage{Games: describers(), CanProbe: d.cfg.Probe != nil, Form: true}
	var desc rules.Description
	found := false
	for i := range p.Games {
		if p.Games[i].Name == game {
			p.Games[i].On, found = true, true
			g, _ := rules.Lookup(game)
			desc = g.(rules.Describer).Describe()
		}
	}
	if !found {
		return p
	}
	p.Game, p.Desc = game, desc
	val := func(name, def string) string {
		if x, ok := v[name]; ok {
			return x[0]
		}
		return def
	}
	engines := []choice{}
	for _, e := range forum.BuiltinNames() {
		engines = append(engines, choice{e, map[string]string{"phpbb": "phpBB 3.3", "mybb": "MyBB 1.8", "smf": "SMF 2.1", "nodebb": "NodeBB 4"}[e]})
	}
	players := fmt.Sprintf("from %d", desc.MinPlayers)
	if desc.MaxPlayers > 0 {
		players = fmt.Sprintf("%d to %d", desc.MinPlayers, desc.MaxPlayers)
	}
	p.Sets = []fieldset{
		{Legend: "The game", Fields: []formField{
			{Name: "name", Label: "Game name", Kind: "text", Value: val("name", ""), Required: true, Placeholder: "spring-spies",
				Help: "A short name, unique on this desk: letters, digits, '.', '_' and '-'. It goes into every message the bot sends."},
		}},
		{Legend: "The board", Intro: "Where the game is played. The board is checked before the game is created; nothing is posted.", Fields: []formField{
			{Name: "url", Label: "Board address", Kind: "text", Inputmode: "url", Value: val("url", ""), Required: true, Placeholder: "https://forum.example.org/",
				Help: "The board's main page, as in your browser's address bar."},
			{Name: "engine", Label: "Board software", Kind: "select", Value: val("engine", "phpbb"), Choices: engines,
				Help: "Which forum software runs the board. A board with a changed theme needs a profile file (below)."},
			{Name: "profile", Label: "Profile file (optional)", Kind: "text", Value: val("profile", ""), Placeholder: "/home/gm/myboard.profile.yaml",
				Help: "A profile file on the desk's computer, for a theme the built-in profiles cannot read (see docs/profiles.md). It replaces the board software above."},
			{Name: "thread", Label: "Thread number", Kind: "text", Inputmode: "numeric", Value: val("thread", ""), Required: true, Placeholder: "1234",
				Help: "The game thread's topic number: t=1234 in its address on phpBB, tid=1234 on MyBB, topic=1234 on SMF."},
			{Name: "time_zone", Label: "Board time zone (optional)", Kind: "text", Value: val("time_zone", ""), Placeholder: "Europe/London",
				Help: "The bot account's time zone on the board, when it is not the board's default: deadlines are written in it."},
		}},
		{Legend: "The bot account", Intro: "The account the bot posts and sends PMs as. Its password is never typed here: give where the desk reads it.", Fields: []formField{
			{Name: "bot", Label: "Bot's user name", Kind: "text", Value: val("bot", ""), Required: true, Autocomplete: "off"},
			{Name: "password_from", Label: "Its password is in", Kind: "radio", Value: val("password_from", "env"),
				Choices: []choice{{"env", "an environment variable of the desk"}, {"file", "a file only its owner can read"}}},
			{Name: "password_env", Label: "Environment variable", Kind: "text", Value: val("password_env", ""), Placeholder: "FORUMGM_BOT_PASSWORD", Autocomplete: "off",
				Help: "Its name, not the password: set it where forumgm runs (and where this desk runs, for the board check)."},
			{Name: "password_file", Label: "Password file", Kind: "text", Value: val("password_file", ""), Placeholder: "/home/gm/.forumgm/bot.password",
				Help: "A file on the desk's computer holding only the password, readable by its owner alone (chmod 600)."},
		}},
		{Legend: "Players", Fields: []formField{
			{Name: "players", Label: "Players", Kind: "textarea", Value: val("players", ""), Placeholder: "Ann, 52\nBen, 53",
				Help: fmt.Sprintf("%s players, one a line: the forum name, then a comma and the forum user id (the number in the player's profile link; phpBB needs it to send PMs). Or leave it empty and take sign-ups in the thread (below).", players)},
			{Name: "signups_close", Label: "Or: sign-ups close", Kind: "text", Value: val("signups_close", ""), Placeholder: "48h",
				Help: "With no players above, the bot posts a call for players in the thread; they post /in (and /out), their names and forum ids read from their posts. The game starts when it is full, or at this time with enough in: a length from the call (48h, 2d) or a time (2026-03-01 20:00, in the board's zone). Short of the least, sign-ups stay open 24 hours longer once, then the game is cancelled."},
			{Name: "signups_min", Label: "Sign-ups: the least players", Kind: "text", Inputmode: "numeric", Value: val("signups_min", ""), Placeholder: strconv.Itoa(desc.MinPlayers)},
			{Name: "signups_max", Label: "Sign-ups: the most players", Kind: "text", Inputmode: "numeric", Value: val("signups_max", ""), Placeholder: strconv.Itoa(maxSeats(desc))},
		}},
	}
	opts := fieldset{Legend: "Options", Intro: desc.Summary}
	for _, o := range desc.Options {
		switch o.Kind {
		case rules.ChoiceOption:
			f := formField{Name: "opt." + o.Name, Label: o.Label, Help: o.Help, Kind: "select", Value: val("opt."+o.Name, o.Default)}
			for _, c := range o.Choices {
				f.Choices = append(f.Choices, choice{c, c})
			}
			opts.Fields = append(opts.Fields, f)
		case rules.TitlesOption:
			for i, k := range o.Keys {
				opts.Fields = append(opts.Fields, formField{Name: "opt." + o.Name + "." + k, Label: fmt.Sprintf("%s: %s", o.Label, k), Kind: "text",
					Value: val("opt."+o.Name+"."+k, o.KeyDefaults[i]), Help: helpOnce(i, o.Help)})
			}
		default:
			lo, hi := o.Bounds()
			var bounds string
			switch o.Kind {
			case rules.HoursOption, rules.MinutesOption:
				unit := map[rules.OptionKind]string{rules.HoursOption: "hours", rules.MinutesOption: "minutes"}[o.Kind]
				bounds = fmt.Sprintf("In %s, fractions too, up to 366 days (%s %s)", unit, num(hi), unit)
				if o.ZeroOK {
					bounds += "; 0 leaves it out"
				}
			default:
				bounds = fmt.Sprintf("%s to %s", num(lo), num(hi))
			}
			help := strings.TrimSpace(fmt.Sprintf("%s %s; %s if left empty.", o.Help, bounds, o.Default))
			opts.Fields = append(opts.Fields, formField{Name: "opt." + o.Name, Label: o.Label, Help: help, Kind: "text", Inputmode: "decimal",
				Value: val("opt."+o.Name, ""), Placeholder: o.Default})
		}
	}
	p.Sets = append(p.Sets, opts)
	p.Sets = append(p.Sets, fieldset{Legend: "More (optional)", Fields: []formField{
		{Name: "seed", Label: "Seed", Kind: "text", Inputmode: "numeric", Value: val("seed", ""),
			Help: "The number the game's secrets are drawn from; empty: a fresh random one (kept in the game file)."},
		{Name: "public_url", Label: "Desk's public address", Kind: "text", Inputmode: "url", Value: val("public_url", ""), Placeholder: "https://desk.example.org",
			Help: "Where players reach this desk's public page (behind a TLS proxy), for the pictures in the posts; empty: none."},
		{Name: "poll_seconds", Label: "Read the board every (seconds)", Kind: "text", Inputmode: "decimal", Value: val("poll_seconds", ""), Placeholder: "30",
			Help: "How often the bot reads the thread and its PMs; 30 if left empty."},
		{Name: "flood_seconds", Label: "The bot's wait between posts (seconds)", Kind: "text", Inputmode: "decimal", Value: val("flood_seconds", ""),
			Help: "The board's flood limit for the bot account: 0 when the account is exempt (a moderator); empty: learned from the board's refusals."},
		{Name: "requests_per_second", Label: "Requests to the board a second", Kind: "text", Inputmode: "decimal", Value: val("requests_per_second", ""), Placeholder: "1",
			Help: "How fast the bot may ask the board for pages; 1 if left empty."},
		{Name: "deadline_unit_seconds", Label: "Deadlines rounded up to (seconds)", Kind: "text", Inputmode: "decimal", Value: val("deadline_unit_seconds", ""),
			Help: "Deadlines are rounded up to a multiple of this. Empty: the board's time stamps' unit (a minute on phpBB, MyBB and SMF, so no stamp straddles a deadline); 1 where the bot's times show seconds; 0: no rounding."},
	}})
	return p
}

func helpOnce(i int, s string) string {
	if i == 0 {
		return s
	}
	return ""
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', 6, 64) }

// fieldOf is the form field a game file problem is about.
var fieldOf = map[string]string{
	"name": "name", "game": "game", "forum.url": "url", "forum.thread": "thread", "forum.bot": "bot", "players": "players",
	"forum.engine": "engine", "forum.profile": "profile", "forum.time_zone": "time_zone", "forum.password": "password_env", "public_url": "public_url",
	"signups": "signups_close", "forum.poll_seconds": "poll_seconds", "forum.flood_seconds": "flood_seconds", "forum.requests_per_second": "requests_per_second",
	"forum.deadline_unit_seconds": "deadline_unit_seconds",
}

// newGame checks the posted form, checks the board, and creates the game.
func (d *Desk) newGame(w http.ResponseWriter, r *http.Request, s *session) {
	v := r.PostForm
	game := v.Get("game")
	p := d.newPageFor(game, v)
	if p.Game == "" {
		p.General = "Choose the game first."
		d.renderNew(w, r, s, http.StatusUnprocessableEntity, p)
		return
	}
	errs := map[string]string{}
	gf := d.readNewGame(r.Context(), p.Game, p.Desc, v, errs)
	if len(errs) == 0 && d.cfg.Probe != nil {
		rep, err := d.cfg.Probe(r.Context(), gf.Forum)
		switch {
		case err != nil:
			p.ProbeErr = err.Error()
		case rep == nil:
			p.ProbeErr = "the board check gave no report"
		default:
			p.Report = rep
		}
		if (p.ProbeErr != "" || !p.Report.OK) && v.Get("force") != "yes" {
			d.fillErrors(&p, errs)
			d.renderNew(w, r, s, http.StatusOK, p)
			return
		}
	}
	if len(errs) > 0 {
		d.fillErrors(&p, errs)
		d.renderNew(w, r, s, http.StatusUnprocessableEntity, p)
		return
	}
	gc, fc, ps := gf.Configs(d.now())
	row, err := d.m.Create(r.Context(), gf.Name, gf.Game, gc, fc, ps)
	if err != nil {
		p.General = "The game could not be created: " + err.Error()
		d.fillErrors(&p, errs)
		d.renderNew(w, r, s, http.StatusUnprocessableEntity, p)
		return
	}
	written := ""
	if d.cfg.GameDir != "" {
		written, err = d.writeGameFile(row.Name, row.Kind, gc, fc, ps)
		if err != nil {
			d.cfg.Log.Warn("desk: writing the game file", "game", row.Name, "err", err)
			written = ""
		}
	}
	d.cfg.Log.Info("desk: game created", "game", row.Name, "kind", row.Kind, "forced", v.Get("force") == "yes" && p.Report != nil && !p.Report.OK)
	d.sess.setCreated(s, row.Name, Created{Report: p.Report, ProbeErr: p.ProbeErr, File: written, Forced: v.Get("force") == "yes" && (p.ProbeErr != "" || (p.Report != nil && !p.Report.OK))})
	http.Redirect(w, r, "/new/created/"+url.PathEscape(row.Name), http.StatusSeeOther)
}

// readNewGame reads the form into a game file, putting each problem in
// errs by its field, with the checks `forumgm new` makes.
func (d *Desk) readNewGame(ctx context.Context, game string, desc rules.Description, v url.Values, errs map[string]string) *gameconfig.GameFile {
	set := func(field, msg string) {
		if _, dup := errs[field]; !dup {
			errs[field] = msg
		}
	}
	tr := func(k string) string { return strings.TrimSpace(v.Get(k)) }
	gf := &gameconfig.GameFile{Name: tr("name"), Game: game, PublicURL: tr("public_url")}
	fc := gameconfig.ForumConfig{URL: tr("url"), Thread: tr("thread"), Bot: tr("bot"), TimeZone: tr("time_zone")}
	if prof := tr("profile"); prof != "" {
		if !filepath.IsAbs(prof) {
			set("profile", "give the file's full path on the desk's computer (it starts with /)")
		}
		fc.Profile = prof
	} else {
		fc.Engine = tr("engine")
	}
	if u, err := url.Parse(fc.URL); fc.URL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		set("url", "give the board's full address, starting with https:// or http://")
	}
	if fc.Thread != "" {
		if n, err := strconv.Atoi(fc.Thread); err != nil || n < 1 {
			set("thread", "the thread number is a whole number, from the thread's address")
		}
	}
	switch v.Get("password_from") {
	case "file":
		fc.PasswordFile = tr("password_file")
		if fc.PasswordFile == "" {
			set("password_file", "give the file that holds the bot's password")
		} else if !filepath.IsAbs(fc.PasswordFile) {
			set("password_file", "give the file's full path on the desk's computer (it starts with /)")
		}
	default:
		fc.PasswordEnv = tr("password_env")
		switch {
		case fc.PasswordEnv == "":
			set("password_env", "give the name of the environment variable that holds the bot's password")
		case !envName.MatchString(fc.PasswordEnv):
			set("password_env", "give the variable's name (letters, digits and _), not the password: the password never goes in the game file")
		}
	}
	for _, n := range []struct {
		field string
		into  func(float64)
	}{
		{"poll_seconds", func(f float64) { fc.PollSeconds = f }},
		{"flood_seconds", func(f float64) { fc.FloodSeconds = &f }},
		{"requests_per_second", func(f float64) { fc.RequestsPerSecond = f }},
		{"deadline_unit_seconds", func(f float64) { fc.DeadlineUnitSeconds = &f }},
	} {
		if raw := tr(n.field); raw != "" {
			f, err := strconv.ParseFloat(raw, 64)
			if err != nil {
				set(n.field, "a number, like 30 or 0.5")
				continue
			}
			n.into(f)
		}
	}
	gf.Forum = fc
	// Players: "Name" or "Name, id", one a line.
	for i, line := range strings.Split(v.Get("players"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, id, _ := strings.Cut(line, ",")
		name, id = strings.TrimSpace(name), strings.TrimSpace(id)
		if name == "" {
			set("players", fmt.Sprintf("line %d: a player's forum name comes first", i+1))
			continue
		}
		gf.Players = append(gf.Players, gameconfig.PlayerSpec{Name: name, ID: id})
	}
	if close := tr("signups_close"); close != "" && len(gf.Players) == 0 {
		su := &gameconfig.Signups{Min: desc.MinPlayers, Max: maxSeats(desc), Close: close}
		for _, n := range []struct {
			field string
			into  *int
		}{{"signups_min", &su.Min}, {"signups_max", &su.Max}} {
			if raw := tr(n.field); raw != "" {
				x, err := strconv.Atoi(raw)
				if err != nil {
					set(n.field, "a whole number of players")
					continue
				}
				*n.into = x
			}
		}
		gf.Signups = su
	}
	if n := len(gf.Players); n > 0 && (n < desc.MinPlayers || (desc.MaxPlayers > 0 && n > desc.MaxPlayers)) {
		if desc.MaxPlayers > 0 {
			set("players", fmt.Sprintf("%s needs %d to %d players, not %d", desc.Title, desc.MinPlayers, desc.MaxPlayers, n))
		} else {
			set("players", fmt.Sprintf("%s needs at least %d players, not %d", desc.Title, desc.MinPlayers, n))
		}
	}
	// Options, read with the game's own checks.
	gf.Options = map[string]any{}
	for _, o := range desc.Options {
		if o.Kind == rules.TitlesOption {
			titles := map[string]string{}
			for _, k := range o.Keys {
				titles[k] = v.Get("opt." + o.Name + "." + k)
			}
			if t := o.ReadTitles(titles); t != nil {
				gf.Options[o.Name] = t
			}
			continue
		}
		x, err := o.Read(v.Get("opt." + o.Name))
		if err != nil {
			set("opt."+o.Name, err.Error())
			continue
		}
		if x != nil && (o.Kind != rules.ChoiceOption || x != o.Default) {
			gf.Options[o.Name] = x
		}
	}
	if len(gf.Options) == 0 {
		gf.Options = nil
	}
	if sd := tr("seed"); sd != "" {
		n, err := strconv.ParseInt(sd, 10, 64)
		if err != nil || n < 0 {
			set("seed", "the seed is a whole number (0 or more)")
		}
		gf.Seed = &n
	}
	// The game file's own checks, as `forumgm new` makes them.
	for _, e := range gf.Check("/") {
		field, ok := fieldOf[e.Field]
		if e.Field == "forum.password" && fc.PasswordFile != "" {
			field = "password_file"
		}
		if !ok {
			field = ""
		}
		set(field, e.Msg)
	}
	if len(errs) > 0 {
		return gf
	}
	// The bot's password, where the GM says it is.
	if _, err := gf.Forum.Credentials(); err != nil {
		if fc.PasswordFile != "" {
			set("password_file", err.Error())
		} else {
			set("password_env", err.Error()+" where the desk runs")
		}
	}
	// A game of that name, or its game file, already there.
	if err := d.m.DB.View(ctx, func(tx *store.Tx) error {
		g, err := tx.Game(gf.Name)
		if err == nil && g != nil {
			set("name", fmt.Sprintf("there is already a game called %s", gf.Name))
		}
		return nil
	}); err != nil {
		set("", err.Error())
	}
	if d.cfg.GameDir != "" {
		if _, err := os.Stat(filepath.Join(d.cfg.GameDir, gf.Name+".game.yaml")); err == nil {
			set("name", fmt.Sprintf("the game directory already has a game file %s.game.yaml", gf.Name))
		}
	}
	// The game's own setup: what the options and players make together
	// (with sign-ups, gf.Check set it up with the least and the most).
	g, _ := rules.Lookup(game)
	gc, _, _ := gf.Configs(d.now())
	if gf.Signups != nil {
		return gf
	}
	if _, _, err := g.Setup(gc.Rules()); err != nil {
		msg := err.Error()
		field := ""
		for _, o := range desc.Options {
			if strings.Contains(msg, "option "+o.Name) {
				field = "opt." + o.Name
			}
		}
		if field == "" && strings.Contains(msg, "player") {
			field = "players"
		}
		set(field, msg)
	}
	return gf
}

// formWords says a game file's and an option's keys, in the messages
// the checks give, as the form names them: beside its field an option's
// message needs no name, and the form has no password_env key.
var formWords = strings.NewReplacer(
	"password_env or password_file", "where the bot's password is",
	"password_env / password_file", "where the bot's password is",
	"public_url", "the public address",
	"forum needs url, thread and bot", "the board address, thread and bot are needed",
)

var optionName = regexp.MustCompile(`^option [a-z_]+:? `)

// fillErrors puts each error beside its field, and the rest at the top.
func (d *Desk) fillErrors(p *newPage, errs map[string]string) {
	for si := range p.Sets {
		for fi := range p.Sets[si].Fields {
			f := &p.Sets[si].Fields[fi]
			if msg, ok := errs[f.Name]; ok {
				if strings.HasPrefix(f.Name, "opt.") {
					msg = optionName.ReplaceAllString(msg, "")
				}
				f.Error = formWords.Replace(msg)
				p.Errors = append(p.Errors, *f)
				delete(errs, f.Name)
			}
		}
	}
	var rest []string
	for k, msg := range errs {
		if k != "" {
			msg = k + ": " + msg
		}
		rest = append(rest, formWords.Replace(msg))
	}
	if len(rest) > 0 {
		p.General = strings.TrimSpace(p.General + " " + strings.Join(rest, "; "))
	}
}

// writeGameFile writes the game's file to the game directory, for the GM
// to keep (and to create the game again with `forumgm new`).
func (d *Desk) writeGameFile(name, kind string, gc gameconfig.GameConfig, fc gameconfig.ForumConfig, ps []store.Player) (string, error) {
	data, err := gameconfig.FileOf(name, kind, gc, fc, ps).YAML(fmt.Sprintf("%s: created on the forumgm desk on %s.\nThe bot's password is not in this file, only where it is read from.", name, stamp(d.now())))
	if err != nil {
		return "", err
	}
	path := filepath.Join(d.cfg.GameDir, name+".game.yaml")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}

// Created is what the page after a creation shows.
type Created struct {
	Report   *probe.Report
	ProbeErr string
	File     string
	Forced   bool
	Form     bool // never: the page after has no form
}

type createdPage struct {
	Name string
	Created
	Known bool // this session created it (else the game is only linked)
}

func (d *Desk) createdGame(w http.ResponseWriter, r *http.Request, s *session) {
	name := r.PathValue("name")
	if _, err := d.m.Report(r.Context(), name); err != nil {
		d.fail(w, err)
		return
	}
	c, ok := d.sess.getCreated(s, name)
	pg := d.gmPage(s, name+": created", name, "new", createdPage{Name: name, Created: c, Known: ok})
	pg.Refresh = 0
	d.render(w, r, http.StatusOK, "created", pg)
}

// gameFile offers a game's file for download: made from what the game
// was created with (gameconfig.FileOf).
func (d *Desk) gameFile(w http.ResponseWriter, r *http.Request, _ *session) {
	g, ok := d.load(w, r)
	if !ok {
		return
	}
	data, err := gameconfig.FileOf(g.Report.Name, g.Report.Game, g.Config, g.Forum, g.Players).YAML(
		fmt.Sprintf("%s: the game file of a %s game, from the forumgm desk.\nThe bot's password is not in this file, only where it is read from.", g.Report.Name, g.Report.Game))
	if err != nil {
		d.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/yaml; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+g.Report.Name+`.game.yaml"`)
	w.Write(data)
}

// maxSeats is the most players the game seats, for sign-ups (a game with
// no upper bound: gameconfig.MaxSeats).
func maxSeats(desc rules.Description) int {
	if desc.MaxPlayers > 0 {
		return desc.MaxPlayers
	}
	return gameconfig.MaxSeats
}
