package probe

import (
	"testing"

	"github.com/forumgm/forumgm/nodebb"
)

// TestNodeBBCharset: NodeBB's JSON in UTF-8 passes, saying so; a charset
// other than UTF-8 in the profile, an answer that is not UTF-8 or one that
// names another charset each fail with a fix.
func TestNodeBBCharset(t *testing.T) {
	for _, c := range []struct {
		name string
		enc  nodebb.Encoding
		prof string
		want Status
	}{
		{"nodebb", nodebb.Encoding{ContentType: "application/json; charset=utf-8", Charset: "utf-8", ValidUTF8: true}, "", OK},
		{"no charset named", nodebb.Encoding{ContentType: "application/json", ValidUTF8: true}, "", OK},
		{"profile says UTF-8", nodebb.Encoding{ContentType: "application/json; charset=utf-8", Charset: "utf-8", ValidUTF8: true}, "UTF-8", OK},
		{"profile says latin-1", nodebb.Encoding{ContentType: "application/json; charset=utf-8", Charset: "utf-8", ValidUTF8: true}, "iso-8859-1", Fail},
		{"re-encoded", nodebb.Encoding{ContentType: "application/json; charset=iso-8859-1", Charset: "iso-8859-1", ValidUTF8: false}, "", Fail},
		{"relabelled", nodebb.Encoding{ContentType: "application/json; charset=iso-8859-1", Charset: "iso-8859-1", ValidUTF8: true}, "", Fail},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := nodebbCharset(c.enc, c.prof)
			if got.Status != c.want || got.ID != "charset" || got.Detail == "" {
				t.Errorf("%+v, want %s", got, c.want)
			}
			if got.Status == Fail && got.Fix == "" {
				t.Errorf("fails with no fix: %+v", got)
			}
		})
	}
}
