package webdesk

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/gamelog"
	"github.com/forumgm/forumgm/store"
)

// wordsGame is a Nations game on a local board in a house style.
func wordsGame(t *testing.T, name string) *rig {
	t.Helper()
	p := startGameWith(t, "nations", name, func(gc *gameconfig.GameConfig) {
		gc.Style = &gameconfig.Style{Header: "[b]{game}[/b] — {title}", Footer: "[i]House rules: be kind.[/i]", Color: "navy"}
	})
	return newRig(t, p)
}

func (r *rig) outboxItems(t *testing.T) []store.OutboxItem {
	t.Helper()
	_, out, err := r.M.Audit(context.Background(), r.Name, gamelog.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDeskWords: the GM's words from the desk, over HTTP as a browser
// posts them: the flavor form beside the preview (asked with the text
// shown, then saved, and the preview opens the update with it exactly),
// the say form in the thread and by PM; a marker line and flavor for a
// phase that has moved on refused with the reason on the page, changing
// nothing.
func TestDeskWords(t *testing.T) {
	t.Parallel()
	r := wordsGame(t, "desk-words")
	csrf := r.login(t)
	phase := r.report(t).Rules.Phase
	base := "/game/desk-words"

	_, body := r.get(t, base+"/preview?phase="+url.QueryEscape(phase))
	if !strings.Contains(body, `action="/game/desk-words/do/flavor"`) || !strings.Contains(body, `id="f-text"`) {
		t.Fatalf("the preview has no flavor form:\n%s", body)
	}
	flavor := "[i]Dawn breaks over the valley.[/i]\nThe banners are up."
	form := url.Values{"csrf": {csrf}, "phase": {phase}, "text": {flavor}, "back": {base + "/preview?phase=" + phase}}
	resp, body := r.post(t, base+"/do/flavor", form)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Open the update of phase "+phase+" in desk-words with this flavor?") || !strings.Contains(body, "Dawn breaks over the valley.") {
		t.Fatalf("the flavor's confirmation (%s):\n%s", resp.Status, body)
	}
	form.Set("confirm", "yes")
	if resp, _ := r.post(t, base+"/do/flavor", form); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != base+"/preview?phase="+phase {
		t.Fatalf("saving the flavor: %s to %q", resp.Status, resp.Header.Get("Location"))
	}
	_, body = r.get(t, base+"/preview?phase="+url.QueryEscape(phase))
	if !strings.Contains(body, "Flavor saved: it opens the update") {
		t.Errorf("no flash after saving the flavor")
	}
	if want := "[color=navy][i]Dawn breaks over the valley.[/i]\nThe banners are up.\n\n"; !strings.Contains(body, want) {
		t.Errorf("the preview does not open the update with the flavor, in the style:\n%s", body)
	}
	if !strings.Contains(body, ">[i]Dawn breaks over the valley.[/i]\nThe banners are up.</textarea>") {
		t.Errorf("the flavor form does not show the flavor written")
	}

	// say, in the thread and by PM; a marker refused.
	before := len(r.outboxItems(t))
	for _, f := range []url.Values{
		{"csrf": {csrf}, "confirm": {"yes"}, "text": {"[b]The deadline moves for the holiday.[/b]"}},
		{"csrf": {csrf}, "confirm": {"yes"}, "to": {"Bob"}, "text": {"Welcome back, Bob."}},
	} {
		if resp, _ := r.post(t, base+"/do/say", f); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("say: %s", resp.Status)
		}
	}
	r.post(t, base+"/do/say", url.Values{"csrf": {csrf}, "confirm": {"yes"}, "text": {"Hi\nforumgm·desk-words.x/round-1/3"}})
	if _, body := r.get(t, base); !strings.Contains(body, "marker line") {
		t.Errorf("a marker in the text is not refused on the page")
	}
	out := r.outboxItems(t)
	if len(out) != before+2 {
		t.Fatalf("%d items queued by the say forms, want 2", len(out)-before)
	}
	if p, pm := out[before], out[before+1]; p.Kind != "post" || !strings.Contains(p.Body, "[b]The deadline moves for the holiday.[/b]") || !strings.HasPrefix(p.Body, "[b]desk-words[/b]") ||
		pm.Kind != "pm" || pm.RecipientName != "Bob" || pm.Body != "Welcome back, Bob." {
		t.Errorf("queued: %+v\n%+v", p, pm)
	}

	// Resolved: flavor for the phase is refused, with the reason.
	r.post(t, base+"/do/resolve-now", url.Values{"csrf": {csrf}, "confirm": {"yes"}, "phase": {phase}})
	r.post(t, base+"/do/flavor", form)
	if _, body := r.get(t, base+"/preview?phase="+url.QueryEscape(phase)); !strings.Contains(body, "has moved past phase "+phase) {
		t.Errorf("flavor for a resolved phase is not refused with the reason")
	}
	n := 0
	for _, it := range r.outboxItems(t) {
		n += strings.Count(it.Body, "Dawn breaks")
	}
	if n != 1 {
		t.Errorf("the flavor is in %d messages, want the update only", n)
	}
}

// TestWordsInBrowser: the flavor form beside the preview and the say form,
// filled in and sent in Chromium, their confirmations and results, with
// screenshots (words-flavor, words-flavor-confirm, words-preview,
// words-say) when $FORUMGM_SCREENSHOTS is set.
func TestWordsInBrowser(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 3*time.Minute)
	r := wordsGame(t, "browser-words")
	phase := r.report(t).Rules.Phase
	r.loginBrowser(t, b)
	b.open(r.srv.URL+"/game/browser-words", "#controls")
	b.do("preview", chromedp.Click(chromedp.CSS("#c-preview")))
	b.wait(`!!document.getElementById('f-text')`, 30*time.Second)
	b.do("write the flavor", chromedp.Evaluate[chromedp.Void](`document.getElementById('f-text').value = "[i]Dawn breaks over the valley.[/i]"`))
	b.keyboard("the preview with its flavor form", 6)
	b.contrast("the preview with its flavor form")
	b.shotAt("#flavor", "words-flavor")
	b.do("save", chromedp.Click(chromedp.CSS("#c-flavor")))
	b.wait(`!!document.getElementById('confirm-text')`, 30*time.Second)
	if txt := eval[string](b, `document.getElementById('confirm-text').textContent`); txt != "[i]Dawn breaks over the valley.[/i]" {
		t.Errorf("the confirmation shows %q", txt)
	}
	b.shot("words-flavor-confirm")
	b.do("confirm", chromedp.Click(chromedp.CSS("#confirm")))
	b.wait(`!!document.getElementById('preview') && document.body.innerText.includes("Flavor saved")`, 30*time.Second)
	if body := eval[string](b, `document.querySelector('#preview .post .bb').innerText`); !strings.Contains(body, "Dawn breaks over the valley.") || !strings.HasPrefix(body, "browser-words — ") {
		t.Errorf("the previewed update reads %q", body)
	}
	b.contrast("the preview with the flavor")
	b.shotAt("#preview", "words-preview")

	b.open(r.srv.URL+"/game/browser-words", "#controls")
	b.do("say", chromedp.Evaluate[chromedp.Void](`document.getElementById('s-text').value = "The deadline moves for the holiday."`), chromedp.Click(chromedp.CSS("#c-say")))
	b.wait(`!!document.getElementById('confirm-text')`, 30*time.Second)
	b.do("confirm", chromedp.Click(chromedp.CSS("#confirm")))
	b.wait(`document.body.innerText.includes("Announcement queued")`, 30*time.Second)
	b.shotAt("#controls", "words-say")
	found := false
	for _, it := range r.outboxItems(t) {
		found = found || (it.Kind == "post" && strings.Contains(it.Body, "The deadline moves for the holiday."))
	}
	if !found {
		t.Error("the announcement sent from the browser is not queued")
	}
	if ph := r.report(t).Rules.Phase; ph != phase {
		t.Errorf("the phase moved: %s → %s", phase, ph)
	}
}
