package probe

import (
	"fmt"
	"io"
	"strings"
)

var marks = map[Status]string{OK: "ok", Fail: "FAIL", Warn: "warn", Unknown: "?", Skipped: "skip"}

// WriteText prints the checklist for a person: one line per check, and
// under a failing one the profile key, what the page held and what to do;
// then the posts read.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "forumgm probe: %s (profile %s), thread %s, bot %q\n\n", r.Board, r.Profile, r.Thread, r.Bot)
	width := 0
	for _, c := range r.Checks {
		width = max(width, len(c.Title))
	}
	for _, c := range r.Checks {
		fmt.Fprintf(w, "  %-5s %-*s  %s\n", marks[c.Status], width, c.Title, c.Detail)
		pad := strings.Repeat(" ", 8)
		if c.Key != "" && c.Status != OK {
			fmt.Fprintf(w, "%skey:   %s\n", pad, c.Key)
		}
		if c.Found != "" {
			fmt.Fprintf(w, "%sfound: %s\n", pad, c.Found)
		}
		if c.Fix != "" {
			fmt.Fprintf(w, "%sfix:   %s\n", pad, c.Fix)
		}
	}
	if len(r.Posts) > 0 {
		fmt.Fprintf(w, "\nposts read (first and last page):\n")
		for _, p := range r.Posts {
			who := p.Author
			if who == "" {
				who = "(no author)"
			}
			if p.AuthorID != "" {
				who += " (" + p.AuthorID + ")"
			}
			when := p.Time
			switch {
			case p.TimeError != "":
				when = "unreadable time " + fmt.Sprintf("%q", p.TimeText) + ": " + p.TimeError
			case p.Until != "":
				when += " .. " + p.Until
			}
			fmt.Fprintf(w, "  #%-6s p%-3d %-24s %s [%s]\n", p.ID, p.Page, who, when, p.Precision)
			for _, s := range p.Segments {
				fmt.Fprintf(w, "           command: %s\n", s)
			}
		}
	}
	fmt.Fprintln(w)
	if r.PMs != "" {
		fmt.Fprintln(w, r.PMs)
	}
	if r.OK {
		fmt.Fprintln(w, "everything a game needs works on this board")
		return
	}
	var names []string
	for _, c := range r.Failed() {
		names = append(names, c.Title)
	}
	fmt.Fprintf(w, "a game cannot run here yet: %s\n", strings.Join(names, ", "))
}
