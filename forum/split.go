package forum

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SplitReserve is the room kept in every part for the marker line and the
// "(part i of n)" line the parts are labelled with.
const SplitReserve = 300

// MessageSize is a message's length as the strictest of the boards counts
// it against its limit: its bytes (MyBB counts bytes; SMF characters,
// fewer), with each character phpBB HTML-escapes before counting
// (request_var: " & < >) counted as its entity, so that a message of
// quotes is not refused by phpBB however short in bytes.
func MessageSize(text string) int {
	n := len(text)
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			n += len("&quot;") - 1
		case '&':
			n += len("&amp;") - 1
		case '<', '>':
			n += len("&lt;") - 1
		}
	}
	return n
}

// SplitMessage cuts a BBCode message the board would refuse as too long
// (over max, as MessageSize counts) into parts that each fit, labelled
// "(part i of n)"; a message that fits, or max <= 0 (no known limit), is
// returned whole. It cuts between lines, and inside a line only when one
// line alone is too long (at a rune boundary). Each part then goes out as
// its own post or PM with its own marker, so each is sent exactly once.
func SplitMessage(text string, max int) []string {
	if max <= 0 || MessageSize(text)+SplitReserve/2 <= max {
		return []string{text}
	}
	room := max - SplitReserve
	if room < 100 {
		room = 100
	}
	var parts []string
	var cur strings.Builder
	size := 0 // cur's MessageSize
	flush := func() {
		if s := strings.Trim(cur.String(), "\n"); s != "" {
			parts = append(parts, s)
		}
		cur.Reset()
		size = 0
	}
	for _, line := range strings.SplitAfter(text, "\n") {
		n := MessageSize(line)
		for n > room {
			flush()
			cut := fit(line, room)
			parts = append(parts, line[:cut])
			n -= MessageSize(line[:cut])
			line = line[cut:]
		}
		if size+n > room {
			flush()
		}
		cur.WriteString(line)
		size += n
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

// fit is the longest start of line (in bytes, at a rune boundary, at least
// one rune) whose MessageSize is at most room.
func fit(line string, room int) int {
	cut, size := 0, 0
	for cut < len(line) {
		_, w := utf8.DecodeRuneInString(line[cut:])
		n := MessageSize(line[cut : cut+w])
		if size+n > room && cut > 0 {
			break
		}
		cut, size = cut+w, size+n
	}
	return cut
}
