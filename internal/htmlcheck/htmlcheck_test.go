package htmlcheck

import "testing"

func TestWellNested(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in string
		ok bool
	}{
		{"", true},
		{"plain &amp; text", true},
		{`<div class="x"><p>a<br>b<img src="i.png"></p></div>`, true},
		{`<form><input name="u"><link rel="x"><meta charset="utf-8"></form>`, true},
		{"<br/><hr />", true},
		{"<b><i></b></i>", false},
		{"<div>", false},
		{"</span>", false},
		{"<p><span></p>", false},
		{"<br></br>", false},
	}
	for _, tc := range tests {
		if err := WellNested(tc.in); (err == nil) != tc.ok {
			t.Errorf("WellNested(%q) = %v, want ok %v", tc.in, err, tc.ok)
		}
	}
}

func TestIsVoid(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{"br": true, "img": true, "input": true, "wbr": true, "div": false, "span": false, "a": false} {
		if IsVoid(name) != want {
			t.Errorf("IsVoid(%q) = %v", name, !want)
		}
	}
}
