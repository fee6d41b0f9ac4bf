package webdesk

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/forumgm/forumgm/gameconfig"
)

// A GM control is a form posted to /game/NAME/do/ACTION. The first post
// only shows what it will do and asks to confirm; the confirmation posts
// the same fields with confirm=yes, and only then is the moderator called,
// with the very method the CLI command calls.

// control is one GM command: its question before, and its call.
type controlDef struct {
	fields []string // the form fields it reads
	ask    func(game string, f url.Values) (string, error)
	do     func(ctx context.Context, d *Desk, game string, f url.Values) (string, error)
}

var controls = map[string]controlDef{
	"extend": {
		fields: []string{"by"},
		ask: func(g string, f url.Values) (string, error) {
			by, err := gameconfig.ParseDuration(f.Get("by"))
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Move the deadline of %s by %s?", g, by), nil
		},
		do: func(ctx context.Context, d *Desk, g string, f url.Values) (string, error) {
			by, err := gameconfig.ParseDuration(f.Get("by"))
			if err != nil {
				return "", err
			}
			nd, err := d.m.Extend(ctx, g, by)
			return "The deadline is now " + stamp(nd) + ".", err
		},
	},
	"pause": {
		ask: func(g string, _ url.Values) (string, error) {
			return fmt.Sprintf("Pause %s? The clock stops; commands are still read.", g), nil
		},
		do: func(ctx context.Context, d *Desk, g string, _ url.Values) (string, error) {
			return "Paused.", d.m.Pause(ctx, g)
		},
	},
	"resume": {
		ask: func(g string, _ url.Values) (string, error) {
			return fmt.Sprintf("Resume %s? The deadline moves on by the time it was paused.", g), nil
		},
		do: func(ctx context.Context, d *Desk, g string, _ url.Values) (string, error) {
			return "Resumed.", d.m.Resume(ctx, g)
		},
	},
	"resolve-now": {
		// The phase the page showed: a click that arrives after the game
		// moved on is refused, not applied to the next phase.
		fields: []string{"phase"},
		ask: func(g string, f url.Values) (string, error) {
			if f.Get("phase") == "" {
				return "", fmt.Errorf("the form did not say which phase it showed: open the game's page again")
			}
			return fmt.Sprintf("Resolve phase %s of %s now, before its deadline?", f.Get("phase"), g), nil
		},
		do: func(ctx context.Context, d *Desk, g string, f url.Values) (string, error) {
			if f.Get("phase") == "" {
				return "", fmt.Errorf("the form did not say which phase it showed: open the game's page again")
			}
			held, err := d.m.ResolvePhase(ctx, g, f.Get("phase"))
			if !held.IsZero() {
				return "Resolved; the update is posted at " + stamp(held) + ", when the next phase opens.", err
			}
			return "Resolved; the running moderator posts the update.", err
		},
	},
	"void": {
		fields: []string{"command", "reason"},
		ask: func(g string, f url.Values) (string, error) {
			id, err := commandID(f)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Void command %d of %s? The state is recomputed without it.", id, g), nil
		},
		do: func(ctx context.Context, d *Desk, g string, f url.Values) (string, error) {
			id, err := commandID(f)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Command %d voided.", id), d.m.Void(ctx, g, id, f.Get("reason"))
		},
	},
	"replace": {
		fields: []string{"old", "new", "id"},
		ask: func(g string, f url.Values) (string, error) {
			if strings.TrimSpace(f.Get("old")) == "" || strings.TrimSpace(f.Get("new")) == "" {
				return "", fmt.Errorf("replace needs the player who leaves and the account that takes the slot")
			}
			return fmt.Sprintf("Give %s's slot in %s to %s?", f.Get("old"), g, f.Get("new")), nil
		},
		do: func(ctx context.Context, d *Desk, g string, f url.Values) (string, error) {
			slot, left, err := d.m.Replace(ctx, g, strings.TrimSpace(f.Get("old")), strings.TrimSpace(f.Get("new")), strings.TrimSpace(f.Get("id")))
			return fmt.Sprintf("%s now plays in %s's slot, replacing %s.", f.Get("new"), slot, left), err
		},
	},
	"retry": {
		fields: []string{"marker"},
		ask: func(g string, f url.Values) (string, error) {
			if m := f.Get("marker"); m != "" {
				return fmt.Sprintf("Send the message %s of %s again (it is first looked for on the board)?", m, g), nil
			}
			return fmt.Sprintf("Send every failed or unconfirmed message of %s again (each is first looked for on the board)?", g), nil
		},
		do: func(ctx context.Context, d *Desk, g string, f url.Values) (string, error) {
			n, err := d.m.Retry(ctx, g, f.Get("marker"))
			return fmt.Sprintf("%d %s will be sent again (each is first looked for on the board).", n, plural(n, "message", "messages")), err
		},
	},
	"count": {
		ask: func(g string, _ url.Values) (string, error) {
			return fmt.Sprintf("Post a count of the current phase of %s in the thread now?", g), nil
		},
		do: func(ctx context.Context, d *Desk, g string, _ url.Values) (string, error) {
			n, err := d.m.Count(ctx, g)
			return fmt.Sprintf("Count %d queued; the running moderator posts it.", n), err
		},
	},
	// Sign-ups: the same two controls as `forumgm signups GAME close` and
	// `... remove NAME`.
	"close-signups": {
		ask: func(g string, _ url.Values) (string, error) {
			return fmt.Sprintf("Close the sign-ups of %s now and start the game with those in?", g), nil
		},
		do: func(ctx context.Context, d *Desk, g string, _ url.Values) (string, error) {
			return "Sign-ups are closed and the game has started; the running moderator posts it and sends the roles.", d.m.CloseSignups(ctx, g)
		},
	},
	"remove-signup": {
		fields: []string{"name"},
		ask: func(g string, f url.Values) (string, error) {
			if strings.TrimSpace(f.Get("name")) == "" {
				return "", fmt.Errorf("remove needs the name of the player to take off the sign-ups")
			}
			return fmt.Sprintf("Take %s off the sign-ups of %s? The thread is told.", strings.TrimSpace(f.Get("name")), g), nil
		},
		do: func(ctx context.Context, d *Desk, g string, f url.Values) (string, error) {
			gone, err := d.m.RemoveSignup(ctx, g, strings.TrimSpace(f.Get("name")))
			return gone + " is off the sign-ups; the running moderator tells the thread.", err
		},
	},
	"end": {
		ask: func(g string, _ url.Values) (string, error) {
			return fmt.Sprintf("End %s now? Final standings and reveals are posted; this cannot be undone.", g), nil
		},
		do: func(ctx context.Context, d *Desk, g string, _ url.Values) (string, error) {
			return "Ended; the running moderator posts the final update.", d.m.End(ctx, g)
		},
	},
}

func commandID(f url.Values) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(f.Get("command")), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a command id: use the number shown in the audit log", f.Get("command"))
	}
	return id, nil
}

type confirmPage struct {
	Game     string
	Action   string
	Question string
	Fields   map[string]string
}

func (d *Desk) control(w http.ResponseWriter, r *http.Request, s *session) {
	game, action := r.PathValue("name"), r.PathValue("action")
	c, ok := controls[action]
	if !ok {
		http.NotFound(w, r)
		return
	}
	back := "/game/" + url.PathEscape(game)
	if next := r.PostFormValue("back"); next != "" {
		back = safeNext(next)
	}
	q, err := c.ask(game, r.PostForm)
	if err != nil {
		d.sess.setFlash(s, err.Error(), false)
		http.Redirect(w, r, back, http.StatusSeeOther)
		return
	}
	if r.PostFormValue("confirm") != "yes" {
		fields := map[string]string{"back": back}
		for _, f := range c.fields {
			fields[f] = r.PostFormValue(f)
		}
		pg := d.gmPage(s, "Confirm: "+action, game, "", confirmPage{Game: game, Action: action, Question: q, Fields: fields})
		pg.Refresh = 0
		d.render(w, r, http.StatusOK, "confirm", pg)
		return
	}
	msg, err := c.do(r.Context(), d, game, r.PostForm)
	if err != nil {
		d.cfg.Log.Warn("desk: GM control failed", "game", game, "control", action, "err", err)
		d.sess.setFlash(s, err.Error(), false)
	} else {
		d.cfg.Log.Info("desk: GM control", "game", game, "control", action)
		d.sess.setFlash(s, msg, true)
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}
