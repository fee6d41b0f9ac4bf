package gameconfig

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/forumgm/forumgm/forum"
)

// Style is a game's house style (docs/gm-words.md): a header and a footer
// around every thread post forumgm writes for the game, and the colour and
// font of its text. The text the rules produce stays as it is inside.
//
// The header and footer are the GM's BBCode with placeholders, and a
// placeholder can only name something every reader of the thread may see
// (StyleView): a style cannot be written that puts a role, a hand or a
// private result in a thread post, because the renderer is never given
// one, and a style that names one is refused when the game file is read.
type Style struct {
	// File is a shared style file (YAML with the same keys), relative to
	// the game file; the game file's own keys override it. Read when the
	// game file is read: the game keeps the style, not the file's name.
	File   string `yaml:"file,omitempty" json:"-"`
	Header string `yaml:"header,omitempty" json:"header,omitempty"`
	Footer string `yaml:"footer,omitempty" json:"footer,omitempty"`
	// Color is a BBCode colour ([color=…]): a name or #rgb / #rrggbb.
	Color string `yaml:"color,omitempty" json:"color,omitempty"`
	// Font is a BBCode font ([font=…]): MyBB and SMF have it, phpBB not.
	Font string `yaml:"font,omitempty" json:"font,omitempty"`
}

// StyleView is all a style's placeholders can reach: what the thread
// shows anyway. It is built from the game's public status only.
type StyleView struct {
	Game    string   // {game}: the game's name
	Phase   string   // {phase}: the current phase's id
	Title   string   // {title}: its title
	Players []string // {players}: the players' names, as the roster shows them
}

// StylePlaceholders are the names a header or footer may use.
var StylePlaceholders = []string{"game", "phase", "title", "players"}

var (
	placeholderRe = regexp.MustCompile(`\{([^{}\s]{1,60})\}`)
	colorRe       = regexp.MustCompile(`^(?:#[0-9A-Fa-f]{3}|#[0-9A-Fa-f]{6}|[A-Za-z]{3,20})$`)
	fontRe        = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 -]{0,39}$`)
)

// maxStyleBytes bounds a header or a footer: they go into every post, and
// every part of a long one.
const maxStyleBytes = 2000

// Empty says the style changes nothing.
func (st *Style) Empty() bool {
	return st == nil || st.Header == "" && st.Footer == "" && st.Color == "" && st.Font == ""
}

// resolve reads the shared style file, if any (relative to dir), under the
// game file's own keys.
func (st *Style) resolve(dir string) error {
	if st == nil || st.File == "" {
		return nil
	}
	path := st.File
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("style file: %w", err)
	}
	var shared Style
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&shared); err != nil {
		return fmt.Errorf("style file %s: %w", path, err)
	}
	if shared.File != "" {
		return fmt.Errorf("style file %s names another style file: one level only", path)
	}
	for _, f := range []struct{ own, from *string }{{&st.Header, &shared.Header}, {&st.Footer, &shared.Footer}, {&st.Color, &shared.Color}, {&st.Font, &shared.Font}} {
		if *f.own == "" {
			*f.own = *f.from
		}
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	st.File = path
	return nil
}

// Check says what is wrong with a style for a board of engine (the
// profile's name or base: phpbb, mybb, smf).
func (st *Style) Check(engine string) error {
	if st == nil {
		return nil
	}
	for _, f := range []struct{ key, v string }{{"header", st.Header}, {"footer", st.Footer}} {
		if len(f.v) > maxStyleBytes {
			return fmt.Errorf("style %s is %d bytes, more than %d (it goes into every post)", f.key, len(f.v), maxStyleBytes)
		}
		if strings.Contains(strings.ToLower(f.v), strings.ToLower(forum.MarkerPrefix)) {
			return fmt.Errorf("style %s holds %q, the start of the bot's marker line, which would confuse exactly-once sending", f.key, forum.MarkerPrefix)
		}
		for _, m := range placeholderRe.FindAllStringSubmatch(f.v, -1) {
			if !publicPlaceholder(m[1]) {
				return fmt.Errorf("style %s names {%s}, which is not public: a style sees only what the thread shows, {%s}", f.key, m[1], strings.Join(StylePlaceholders, "}, {"))
			}
		}
	}
	if st.Color != "" && !colorRe.MatchString(st.Color) {
		return fmt.Errorf("style color %q: give a colour name (red, navy) or #rgb / #rrggbb, as [color=…] takes", st.Color)
	}
	if st.Font != "" {
		if !fontRe.MatchString(st.Font) {
			return fmt.Errorf("style font %q: give a font name of letters, digits, spaces and '-' (Verdana, Times New Roman)", st.Font)
		}
		if engine == "phpbb" {
			return fmt.Errorf("style font %q: phpBB's BBCode has no [font] tag (set color only, or a board with [font]: MyBB, SMF)", st.Font)
		}
	}
	return nil
}

func publicPlaceholder(name string) bool {
	for _, p := range StylePlaceholders {
		if name == p {
			return true
		}
	}
	return false
}

// Overhead is how many bytes (as forum.MessageSize counts) the style adds
// around a post's text, for the view v: a long message is cut into parts
// that each fit with it.
func (st *Style) Overhead(v StyleView) int {
	if st.Empty() {
		return 0
	}
	return forum.MessageSize(st.Apply("", v))
}

// Apply puts a post's text in the style: the header, the text in the
// style's colour and font, the footer. Placeholders are filled from v
// only. A nil or empty style returns text as it is.
func (st *Style) Apply(text string, v StyleView) string {
	if st.Empty() {
		return text
	}
	body := text
	if st.Font != "" {
		body = "[font=" + st.Font + "]" + body + "[/font]"
	}
	if st.Color != "" {
		body = "[color=" + st.Color + "]" + body + "[/color]"
	}
	var b strings.Builder
	if h := fill(st.Header, v); h != "" {
		b.WriteString(h + "\n\n")
	}
	b.WriteString(body)
	if f := fill(st.Footer, v); f != "" {
		b.WriteString("\n\n" + f)
	}
	return b.String()
}

// fill replaces the placeholders of a checked header or footer. A name
// that is not public (a style stored before a check) is left as written,
// never looked up.
func fill(s string, v StyleView) string {
	if s == "" {
		return ""
	}
	return placeholderRe.ReplaceAllStringFunc(s, func(m string) string {
		switch m[1 : len(m)-1] {
		case "game":
			return v.Game
		case "phase":
			return v.Phase
		case "title":
			return v.Title
		case "players":
			return strings.Join(v.Players, ", ")
		}
		return m
	})
}
