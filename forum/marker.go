package forum

import "regexp"

// MarkerPrefix starts the marker line the bot puts under every post and PM
// it sends; the key (game, phase, sequence) follows. It is how a restarted
// bot tells what it already sent.
const MarkerPrefix = "forumgm·"

// A key holds nothing BBCode or a board would rewrite.
const markerKey = `[A-Za-z0-9._:/-]{1,120}`

var (
	markerKeyRe = regexp.MustCompile(`^` + markerKey + `$`)
	markerRe    = regexp.MustCompile(MarkerPrefix + `(` + markerKey + `)`)
)

// ValidMarkerKey says whether key may be used in a marker.
func ValidMarkerKey(key string) bool { return markerKeyRe.MatchString(key) }

// Markers returns the marker keys in a text or rendered body, in order.
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
