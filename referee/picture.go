package referee

// Picture ends the step's last thread post (the one with the text map or
// the scores, before the deadline Deadline adds) with a picture the board
// shows inline: head (BBCode: what it shows and a link to the game's public
// page), the [img] of img, then key (BBCode, may be empty: how to read the
// picture). img is an absolute http(s) address without BBCode in it
// (gameconfig.CheckPublicURL). A step without a thread post is unchanged:
// a picture never makes a post of its own.
func Picture(st Step, head, img, key string) Step {
	last := -1
	for i, o := range st.Out {
		if o.Public() {
			last = i
		}
	}
	if last < 0 {
		return st
	}
	out := append([]Outgoing(nil), st.Out...)
	out[last].Text += "\n\n" + head + "\n[img]" + img + "[/img]"
	if key != "" {
		out[last].Text += "\n" + key
	}
	st.Out = out
	return st
}
