// Package scenario reads scenario files: a game's players, options, fixed
// secrets and a script of posts, PMs and deadlines, as `forumgm replay` plays
// them. The format is YAML (JSON is valid YAML). Every problem is reported
// with the line it is on.
package scenario

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Scenario is one parsed file.
type Scenario struct {
	Game    string              `yaml:"game"`
	Seed    *int64              `yaml:"seed"`
	Players []string            `yaml:"players"`
	Aliases map[string][]string `yaml:"aliases"`
	Options map[string]any      `yaml:"options"`
	Setup   map[string]any      `yaml:"setup"`
	// Start is when the game opens (default DefaultStart); steps follow one
	// second apart.
	Start  *time.Time `yaml:"start"`
	Script []Step     `yaml:"script"`

	// File is the file's name and Lines where each top-level key is, so
	// problems found later (an unknown game or option) can name their line.
	File  string         `yaml:"-"`
	Lines map[string]int `yaml:"-"`
}

// Errorf is an error about key (e.g. "options") of this scenario, naming its
// file and line.
func (s *Scenario) Errorf(key, f string, a ...any) error {
	return &Error{File: s.File, Line: s.Lines[key], Msg: fmt.Sprintf(f, a...)}
}

// Step is one line of the script: exactly one of Post, PM, Deadline.
type Step struct {
	Post     string `yaml:"post"`
	PM       string `yaml:"pm"`
	Text     string `yaml:"text"`
	Deadline bool   `yaml:"deadline"`
	Line     int    `yaml:"-"` // where the step starts in the file
}

// DefaultStart is when a replayed game opens unless the file says otherwise.
var DefaultStart = time.Date(2026, 1, 5, 18, 0, 0, 0, time.UTC)

// Error is a problem in a scenario file, with its line (0 when unknown).
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Load reads and checks a scenario file.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

var topKeys = map[string]bool{"game": true, "seed": true, "players": true, "aliases": true, "options": true, "setup": true, "start": true, "script": true}
var stepKeys = map[string]bool{"post": true, "pm": true, "text": true, "deadline": true}

// Parse reads a scenario from data; name is used in error messages.
func Parse(name string, data []byte) (*Scenario, error) {
	fail := func(line int, f string, a ...any) error {
		return &Error{File: name, Line: line, Msg: fmt.Sprintf(f, a...)}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, syntaxError(name, data, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fail(1, "a scenario must be a mapping with keys game, players, script, …")
	}
	root := doc.Content[0]
	keyLine := map[string]int{}
	for i := 0; i < len(root.Content); i += 2 {
		k := root.Content[i]
		if !topKeys[k.Value] {
			return nil, fail(k.Line, "unknown key %q (known: game, seed, players, aliases, options, setup, start, script)", k.Value)
		}
		keyLine[k.Value] = k.Line
	}
	var sc Scenario
	if err := root.Decode(&sc); err != nil {
		return nil, yamlError(name, err)
	}
	sc.File, sc.Lines = name, keyLine
	if sc.Game == "" {
		return nil, fail(1, "missing key \"game\" (resistance, protest or nations)")
	}
	if len(sc.Players) == 0 {
		return nil, fail(keyLine["players"], "\"players\" must list at least one forum user name")
	}
	seen := map[string]bool{}
	for _, p := range sc.Players {
		if strings.TrimSpace(p) == "" {
			return nil, fail(keyLine["players"], "a player name is empty")
		}
		if seen[p] {
			return nil, fail(keyLine["players"], "player %q is listed twice", p)
		}
		seen[p] = true
	}
	for p := range sc.Aliases {
		if !seen[p] {
			return nil, fail(keyLine["aliases"], "alias for %q, who is not in players", p)
		}
	}
	// Steps: find each one's node for its line and unknown keys.
	var script *yaml.Node
	for i := 0; i < len(root.Content); i += 2 {
		if root.Content[i].Value == "script" {
			script = root.Content[i+1]
		}
	}
	if script == nil || script.Kind != yaml.SequenceNode {
		return nil, fail(keyLine["script"], "\"script\" must be a list of steps (post, pm or deadline)")
	}
	// Each step is checked against its own node: yaml.v3 drops null list
	// entries when decoding, so sc.Script may not line up with the nodes.
	for i, n := range script.Content {
		if n.Kind != yaml.MappingNode {
			return nil, fail(n.Line, "step %d must be a mapping like {post: NAME, text: …}", i+1)
		}
	}
	if len(sc.Script) != len(script.Content) {
		return nil, fail(script.Line, "\"script\" has an empty step")
	}
	for i, n := range script.Content {
		st := &sc.Script[i]
		st.Line = n.Line
		for j := 0; j < len(n.Content); j += 2 {
			if k := n.Content[j]; !stepKeys[k.Value] {
				return nil, fail(k.Line, "step %d: unknown key %q (known: post, pm, text, deadline)", i+1, k.Value)
			}
		}
		kinds := 0
		if st.Post != "" {
			kinds++
		}
		if st.PM != "" {
			kinds++
		}
		if st.Deadline {
			kinds++
		}
		switch {
		case kinds != 1:
			return nil, fail(n.Line, "step %d must have exactly one of post, pm or deadline: true", i+1)
		case st.Deadline && st.Text != "":
			return nil, fail(n.Line, "step %d: a deadline step takes no text", i+1)
		case !st.Deadline && strings.TrimSpace(st.Text) == "":
			return nil, fail(n.Line, "step %d: a post or pm needs a text", i+1)
		}
	}
	return &sc, nil
}

// syntaxError reports a YAML syntax error at the line where the file stops
// being valid. yaml.v3 names the line where the enclosing block began (an
// unclosed "[" on line 3 is reported at 2), so the first prefix of the file
// that fails with the same message is the line to show.
func syntaxError(name string, data []byte, err error) error {
	e := yamlError(name, err).(*Error)
	lines := strings.SplitAfter(string(data), "\n")
	for k := 1; k <= len(lines) && k <= 5000; k++ {
		var n yaml.Node
		perr := yaml.Unmarshal([]byte(strings.Join(lines[:k], "")), &n)
		if perr != nil && yamlError(name, perr).(*Error).Msg == e.Msg {
			e.Line = k
			break
		}
	}
	return e
}

// yamlError turns a yaml.v3 error (which has "line N:" inside) into an Error.
func yamlError(name string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if i := strings.Index(msg, "line "); i >= 0 {
		fmt.Sscanf(msg[i:], "line %d", &line)
		if j := strings.Index(msg[i:], ": "); j >= 0 {
			msg = strings.TrimSpace(msg[:i] + msg[i+j+2:])
		}
	}
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
	return &Error{File: name, Line: line, Msg: strings.TrimSpace(msg)}
}

// StartTime is when the game opens.
func (s *Scenario) StartTime() time.Time {
	if s.Start != nil {
		return s.Start.UTC()
	}
	return DefaultStart
}
