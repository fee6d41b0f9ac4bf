package referee

import "fmt"

// Picture ends the step's last thread post (the one with the text map,
// before the deadline Deadline adds) with the map's picture after turn
// (0: the start) as an image the board shows inline, and a link to the
// game's public page. page and img are absolute http(s) addresses without
// BBCode in them (gameconfig.CheckPublicURL). A step without a thread post
// is unchanged: a picture never makes a post of its own.
func Picture(st Step, turn int, page, img string) Step {
	last := -1
	for i, o := range st.Out {
		if o.Public() {
			last = i
		}
	}
	if last < 0 {
		return st
	}
	what := fmt.Sprintf("after turn %d", turn)
	if turn == 0 {
		what = "at the start"
	}
	out := append([]Outgoing(nil), st.Out...)
	out[last].Text += fmt.Sprintf("\n\n[b]The map %s, as a picture[/b] (every turn's is on [url=%s]the game's page[/url]):\n[img]%s[/img]", what, page, img)
	st.Out = out
	return st
}
