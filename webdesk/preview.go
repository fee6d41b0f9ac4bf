package webdesk

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/forumgm/forumgm/moderator"
)

// The preview of resolve-now (a GM page: it holds PM text): the posts and
// PMs resolving the phase the GM was looking at would make, each as the
// board would get it, and the button that resolves exactly that phase.

type previewPage struct {
	GameHead
	Preview *moderator.Preview
	Items   []previewItem
	Stale   string // the game has left the phase the page was opened for
	Flavor  flavorForm
}

type previewItem struct {
	Kind, To, Subject, Text string
	Held                    time.Time // zero: goes out at once
}

func (d *Desk) previewPage(w http.ResponseWriter, r *http.Request, s *session) {
	g, ok := d.load(w, r)
	if !ok {
		return
	}
	p := previewPage{GameHead: GameHead{D: g, Public: d.public(g.Report), Now: d.now()}}
	pv, err := d.m.Preview(r.Context(), g.Report.Name, r.URL.Query().Get("phase"))
	var stale *moderator.StalePhaseError
	switch {
	case errors.As(err, &stale):
		p.Stale = err.Error()
	case err != nil:
		d.sess.setFlash(s, err.Error(), false)
		http.Redirect(w, r, "/game/"+url.PathEscape(g.Report.Name), http.StatusSeeOther)
		return
	default:
		p.Preview = pv
		p.Flavor = d.flavorForm(r.Context(), g.Report.Name, pv.Phase)
		for i, it := range pv.Messages {
			p.Items = append(p.Items, previewItem{Kind: string(it.Kind), To: it.RecipientName, Subject: it.Subject, Text: pv.Sent(i)})
			if it.NotBefore.After(pv.At) {
				p.Items[i].Held = it.NotBefore
			}
		}
	}
	d.render(w, r, http.StatusOK, "preview", d.gmPage(s, g.Report.Name+": preview of resolve-now", g.Report.Name, "", p))
}
