package forum

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SplitReserve is the room kept in every part for the marker line and the
// "(part i of n)" line the parts are labelled with.
const SplitReserve = 300

// SplitMessage cuts a BBCode message the board would refuse as too long
// (over max bytes) into parts that each fit, labelled "(part i of n)"; a
// message that fits, or max <= 0 (no known limit), is returned whole. It
// cuts between lines, and inside a line only when one line alone is too
// long (at a rune boundary). Each part then goes out as its own post or PM
// with its own marker, so each is sent exactly once.
func SplitMessage(text string, max int) []string {
	if max <= 0 || len(text)+SplitReserve/2 <= max {
		return []string{text}
	}
	room := max - SplitReserve
	if room < 100 {
		room = 100
	}
	var parts []string
	var cur strings.Builder
	flush := func() {
		if s := strings.Trim(cur.String(), "\n"); s != "" {
			parts = append(parts, s)
		}
		cur.Reset()
	}
	for _, line := range strings.SplitAfter(text, "\n") {
		for len(line) > room {
			flush()
			cut := room
			for cut > 0 && !utf8.RuneStart(line[cut]) {
				cut--
			}
			parts = append(parts, line[:cut])
			line = line[cut:]
		}
		if cur.Len()+len(line) > room {
			flush()
		}
		cur.WriteString(line)
	}
	flush()
	if len(parts) <= 1 {
		return parts
	}
	for i := range parts {
		parts[i] = fmt.Sprintf("(part %d of %d)\n", i+1, len(parts)) + parts[i]
	}
	return parts
}
