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

// GameFile is what a GM writes to create a game (`forumgm new game.yaml`).
type GameFile struct {
	Name    string              `yaml:"name"`
	Game    string              `yaml:"game"`
	Forum   ForumConfig         `yaml:"forum"`
	Players []PlayerSpec        `yaml:"players"`
	Aliases map[string][]string `yaml:"aliases"`
	Options map[string]any      `yaml:"options"`
	Setup   map[string]any      `yaml:"setup"`
	Seed    *int64              `yaml:"seed"`
	Start   *time.Time          `yaml:"start"`
	// PublicURL is where the web desk serves this game's public page
	// (see GameConfig.PublicURL); empty: no pictures in the posts.
	PublicURL string `yaml:"public_url"`
}

// PlayerSpec is a player: a forum user name, or {name, id} with the forum
// user id.
type PlayerSpec struct {
	Name string `yaml:"name"`
	ID   string `yaml:"id"`
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
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	switch {
	case gf.Name == "":
		return nil, fmt.Errorf("%s: missing name (a short unique name for the game)", path)
	case gf.Game == "":
		return nil, fmt.Errorf("%s: missing game (resistance, protest or nations)", path)
	case gf.Forum.URL == "" || gf.Forum.Thread == "" || gf.Forum.Bot == "":
		return nil, fmt.Errorf("%s: forum needs url, thread and bot", path)
	case len(gf.Players) == 0:
		return nil, fmt.Errorf("%s: no players", path)
	}
	if gf.Forum.Profile != "" {
		// Relative to the game file; kept absolute, since 'forumgm run'
		// reads it again from wherever it is started.
		if !filepath.IsAbs(gf.Forum.Profile) {
			gf.Forum.Profile = filepath.Join(filepath.Dir(path), gf.Forum.Profile)
		}
		if abs, err := filepath.Abs(gf.Forum.Profile); err == nil {
			gf.Forum.Profile = abs
		}
	} else if gf.Forum.Engine == "" {
		gf.Forum.Engine = "phpbb"
	}
	prof, err := gf.Forum.LoadProfile()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if gf.Forum.Engine == "" {
		gf.Forum.Engine = prof.Name
		if prof.Base != "" {
			gf.Forum.Engine = prof.Base
		}
	}
	if !validName.MatchString(gf.Name) {
		return nil, fmt.Errorf("%s: name %q: use letters, digits, '.', '_' and '-' (it goes into every marker)", path, gf.Name)
	}
	if strings.Contains(prof.Forms.PM.Page, "{user}") {
		for _, p := range gf.Players {
			if p.ID == "" {
				return nil, fmt.Errorf("%s: player %s: %s sends PMs by user id, so give {name: %s, id: N} (N from the profile link, e.g. memberlist.php?mode=viewprofile&u=N on phpBB)", path, p.Name, prof.Name, p.Name)
			}
		}
	}
	if _, err := gf.Forum.Location(); err != nil {
		return nil, fmt.Errorf("%s: forum: %v", path, err)
	}
	if gf.Forum.PasswordEnv == "" && gf.Forum.PasswordFile == "" {
		return nil, fmt.Errorf("%s: forum needs password_env or password_file (the password itself never goes in this file)", path)
	}
	if err := gf.Forum.Check(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if err := checkPlayers(gf.Players); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if gf.PublicURL != "" {
		u, err := CheckPublicURL(gf.PublicURL)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		gf.PublicURL = u
	}
	return &gf, nil
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
	gc := GameConfig{Aliases: gf.Aliases, Options: gf.Options, Setup: gf.Setup, Start: now.UTC(), PublicURL: gf.PublicURL}
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
