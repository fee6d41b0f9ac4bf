package rules

import (
	"strings"
	"unicode"
)

// Words splits a command into words for matching the grammar: white space
// and colons separate words ("VOTE: APPROVE", "VOTE:APPROVE" and
// "vote approve" all give [VOTE APPROVE] after upper-casing by the caller),
// and trailing sentence punctuation is dropped ("APPROVE!" reads APPROVE).
func Words(s string) []string {
	f := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ':' })
	out := f[:0]
	for _, w := range f {
		w = strings.TrimRight(w, ".!?")
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// Rest returns text with its first n words (as Words counts them) removed,
// keeping the rest as written: the names after "TEAM:" or "INVADE".
func Rest(text string, n int) string {
	s := text
	for i := 0; i < n; i++ {
		s = strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ':' })
		j := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ':' })
		if j < 0 {
			return ""
		}
		s = s[j:]
	}
	return strings.TrimSpace(strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ':' }))
}
