package parser

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/forum"
)

// BodyReader is everything the bot reads from a post's or PM's body on one
// board, built once from the board's profile: the commands of a thread
// post (Segments), the lines of a PM (Lines), the hash that tells an edit
// (Hash) and the separator the board puts between posts it merges
// (MergeSeparator). It is pure: no I/O, no clock. The moderator reads every
// body through the reader of its game's board, and the tests read the fake
// board's bodies through the same one.
type BodyReader struct {
	x     *Parser
	merge *regexp.Regexp
}

// NewBodyReader compiles a board's profile into its body reader. It fails
// on a profile whose selectors or merge separator do not compile.
func NewBodyReader(p forum.Profile) (*BodyReader, error) {
	x, err := New(p)
	if err != nil {
		return nil, err
	}
	return x.BodyReader()
}

// MustBodyReader is NewBodyReader for the built-in profiles, which are
// tested to compile.
func MustBodyReader(p forum.Profile) *BodyReader {
	r, err := NewBodyReader(p)
	if err != nil {
		panic(err)
	}
	return r
}

// BodyReader is the body reader of the parser's profile, sharing its
// compiled selectors.
func (x *Parser) BodyReader() (*BodyReader, error) {
	r := &BodyReader{x: x}
	if sep := x.Profile.MergeSeparator; sep != "" {
		var err error
		if r.merge, err = regexp.Compile(sep); err != nil {
			return nil, fmt.Errorf("profile %s: merge_separator: %w", x.Profile.Name, err)
		}
	}
	return r, nil
}

// Segments are the commands of a thread post: the bold runs outside quotes,
// spoilers and code, minus struck text (Parser.Segments), and never a
// marker line (forum.IsMarkerLine): what the bot wrote under its own post
// is not a player's command, even when someone bolds a copy of it.
func (r *BodyReader) Segments(bodyHTML string) []string {
	return dropMarkers(r.x.Segments(bodyHTML))
}

// Lines are the commands of a PM: its lines outside quotes, spoilers and
// code, minus struck text (Parser.Lines), and never a marker line.
func (r *BodyReader) Lines(pmBodyHTML string) []string {
	return dropMarkers(r.x.Lines(pmBodyHTML))
}

func dropMarkers(segs []string) []string {
	out := segs[:0]
	for _, s := range segs {
		if !forum.IsMarkerLine(s) {
			out = append(out, s)
		}
	}
	return out
}

// Hash is how a body is compared between reads to tell an edit: the same
// markup with other whitespace hashes the same, and so does a body whose
// quote headers changed. A quote header (the <cite> of a quote the
// profile's quote selector finds: who is quoted, and when) is left out
// because boards write its date relatively (MyBB's "5 minutes ago", SMF's
// "Today at") and re-render it with no edit; what is quoted still counts.
func (r *BodyReader) Hash(bodyHTML string) string {
	norm := bodyHTML
	if doc, err := goquery.NewDocumentFromReader(strings.NewReader(bodyHTML)); err == nil {
		doc.FindMatcher(r.x.quote).Find("cite").Remove()
		if h, err := doc.Find("body").Html(); err == nil {
			norm = h
		}
	}
	h := sha256.Sum256([]byte(strings.Join(strings.Fields(norm), " ")))
	return hex.EncodeToString(h[:])
}

// MergeSeparator matches what the board puts between a member's post and
// the text it appends to it instead of a new post (MyBB's merges); nil when
// the board does not merge posts.
func (r *BodyReader) MergeSeparator() *regexp.Regexp { return r.merge }
