package parser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/forum"
)

// The reader's commands: a post's bold runs and a PM's lines, never the
// marker line the bot puts under what it sends.
func TestBodyReaderDropsMarkers(t *testing.T) {
	t.Parallel()
	r := MustBodyReader(mustProfile(t, "phpbb"))
	post := `<strong>VOTE: Bob</strong><br><span style="font-size:85%;line-height:116%">forumgm·g.1/day-1/3</span><br><strong>forumgm·g.1/day-1/4</strong>`
	if got := strings.Join(r.Segments(post), "|"); got != "VOTE: Bob" {
		t.Errorf("Segments = %q", got)
	}
	pm := `KILL Bob<br>PROTECT Carol<br><br><span style="font-size:85%">forumgm·g.1/night-1/9</span>`
	if got := strings.Join(r.Lines(pm), "|"); got != "KILL Bob|PROTECT Carol" {
		t.Errorf("Lines = %q", got)
	}
	if r.Segments(forum.UnreadableBody("too deep")) != nil || r.Lines(forum.UnreadableBody("too deep")) != nil {
		t.Error("an unreadable body gave commands")
	}
}

func TestBodyHash(t *testing.T) {
	t.Parallel()
	r := MustBodyReader(mustProfile(t, "mybb"))
	if r.Hash("a  b\n") != r.Hash("a b") || r.Hash("a") == r.Hash("b") {
		t.Error("Hash: whitespace changed it, or a change did not")
	}
	q := `<blockquote class="mycode_quote"><cite><span> (<span title="11-30-2026, 10:05 AM">%s</span>)</span>A Wrote:</cite>x</blockquote>y`
	if r.Hash(fmt.Sprintf(q, "5 minutes ago")) != r.Hash(fmt.Sprintf(q, "Today")) {
		t.Error("a relative date in a quote header changed the hash")
	}
	if r.Hash(fmt.Sprintf(q, "Today")) == r.Hash(strings.Replace(fmt.Sprintf(q, "Today"), ">x<", ">z<", 1)) {
		t.Error("an edit inside a quote did not change the hash")
	}
}

// A quote is what the board's profile says one is: a board whose quotes
// are div.quotebox has their headers left out of the hash, and a <cite>
// that heads no quote is the player's own text.
func TestBodyHashUsesTheProfilesQuotes(t *testing.T) {
	t.Parallel()
	p := mustProfile(t, "phpbb")
	p.Selectors.Quote = "div.quotebox"
	r := MustBodyReader(p)
	q := `<div class="quotebox"><cite>Ann wrote %s:</cite>x</div>y`
	if r.Hash(fmt.Sprintf(q, "5 minutes ago")) != r.Hash(fmt.Sprintf(q, "Today")) {
		t.Error("the header of a quote the profile names changed the hash")
	}
	own := `<cite>%s</cite> y`
	if r.Hash(fmt.Sprintf(own, "a")) == r.Hash(fmt.Sprintf(own, "b")) {
		t.Error("an edit of a <cite> outside any quote did not change the hash")
	}
}

func TestBodyReaderMergeSeparator(t *testing.T) {
	t.Parallel()
	if MustBodyReader(mustProfile(t, "phpbb")).MergeSeparator() != nil {
		t.Error("phpBB does not merge posts")
	}
	sep := MustBodyReader(mustProfile(t, "mybb")).MergeSeparator()
	if sep == nil || !sep.MatchString("a<br />\n<hr class=\"mycode_hr\" />\nb") {
		t.Errorf("MyBB's merge separator: %v", sep)
	}
	p := mustProfile(t, "phpbb")
	p.MergeSeparator = "("
	if _, err := NewBodyReader(p); err == nil || !strings.Contains(err.Error(), "merge_separator") {
		t.Errorf("a merge separator that does not compile: %v", err)
	}
}
