package nodebb

import "testing"

func TestMarkdown(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ bb, md string }{
		{"[b]VOTE Bob[/b]", "**VOTE Bob**"},
		{"[b] padded [/b]x", " **padded** x"},
		{"[i]Day 2[/i] [s]old[/s]", "*Day 2* ~~old~~"},
		{"a_b *c* ~d~ `e` [\u200bf] <g> #h |i|", `a\_b \*c\* \~d\~ \` + "`e\\`" + ` \[` + "\u200b" + `f\] \<g\> \#h \|i\|`},
		{"1. first\n- dash", "1\\. first\n\\- dash"},
		{"[quote=Ann]hi\nthere[/quote]after", "> Ann wrote:\n>\n> hi\n> there\n\nafter"},
		{"[code]\n[b]raw *x*[/b]\n[/code]", "```\n[b]raw *x*[/b]\n```"},
		{"[url=https://e.org/p?x=1]post[/url]", "[post](https://e.org/p?x=1)"},
		{"[img]https://e.org/a.png[/img]", "![](https://e.org/a.png)"},
		{"[list][*]one[*]two[/list]", "- one\n- two"},
		{"[size=85][color=red]small[/color][/size] [u]u[/u] [spoiler]sp[/spoiler]", "small u sp"},
		{"[/b] stray", `\[/b\] stray`},
		{"[b]open", "**open**"},
	} {
		if got := Markdown(c.bb); got != c.md {
			t.Errorf("Markdown(%q)\n got %q\nwant %q", c.bb, got, c.md)
		}
	}
	for key, want := range map[string]string{"g_1/day-1/3": `forumgm·g_1/day-1/3`, "g/_x_/1": `forumgm·g/\_x\_/1`, "_a": `forumgm·\_a`} {
		if got := markerLine(key); got != want {
			t.Errorf("markerLine(%q) = %q, want %q", key, got, want)
		}
	}
}
