package rules

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Roster is the list of player slots of a game. A slot's ID is the forum
// name the player signed up with and never changes (engines key their state
// by it); Display is the name shown now (a replacement player takes over the
// slot and the old name becomes an alias, so old votes and mentions still
// match).
type Roster struct {
	Slots []Slot `json:"slots"`
}

// Slot is one player position.
type Slot struct {
	ID      string   `json:"id"`
	Display string   `json:"display"`
	Aliases []string `json:"aliases,omitempty"`
}

// NewRoster builds a roster from sign-up names and GM aliases. Names that
// normalise to the same key are refused: they could never be told apart.
func NewRoster(players []string, aliases map[string][]string) (*Roster, error) {
	r := &Roster{}
	seen := map[string]string{}
	for _, p := range players {
		k := NormName(p)
		if k == "" {
			return nil, fmt.Errorf("player name %q has no letters or digits", p)
		}
		if other, dup := seen[k]; dup {
			return nil, fmt.Errorf("player names %q and %q cannot be told apart", other, p)
		}
		seen[k] = p
		r.Slots = append(r.Slots, Slot{ID: p, Display: p})
	}
	for p, as := range aliases {
		i := r.index(p)
		if i < 0 {
			return nil, fmt.Errorf("alias for %q, who is not a player", p)
		}
		for _, a := range as {
			k := NormName(a)
			if other, dup := seen[k]; dup && other != p {
				return nil, fmt.Errorf("alias %q of %s clashes with %s", a, p, other)
			}
			seen[k] = p
			r.Slots[i].Aliases = append(r.Slots[i].Aliases, a)
		}
	}
	return r, nil
}

func (r *Roster) index(id string) int {
	for i, s := range r.Slots {
		if s.ID == id {
			return i
		}
	}
	return -1
}

// IDs lists the slot ids in roster order.
func (r *Roster) IDs() []string {
	out := make([]string, len(r.Slots))
	for i, s := range r.Slots {
		out[i] = s.ID
	}
	return out
}

// Has says whether id is a slot id.
func (r *Roster) Has(id string) bool { return r.index(id) >= 0 }

// Display is the current name of a slot (the id itself if unknown).
func (r *Roster) Display(id string) string {
	if i := r.index(id); i >= 0 {
		return r.Slots[i].Display
	}
	return id
}

// Name is Display escaped for BBCode: what an event text should contain.
func (r *Roster) Name(id string) string { return Esc(r.Display(id)) }

// Names is Name of each id, joined with ", ".
func (r *Roster) Names(ids []string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = r.Name(id)
	}
	return strings.Join(parts, ", ")
}

// Replace gives slot of the player now called old to newName; old stays an
// alias.
func (r *Roster) Replace(old, newName string) error {
	id, err := r.Match(old)
	if err != nil {
		return err
	}
	if k := NormName(newName); k == "" {
		return fmt.Errorf("new name %q has no letters or digits", newName)
	}
	// A name another player answers to (sign-up name, current name or
	// alias) would make commands naming it ambiguous: refused. A prefix of
	// another's name is not a clash: an exact name wins over a prefix.
	k := NormName(newName)
	for _, s := range r.Slots {
		if s.ID == id {
			continue
		}
		for _, n := range append([]string{s.ID, s.Display}, s.Aliases...) {
			if NormName(n) == k {
				if n == s.Display {
					return fmt.Errorf("%q is already a player", newName)
				}
				return fmt.Errorf("%q is a name %s answers to", newName, s.Display)
			}
		}
	}
	i := r.index(id)
	s := &r.Slots[i]
	s.Aliases = append(s.Aliases, s.Display)
	s.Display = newName
	return nil
}

// Copy returns a deep copy.
func (r *Roster) Copy() *Roster {
	c := &Roster{Slots: make([]Slot, len(r.Slots))}
	for i, s := range r.Slots {
		s.Aliases = append([]string(nil), s.Aliases...)
		c.Slots[i] = s
	}
	return c
}

// NormName is the key names are compared by: lower case, with spaces,
// underscores, hyphens (and other non-letter, non-digit runes) removed.
func NormName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			// Folding through upper case makes ı/I/i, ς/σ and ſ/s compare alike.
			b.WriteRune(unicode.ToLower(unicode.ToUpper(r)))
		}
	}
	return b.String()
}

// MinPrefix is the shortest prefix that may name a player.
const MinPrefix = 3

// Match finds the slot a name in a command refers to: an exact match of the
// display name, sign-up name or an alias (after NormName), else a unique
// prefix of at least MinPrefix characters. Errors are user-facing.
func (r *Roster) Match(name string) (string, error) {
	k := NormName(name)
	if k == "" {
		return "", fmt.Errorf("no player name given")
	}
	var exact []string
	for _, s := range r.Slots {
		for _, n := range s.allNames() {
			if NormName(n) == k {
				exact = appendOnce(exact, s.ID)
			}
		}
	}
	if len(exact) == 1 {
		return exact[0], nil
	}
	if len(exact) > 1 {
		return "", fmt.Errorf("%q could mean %s", name, r.quoted(exact))
	}
	if len([]rune(k)) < MinPrefix {
		return "", fmt.Errorf("%q matches no player (a short name needs at least %d letters)", name, MinPrefix)
	}
	var pre []string
	for _, s := range r.Slots {
		for _, n := range s.allNames() {
			if strings.HasPrefix(NormName(n), k) {
				pre = appendOnce(pre, s.ID)
			}
		}
	}
	switch len(pre) {
	case 0:
		return "", fmt.Errorf("%q matches no player", name)
	case 1:
		return pre[0], nil
	default:
		return "", fmt.Errorf("%q could mean %s", name, r.quoted(pre))
	}
}

// MatchList matches a comma- (or "and"-) separated list of names.
func (r *Roster) MatchList(list string) ([]string, error) {
	var out []string
	for _, part := range SplitList(list) {
		id, err := r.Match(part)
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

// SplitList splits a list of names on commas, semicolons, "&", "+" and the
// word "and"; blank parts are dropped.
func SplitList(s string) []string {
	f := func(r rune) bool { return r == ',' || r == ';' || r == '&' || r == '+' }
	var out []string
	for _, p := range strings.FieldsFunc(s, f) {
		for _, q := range splitWord(p, "and") {
			if q = strings.TrimSpace(q); q != "" {
				out = append(out, q)
			}
		}
	}
	return out
}

func splitWord(s, w string) []string {
	fs := strings.Fields(s)
	var out []string
	cur := []string{}
	for _, f := range fs {
		if strings.EqualFold(f, w) {
			out = append(out, strings.Join(cur, " "))
			cur = cur[:0]
			continue
		}
		cur = append(cur, f)
	}
	return append(out, strings.Join(cur, " "))
}

func (s Slot) allNames() []string {
	return append([]string{s.Display, s.ID}, s.Aliases...)
}

func (r *Roster) quoted(ids []string) string {
	sort.Strings(ids)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = r.Display(id)
	}
	return "more than one player (" + strings.Join(parts, ", ") + ")"
}

func appendOnce(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// Esc makes a player-supplied string safe to put in a BBCode post: a
// zero-width space after every "[" stops the forum from reading it as a tag
// (a username like "[/quote]" or "[url=…]"), while it still reads the same;
// and the invisible controls that reorder text (right-to-left overrides,
// embeddings and isolates, the directional marks) are left out, so that a
// name like "Ann\u202E…" cannot turn the rest of the post around.
func Esc(s string) string {
	if strings.IndexFunc(s, isBidiControl) >= 0 {
		s = strings.Map(func(r rune) rune {
			if isBidiControl(r) {
				return -1
			}
			return r
		}, s)
	}
	return strings.ReplaceAll(s, "[", "[\u200b")
}

// isBidiControl: the Unicode bidirectional formatting characters.
func isBidiControl(r rune) bool {
	switch {
	case r == '\u061c', r == '\u200e', r == '\u200f':
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// Author finds the slot whose current forum account has this user name
// (exactly, ignoring case): a post's author, not a name typed in a command,
// so no prefixes or aliases. A replaced player's old account no longer
// speaks for the slot.
func (r *Roster) Author(forumName string) (string, bool) {
	for _, s := range r.Slots {
		if strings.EqualFold(s.Display, forumName) {
			return s.ID, true
		}
	}
	return "", false
}
