package forum

import (
	"fmt"
	"strings"
	"testing"
)

func TestSplitMessage(t *testing.T) {
	receipt := func(lines int) string {
		var b strings.Builder
		for i := 1; i <= lines; i++ {
			fmt.Fprintf(&b, "Line %d: \"attack Bob\" — rejected: it is not your turn.\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name  string
		text  string
		max   int
		parts int
	}{
		{"fits", "short", 60000, 1},
		{"no limit", strings.Repeat("x", 100000), 0, 1},
		{"3000-line receipt, phpBB", receipt(3000), 60000, 0},
		{"3000-line receipt, MyBB", receipt(3000), 65535, 0},
		{"one huge line", strings.Repeat("é", 70000), 60000, 0},
		{"just over", strings.Repeat("a\n", 30000), 60000, 2},
		// phpBB counts " as &quot;: 756 bytes it counts as 1,316
		// characters, over its limit of 1,000 (a real board's refusal).
		{"quotes, phpBB", strings.Repeat("01: Ann said \"yes\" & Ben said \"no\".\n", 21), 1000, 2},
		{"one line of quotes", strings.Repeat(`"&<>`, 1000), 1000, 0},
	}
	for _, tc := range tests {
		parts := SplitMessage(tc.text, tc.max)
		if tc.parts > 0 && len(parts) != tc.parts {
			t.Errorf("%s: %d parts, want %d", tc.name, len(parts), tc.parts)
		}
		if tc.max > 0 && MessageSize(tc.text) > tc.max && len(parts) < 2 {
			t.Errorf("%s: a message of size %d over %d is not split", tc.name, MessageSize(tc.text), tc.max)
		}
		var joined strings.Builder
		for i, p := range parts {
			if tc.max > 0 && MessageSize(p)+SplitReserve/2 > tc.max {
				t.Errorf("%s: part %d is of size %d, over %d with its marker", tc.name, i+1, MessageSize(p), tc.max)
			}
			if !strings.ContainsRune(p, '\uFFFD') && strings.ToValidUTF8(p, "\uFFFD") != p {
				t.Errorf("%s: part %d cuts a character", tc.name, i+1)
			}
			body := p
			if len(parts) > 1 {
				label := fmt.Sprintf("(part %d of %d)\n", i+1, len(parts))
				if !strings.HasPrefix(p, label) {
					t.Errorf("%s: part %d starts %.30q", tc.name, i+1, p)
				}
				body = strings.TrimPrefix(p, label)
			}
			joined.WriteString(body)
		}
		// Nothing lost: the parts hold every line, in order.
		strip := func(s string) string { return strings.ReplaceAll(s, "\n", "") }
		if strip(joined.String()) != strip(tc.text) {
			t.Errorf("%s: the parts do not add up to the message", tc.name)
		}
	}
}

// TestMessageSize: bytes, with the characters phpBB HTML-escapes before it
// counts a message (" & < >) as their entities; never less than MyBB's
// strlen, SMF's or phpBB's count.
func TestMessageSize(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"plain", 5},
		{"é—", 5},
		{`"`, 6},
		{"&", 5},
		{"<b>", 9},
		{"it's", 4}, // phpBB escapes with ENT_COMPAT: ' stays
		{`[quote="Ann"]x[/quote]`, 32},
	} {
		if got := MessageSize(tc.text); got != tc.want {
			t.Errorf("MessageSize(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}
