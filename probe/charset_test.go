package probe

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
)

// rewrite changes the board's answers on their way to the bot: a form
// that names its own charset, a Content-Type that contradicts the page.
type rewrite struct {
	form   string // added to the reply form's tag
	header string // the thread pages' Content-Type instead of the board's
	noMeta bool   // every page without its <meta charset>
}

func (rw rewrite) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || r.Method != http.MethodGet {
		return res, err
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	if rw.form != "" && strings.Contains(r.URL.RawQuery, "mode=reply") {
		b = bytes.Replace(b, []byte(`<form id="postform"`), []byte(`<form id="postform" `+rw.form), 1)
	}
	if rw.noMeta {
		b = regexp.MustCompile(`<meta charset="[^"]*" />`).ReplaceAll(b, nil)
	}
	if rw.header != "" && strings.HasSuffix(r.URL.Path, "viewtopic.php") {
		res.Header.Set("Content-Type", rw.header)
	}
	res.Body = io.NopCloser(bytes.NewReader(b))
	res.ContentLength = int64(len(b))
	return res, nil
}

// TestProbeCharset (issue 44): the check `forumgm new` and `forumgm
// probe` run without posting compares the charset the bot will submit
// each form in with the charset of the thread's pages, and names the key
// to fix: a board in ISO-8859-1 or windows-1252 passes; a profile charset
// that overrides the pages' declaration fails on charset; a form whose
// accept-charset differs from its pages fails, naming charset; a page
// whose Content-Type and <meta> disagree is a warning.
func TestProbeCharset(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		opts          forumsim.Options
		charset       string // the profile's
		rw            rewrite
		status        Status
		detail        string
		key, fix, not string
	}{
		{name: "UTF-8", status: OK, detail: "pages in utf-8 (HTTP Content-Type); forms go out in utf-8"},
		{name: "ISO-8859-1 in the Content-Type", opts: forumsim.Options{Charset: forumsim.CharsetLatin1}, status: OK,
			detail: "pages in windows-1252 (ISO-8859-1, HTTP Content-Type); forms go out in windows-1252, each character it lacks as a &#NNNN; reference"},
		{name: "windows-1252 in a <meta> only", opts: forumsim.Options{Charset: forumsim.CharsetCP1252, CharsetInMeta: true}, status: OK,
			detail: "pages in windows-1252 (<meta charset>); forms go out in windows-1252"},
		{name: "the profile overrides a declared charset", opts: forumsim.Options{Charset: forumsim.CharsetLatin1}, charset: "UTF-8", status: Fail,
			detail: `the profile's charset "UTF-8" overrides what the pages declare, windows-1252 (ISO-8859-1, HTTP Content-Type)`,
			key:    `charset "UTF-8"`, fix: "remove charset from the profile file"},
		{name: "a form in another charset than its pages", opts: forumsim.Options{Charset: forumsim.CharsetLatin1}, rw: rewrite{form: `accept-charset="UTF-8"`}, status: Fail,
			detail: "the reply form goes out in utf-8 but the thread, first page is in windows-1252 (ISO-8859-1, HTTP Content-Type)",
			key:    `charset ""`, fix: "set charset: windows-1252 in the profile file"},
		{name: "a Content-Type that contradicts the page", opts: forumsim.Options{Charset: forumsim.CharsetLatin1}, rw: rewrite{header: "text/html; charset=UTF-8"}, status: Fail,
			detail: "the reply form goes out in windows-1252 but the thread, first page is in utf-8 (HTTP Content-Type)",
			key:    `charset ""`, fix: "set charset: windows-1252 in the profile file"},
		{name: "pages that declare nothing", opts: forumsim.Options{Charset: forumsim.CharsetCP1252, CharsetInMeta: true}, rw: rewrite{noMeta: true}, status: Fail,
			detail: "the reply form goes out in utf-8 but the thread, last page is in windows-1252 (undeclared)",
			key:    `charset ""`, fix: "set charset: windows-1252 in the profile file"},
		{name: "a profile charset that agrees", opts: forumsim.Options{Charset: forumsim.CharsetLatin1}, charset: "windows-1252", status: OK,
			detail: "pages in windows-1252 (the profile's charset)"},
		{name: "the profile names the charset of an undeclared board", opts: forumsim.Options{Charset: forumsim.CharsetLatin1, CharsetInMeta: true}, charset: "latin1", status: OK,
			detail: "pages in windows-1252 (latin1, the profile's charset)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newSimWith(t, tc.opts, true)
			// The thread holds what latin1 has: Zoë's name in a post.
			topic, _ := strconv.Atoi(b.topic)
			alice, _ := b.sim.UserID("Alice")
			if _, err := b.sim.Post(topic, alice, "Zoë says [b]VOTE: Bob[/b]"); err != nil {
				t.Fatal(err)
			}
			prof, _ := forum.Builtin("phpbb")
			prof.Charset = tc.charset
			r := b.probeWith(t, prof, tc.rw)
			c := check(t, r, "charset")
			if c.Status != tc.status || !strings.Contains(c.Detail, tc.detail) {
				t.Errorf("charset check %s: %q; want %s with %q", c.Status, c.Detail, tc.status, tc.detail)
			}
			if tc.key != "" && c.Key != tc.key {
				t.Errorf("key %q, want %q", c.Key, tc.key)
			}
			if !strings.Contains(c.Fix, tc.fix) {
				t.Errorf("fix %q, want it to say %q", c.Fix, tc.fix)
			}
			if tc.status == OK && !r.OK {
				t.Errorf("the probe failed on a board whose charset is handled: %+v", r.Failed())
			}
			if tc.status == Fail && r.OK {
				t.Error("the probe passed a charset mismatch")
			}
		})
	}
}
