package gameconfig

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

var validName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,60}$`)

// forumKey finds the key a forum number check is about ("forum poll_seconds: …").
var forumKey = regexp.MustCompile(`^forum ([a-z_]+):`)

// GameFile is what a GM writes to create a game (`forumgm new game.yaml`).
type GameFile struct {
	Name    string              `yaml:"name"`
	Game    string              `yaml:"game"`
	Forum   ForumConfig         `yaml:"forum"`
	Players []PlayerSpec        `yaml:"players"`
	Aliases map[string][]string `yaml:"aliases,omitempty"`
	Options map[string]any      `yaml:"options,omitempty"`
	Setup   map[string]any      `yaml:"setup,omitempty"`
	Seed    *int64              `yaml:"seed,omitempty"`
	Start   *time.Time          `yaml:"start,omitempty"`
	// PublicURL is where the web desk serves this game's public page
	// (see GameConfig.PublicURL); empty: no pictures in the posts.
	PublicURL string `yaml:"public_url,omitempty"`
	// Deadlines: a schedule, a grace period, a replacement's extra time
	// (docs/schedules.md, docs/gm-controls.md).
	Deadlines *Deadlines `yaml:"deadlines,omitempty"`
	// Counts and Reminders: between deadlines (docs/between-deadlines.md).
	Counts    *Counts    `yaml:"counts,omitempty"`
	Reminders *Reminders `yaml:"reminders,omitempty"`
	// Signups, instead of Players: the bot calls for players in the
	// thread and starts the game with those who sign up (docs/signups.md).
	Signups *Signups `yaml:"signups,omitempty"`
	// Style: the game's house style for its thread posts (docs/gm-words.md).
	Style *Style `yaml:"style,omitempty"`
}

// PlayerSpec is a player: a forum user name, or {name, id} with the forum
// user id.
type PlayerSpec struct {
	Name string `yaml:"name"`
	ID   string `yaml:"id"`
}

// MarshalYAML writes a player as a game file does: "Alice", or
// {name: Alice, id: "52"} with the forum user id.
func (p PlayerSpec) MarshalYAML() (any, error) {
	if p.ID == "" {
		return p.Name, nil
	}
	return map[string]string{"name": p.Name, "id": p.ID}, nil
}

// UnmarshalYAML accepts both "Alice" and {name: Alice, id: 52}.
func (p *PlayerSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		p.Name = n.Value
		return nil
	}
	type plain PlayerSpec
	return n.Decode((*plain)(p))
}

// LoadGameFile reads and checks a game file.
func LoadGameFile(path string) (*GameFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var gf GameFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&gf); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if errs := gf.Check(filepath.Dir(path)); len(errs) > 0 {
		return nil, fmt.Errorf("%s: %w", path, errs[0])
	}
	return &gf, nil
}

// FieldError is one thing wrong with a game file, by the key it is about
// ("name", "forum.url", "players", "forum.password_env", ...), so that a
// form can show it beside its field.
type FieldError struct {
	Field string
	Msg   string
	Err   error // what it came from, when it came from an error (kept for errors.Is)
}

func (e FieldError) Error() string { return e.Msg }
func (e FieldError) Unwrap() error { return e.Err }

// Check checks a game file as `forumgm new` does and completes it: a
// profile file named relative to dir is made absolute, a missing engine is
// phpbb (or the profile's). It returns every problem it finds, the first
// as LoadGameFile reports it; a check that depends on an earlier failed
// one is not made.
func (gf *GameFile) Check(dir string) []FieldError {
	var errs []FieldError
	bad := func(field, f string, a ...any) {
		errs = append(errs, FieldError{Field: field, Msg: fmt.Sprintf(f, a...)})
	}
	badErr := func(field string, err error) {
		errs = append(errs, FieldError{Field: field, Msg: err.Error(), Err: err})
	}
	if gf.Name == "" {
		bad("name", "missing name (a short unique name for the game)")
	}
	if gf.Game == "" {
		bad("game", "missing game (resistance, protest or nations)")
	}
	for _, f := range []struct{ key, v string }{{"forum.url", gf.Forum.URL}, {"forum.thread", gf.Forum.Thread}, {"forum.bot", gf.Forum.Bot}} {
		if f.v == "" {
			bad(f.key, "forum needs url, thread and bot")
		}
	}
	switch {
	case len(gf.Players) == 0 && gf.Signups == nil:
		bad("players", "no players (give players:, or signups: to take sign-ups in the thread)")
	case len(gf.Players) > 0 && gf.Signups != nil:
		bad("signups", "players: and signups: both given: the players are either listed or signed up in the thread")
	case gf.Signups != nil && (len(gf.Aliases) > 0 || gf.Start != nil):
		bad("signups", "signups: the game starts when sign-ups close, with players not known yet, so aliases: and start: cannot be given")
	}
	if len(errs) > 0 {
		return errs
	}
	if gf.Forum.Profile != "" {
		// Relative to the game file; kept absolute, since 'forumgm run'
		// reads it again from wherever it is started.
		if !filepath.IsAbs(gf.Forum.Profile) {
			gf.Forum.Profile = filepath.Join(dir, gf.Forum.Profile)
		}
		if abs, err := filepath.Abs(gf.Forum.Profile); err == nil {
			gf.Forum.Profile = abs
		}
	} else if gf.Forum.Engine == "" {
		gf.Forum.Engine = "phpbb"
	}
	site, err := gf.Forum.Site()
	if err != nil && gf.Forum.TimeZone != "" {
		// A bad time zone is the zone's field alone: the rest is checked
		// on the board without it.
		nozone := gf.Forum
		nozone.TimeZone = ""
		if s, zerr := nozone.Site(); zerr == nil {
			badErr("forum.time_zone", err)
			site, err = s, nil
		}
	}
	if err != nil {
		field := "forum.engine"
		if gf.Forum.Profile != "" {
			field = "forum.profile"
		}
		badErr(field, err)
		return errs
	}
	prof := site.Profile
	if gf.Forum.Engine == "" {
		gf.Forum.Engine = prof.Name
		if prof.Base != "" {
			gf.Forum.Engine = prof.Base
		}
	}
	if !validName.MatchString(gf.Name) {
		bad("name", "name %q: use letters, digits, '.', '_' and '-' (it goes into every marker)", gf.Name)
	}
	if strings.Contains(prof.Forms.PM.Page, "{user}") && gf.Signups == nil && !prof.NamesAreIDs() {
		for _, p := range gf.Players {
			if p.ID == "" {
				bad("players", "player %s: %s sends PMs by user id, so give {name: %s, id: N} (N from the profile link, e.g. memberlist.php?mode=viewprofile&u=N on phpBB)", p.Name, prof.Name, p.Name)
				break
			}
		}
	}
	if gf.Forum.PasswordEnv == "" && gf.Forum.PasswordFile == "" {
		bad("forum.password", "forum needs password_env or password_file (the password itself never goes in this file)")
	}
	if err := gf.Forum.Check(); err != nil {
		field := "forum"
		if m := forumKey.FindStringSubmatch(err.Error()); m != nil {
			field = "forum." + m[1]
		}
		badErr(field, err)
	}
	if err := checkPlayers(gf.Players); err != nil {
		badErr("players", err)
	}
	// The blocks checked against the game's rules: one look-up, one error
	// for an unknown game.
	if gf.Deadlines != nil || gf.Signups != nil {
		if eng, err := rules.Lookup(gf.Game); err != nil {
			badErr("game", err)
		} else {
			if err := gf.Deadlines.Check(eng, site.Zone); err != nil {
				badErr("deadlines", err)
			}
			if err := gf.Signups.Check(eng, gf.Options, gf.Setup, site.Zone, time.Now()); err != nil {
				badErr("signups", err)
			}
		}
	}
	if err := gf.Counts.Check(); err != nil {
		badErr("counts", err)
	}
	if err := gf.Reminders.Check(); err != nil {
		badErr("reminders", err)
	}
	if err := gf.Style.resolve(dir); err != nil {
		badErr("style", err)
	} else if err := gf.Style.Check(gf.Forum.Engine); err != nil {
		badErr("style", err)
	}
	if gf.PublicURL != "" {
		u, err := CheckPublicURL(gf.PublicURL)
		if err != nil {
			badErr("public_url", err)
		} else {
			gf.PublicURL = u
		}
	}
	return errs
}

// YAML is the game file as a GM would write it, with a line at the top
// saying where it came from; LoadGameFile reads it back the same.
func (gf *GameFile) YAML(comment string) ([]byte, error) {
	var b bytes.Buffer
	for _, l := range strings.Split(strings.TrimSpace(comment), "\n") {
		if l != "" {
			b.WriteString("# " + l + "\n")
		}
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(gf); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// FileOf is the game file of a game as it was created: its name and kind,
// board, players (with their forum ids), options, setup and the seed its
// secrets were drawn from, so that `forumgm new` of it sets the same game
// up again. The password is never in it: only where it is read from.
func FileOf(name, kind string, gc GameConfig, fc ForumConfig, players []store.Player) *GameFile {
	seed := gc.Seed
	gf := &GameFile{Name: name, Game: kind, Forum: fc, Aliases: gc.Aliases, Options: gc.Options, Setup: gc.Setup, Seed: &seed, PublicURL: gc.PublicURL, Deadlines: gc.Deadlines}
	for _, p := range players {
		gf.Players = append(gf.Players, PlayerSpec{Name: p.ForumName, ID: p.ForumUserID})
	}
	gf.Counts, gf.Reminders, gf.Style = gc.Counts, gc.Reminders, gc.Style
	if len(gf.Players) == 0 {
		gf.Signups = gc.Signups // still taking sign-ups: the file takes them again
	}
	return gf
}

// checkPlayers refuses two players with one forum user id — the second's
// role PM would go to the first's account — and two names that commands
// could not tell apart (compared as rules.NormName does: case, spaces,
// '_' and '-' ignored).
func checkPlayers(ps []PlayerSpec) error {
	names := map[string]string{}
	ids := map[string]string{}
	for _, p := range ps {
		k := rules.NormName(p.Name)
		if k == "" {
			return fmt.Errorf("player name %q has no letters or digits", p.Name)
		}
		if other, dup := names[k]; dup {
			return fmt.Errorf("players %q and %q are the same name to the bot (case, spaces, '_' and '-' are ignored)", other, p.Name)
		}
		names[k] = p.Name
		if p.ID == "" {
			continue
		}
		id := strings.TrimSpace(p.ID)
		if !isUserID(id) {
			return fmt.Errorf("player %s: id %q is not a forum user id (a whole number from the profile link)", p.Name, p.ID)
		}
		id = strings.TrimLeft(id, "0")
		if other, dup := ids[id]; dup {
			return fmt.Errorf("players %s and %s both have forum user id %s: each player's PMs would go to one account", other, p.Name, id)
		}
		ids[id] = p.Name
	}
	return nil
}

// isUserID: phpBB and MyBB user ids are positive whole numbers.
func isUserID(s string) bool {
	if s == "" || strings.Trim(s, "0") == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Configs turns a game file into what Create takes. A game without a seed
// gets a fresh random one, recorded with it.
func (gf *GameFile) Configs(now time.Time) (GameConfig, ForumConfig, []store.Player) {
	gc := GameConfig{Aliases: gf.Aliases, Options: gf.Options, Setup: gf.Setup, Start: now.UTC(), PublicURL: gf.PublicURL, Deadlines: gf.Deadlines,
		Counts: gf.Counts, Reminders: gf.Reminders, Signups: gf.Signups, Style: gf.Style}
	if gf.Start != nil {
		gc.Start = gf.Start.UTC()
	}
	if gf.Seed != nil {
		gc.Seed = *gf.Seed
	} else {
		var b [8]byte
		rand.Read(b[:])
		gc.Seed = int64(binary.LittleEndian.Uint64(b[:]) >> 1)
	}
	fc := gf.Forum
	var ps []store.Player
	for _, p := range gf.Players {
		gc.Players = append(gc.Players, p.Name)
		ps = append(ps, store.Player{Slot: p.Name, ForumName: p.Name, ForumUserID: p.ID, Aliases: gf.Aliases[p.Name]})
	}
	return gc, fc, ps
}
