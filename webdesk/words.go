package webdesk

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// The GM's own words on the desk (docs/gm-words.md): the flavor form
// beside the preview of resolve-now, and the say form on the game's page.
// Both are GM controls like the others (asked, confirmed, then the very
// method the CLI command calls), so they share its checks and refusals.

func init() {
	controls["flavor"] = controlDef{
		fields: []string{"phase", "to", "text"},
		ask: func(g string, f url.Values) (string, error) {
			if f.Get("phase") == "" {
				return "", fmt.Errorf("the form did not say which phase it showed: open the preview again")
			}
			what := "the update of phase " + f.Get("phase")
			if to := strings.TrimSpace(f.Get("to")); to != "" {
				what = to + "'s private results of phase " + f.Get("phase")
			}
			if strings.TrimSpace(f.Get("text")) == "" {
				return fmt.Sprintf("Withdraw the flavor of %s in %s?", what, g), nil
			}
			return fmt.Sprintf("Open %s in %s with this flavor? It replaces any written before.", what, g), nil
		},
		do: func(ctx context.Context, d *Desk, g string, f url.Values) (string, error) {
			if f.Get("phase") == "" {
				return "", fmt.Errorf("the form did not say which phase it showed: open the preview again")
			}
			who, err := d.m.SetFlavor(ctx, g, f.Get("phase"), strings.TrimSpace(f.Get("to")), f.Get("text"))
			switch {
			case strings.TrimSpace(f.Get("text")) == "":
				return "Flavor withdrawn.", err
			case who != "":
				return "Flavor saved: it opens " + who + "'s private results (the preview shows it).", err
			}
			return "Flavor saved: it opens the update (the preview shows it).", err
		},
	}
	controls["say"] = controlDef{
		fields: []string{"to", "subject", "text"},
		ask: func(g string, f url.Values) (string, error) {
			if strings.TrimSpace(f.Get("text")) == "" {
				return "", fmt.Errorf("say: the text is empty")
			}
			if to := strings.TrimSpace(f.Get("to")); to != "" {
				return fmt.Sprintf("Send this note to %s by PM in %s?", to, g), nil
			}
			return fmt.Sprintf("Post this announcement in the thread of %s?", g), nil
		},
		do: func(ctx context.Context, d *Desk, g string, f url.Values) (string, error) {
			who, err := d.m.Say(ctx, g, strings.TrimSpace(f.Get("to")), strings.TrimSpace(f.Get("subject")), f.Get("text"))
			if who != "" {
				return "Note to " + who + " queued; the running moderator sends it by PM.", err
			}
			return "Announcement queued; the running moderator posts it.", err
		},
	}
}

// flavorForm is what the preview's flavor form starts from: the thread's
// flavor written for the phase, and the players' (GM page only).
type flavorForm struct {
	Thread  string
	Players []flavorNote
}

type flavorNote struct{ To, Text string }

func (d *Desk) flavorForm(ctx context.Context, game, phase string) flavorForm {
	var ff flavorForm
	fl, err := d.m.Flavors(ctx, game, phase)
	if err != nil {
		d.cfg.Log.Warn("desk: reading flavor", "game", game, "err", err)
		return ff
	}
	for _, f := range fl {
		if f.To == "" {
			ff.Thread = f.Text
		} else {
			ff.Players = append(ff.Players, flavorNote{To: f.To, Text: f.Text})
		}
	}
	return ff
}
