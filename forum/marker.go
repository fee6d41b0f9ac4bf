package forum

import (
	"fmt"
	"regexp"
	"strings"
)

// The marker is the line the bot puts under every post and PM it sends: its
// prefix, then a key (game, phase, sequence). It is how a restarted bot
// tells what it already sent, and it is never a command. Everything about
// its markup and its recognition is in this file.

// MarkerPrefix starts the marker line; the key follows.
const MarkerPrefix = "forumgm·"

// A key holds nothing BBCode or a board would rewrite.
const markerKey = `[A-Za-z0-9._:/-]{1,120}`

// markerDot is the marker's middle dot (U+00B7) as boards may show it
// back: itself; as a numeric or named reference the board printed as text
// (a board that escapes the "&" of what a browser sent as "&#183;"); as its
// UTF-8 bytes read as ISO-8859-1 or windows-1252 ("Â·", once or twice
// over), which a board in a legacy charset shows for a "·" submitted in
// UTF-8; as U+FFFD or "?", where a charset conversion lost it. The word
// "forumgm" before it and the key after it are ASCII, which no charset
// changes, and the key must match whole: no variant makes one marker read
// as another.
const markerDot = `(?:·|&(?:amp;)?(?:#0*183|#[xX]0*[bB]7|middot);|Â·|Ã‚Â·|\x{FFFD}|\?)`

var (
	markerKeyRe = regexp.MustCompile(`^` + markerKey + `$`)
	markerRe    = regexp.MustCompile(`forumgm` + markerDot + `(` + markerKey + `)`)
	markerStart = regexp.MustCompile(`^forumgm` + markerDot)
)

// ValidMarkerKey says whether key may be used in a marker.
func ValidMarkerKey(key string) bool { return markerKeyRe.MatchString(key) }

// MarkerPlaceholder stands for the marker (its prefix and key) in a
// profile's marker_markup: "[size=85]{marker}[/size]".
const MarkerPlaceholder = "{marker}"

// maxMarkupBytes bounds a marker_markup, so that a part of a split
// message keeps room for its marker line (SplitReserve).
const maxMarkupBytes = 100

// markupTags is what a marker_markup may hold around its placeholder:
// BBCode tags only, so the line reads as the marker alone whether the
// board renders them or shows them raw (IsMarkerLine).
var markupTags = regexp.MustCompile(`^(?:\[[^\[\]\n]*\])*$`)

// CheckMarkerMarkup says what is wrong with a marker_markup ("" is the
// plain marker): one {marker}, within BBCode tags only, on one line.
func CheckMarkerMarkup(markup string) error {
	if markup == "" {
		return nil
	}
	before, after, ok := strings.Cut(markup, MarkerPlaceholder)
	switch {
	case !ok:
		return fmt.Errorf("%q has no %s where the marker goes", markup, MarkerPlaceholder)
	case strings.Contains(after, MarkerPlaceholder):
		return fmt.Errorf("%q has %s more than once", markup, MarkerPlaceholder)
	case len(markup) > maxMarkupBytes:
		return fmt.Errorf("%q is longer than %d bytes", markup, maxMarkupBytes)
	case !markupTags.MatchString(before) || !markupTags.MatchString(after):
		return fmt.Errorf("%q holds more than BBCode tags around %s (the line must read as the marker alone, tags rendered or not)", markup, MarkerPlaceholder)
	}
	return nil
}

// MarkerLine is the marker line of key as BBCode, in the board's markup
// (the profile's marker_markup: small print where the board has a size
// tag; "" is the plain marker).
func MarkerLine(markup, key string) string {
	if markup == "" {
		markup = MarkerPlaceholder
	}
	return strings.Replace(markup, MarkerPlaceholder, MarkerPrefix+key, 1)
}

// WithMarker appends the marker line of key, in markup, to a BBCode body.
func WithMarker(markup, body, key string) string {
	return strings.TrimRight(body, "\n ") + "\n\n" + MarkerLine(markup, key)
}

// leadingTags and trailingTags are BBCode tags at a line's start and end.
var (
	leadingTags  = regexp.MustCompile(`^(?:\s*\[[^\[\]\n]*\])+`)
	trailingTags = regexp.MustCompile(`(?:\[[^\[\]\n]*\]\s*)+$`)
)

// IsMarkerLine says whether a line of text read from a body (a command
// segment, a PM line) is a marker line: the marker, in whatever markup
// any profile wrote it, rendered or shown raw by a board without the tag
// (the "[size=85]…[/size]" every bot post had before the markup was the
// profile's included).
func IsMarkerLine(line string) bool {
	line = strings.TrimSpace(line)
	line = trailingTags.ReplaceAllString(leadingTags.ReplaceAllString(line, ""), "")
	return markerStart.MatchString(strings.TrimSpace(line))
}

// Markers returns the marker keys in a text or rendered body, in order,
// whatever a board's charset made of the marker's middle dot (markerDot).
func Markers(text string) []string {
	var out []string
	for _, m := range markerRe.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// HasMarker says whether the text carries the marker with exactly this key
// ("g/r/1" is not "g/r/12").
func HasMarker(text, key string) bool {
	for _, k := range Markers(text) {
		if k == key {
			return true
		}
	}
	return false
}
