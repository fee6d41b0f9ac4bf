package forumsim

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// rawAnswer is an answer read without the client's checks (a fault may
// break the page or the connection on purpose).
type rawAnswer struct {
	status int
	header http.Header
	body   string
	err    error
}

func (c *client) raw(method, rel string, v url.Values) rawAnswer {
	c.b.t.Helper()
	var body io.Reader
	if v != nil {
		body = strings.NewReader(v.Encode())
	}
	u := rel
	if !strings.HasPrefix(rel, "http") {
		u = c.b.ts.URL + "/" + rel
	}
	req, _ := http.NewRequest(method, u, body)
	if v != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return rawAnswer{err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return rawAnswer{status: resp.StatusCode, header: resp.Header, body: string(data), err: err}
}

// replyValues is a filled-in reply form, ready to submit a second later.
func (c *client) replyValues(tid int, msg string) (string, url.Values) {
	c.b.t.Helper()
	act, v := c.replyForm(tid)
	vals := urlValues(v)
	vals.Set("message", msg)
	vals.Set("post", "Submit")
	c.b.clk.Advance(time.Second)
	return act, vals
}

func postIDsIn(body string) []string {
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		return nil
	}
	var ids []string
	for _, n := range findAll(doc, func(n *html.Node) bool { return n.Data == "div" && hasClass(n, "post") }) {
		ids = append(ids, attr(n, "id"))
	}
	return ids
}

func TestFaultKinds(t *testing.T) {
	type env struct {
		b   *board
		c   *client
		tid int
	}
	view := func(e env) rawAnswer { return e.c.raw("GET", fmt.Sprintf("viewtopic.php?t=%d", e.tid), nil) }
	reply := func(e env) rawAnswer {
		act, v := e.c.replyValues(e.tid, "my reply")
		return e.c.raw("POST", act, v)
	}
	posts := func(e env) int { return len(e.b.s.Posts(e.tid)) }
	tests := []struct {
		name  string
		rule  FaultRule
		do    func(env) rawAnswer
		check func(t *testing.T, e env, a rawAnswer)
	}{
		{"5xx default", FaultRule{Kind: Fault5xx}, view, func(t *testing.T, e env, a rawAnswer) {
			if a.status != 503 || strings.Contains(a.body, "page-footer") {
				t.Errorf("status %d, want a bare 503", a.status)
			}
		}},
		{"5xx on a reply is not carried out", FaultRule{Kind: Fault5xx, Method: "POST", Status: 500}, reply, func(t *testing.T, e env, a rawAnswer) {
			if a.status != 500 || posts(e) != 3 {
				t.Errorf("status %d, %d posts; want 500 and 3", a.status, posts(e))
			}
		}},
		{"agent: the client it names", FaultRule{Kind: Fault5xx, Agent: "Go-http-client/"}, view, func(t *testing.T, e env, a rawAnswer) {
			if a.status != 503 {
				t.Errorf("status %d, want 503", a.status)
			}
		}},
		{"429 in seconds", FaultRule{Kind: Fault429, RetryAfter: 90 * time.Second}, view, func(t *testing.T, e env, a rawAnswer) {
			if a.status != 429 || a.header.Get("Retry-After") != "90" {
				t.Errorf("status %d, Retry-After %q", a.status, a.header.Get("Retry-After"))
			}
		}},
		{"429 as a date", FaultRule{Kind: Fault429Date}, view, func(t *testing.T, e env, a rawAnswer) {
			when, err := http.ParseTime(a.header.Get("Retry-After"))
			if a.status != 429 || err != nil || !when.Equal(e.b.clk.Now().Add(30*time.Second)) {
				t.Errorf("status %d, Retry-After %q (%v), want the board's now + 30 s", a.status, a.header.Get("Retry-After"), err)
			}
		}},
		{"slow", FaultRule{Kind: FaultSlow, Delay: 150 * time.Millisecond}, func(e env) rawAnswer {
			start := time.Now()
			a := view(e)
			if d := time.Since(start); d < 150*time.Millisecond {
				a.err = fmt.Errorf("answered after %v", d)
			}
			return a
		}, func(t *testing.T, e env, a rawAnswer) {
			if a.err != nil || a.status != 200 || len(postIDsIn(a.body)) != 3 {
				t.Errorf("status %d, err %v", a.status, a.err)
			}
		}},
		{"slow apply of a reply whose client gave up", FaultRule{Kind: FaultSlowApply, Method: "POST", Delay: 300 * time.Millisecond}, func(e env) rawAnswer {
			e.c.hc.Timeout = 50 * time.Millisecond
			defer func() { e.c.hc.Timeout = 0 }()
			a := reply(e)
			if n := posts(e); n != 3 {
				a.err = fmt.Errorf("%d posts as the client gave up, want 3 (not applied yet)", n)
			}
			return a
		}, func(t *testing.T, e env, a rawAnswer) {
			if a.err == nil || !strings.Contains(a.err.Error(), "Timeout") {
				t.Errorf("err %v, want the client's timeout", a.err)
			}
			deadline := time.Now().Add(5 * time.Second)
			for posts(e) != 4 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if n := posts(e); n != 4 {
				t.Errorf("%d posts after the delay, want the reply taken though its client gave up", n)
			}
		}},
		{"reset", FaultRule{Kind: FaultReset}, func(e env) rawAnswer {
			// Go's client retries a GET on a reused connection that
			// breaks: a fresh connection shows the reset itself.
			e.c.hc.Transport = &http.Transport{DisableKeepAlives: true}
			defer func() { e.c.hc.Transport = nil }()
			return view(e)
		}, func(t *testing.T, e env, a rawAnswer) {
			if a.err == nil {
				t.Errorf("status %d, want a broken connection", a.status)
			}
		}},
		{"reset on a reply is not carried out", FaultRule{Kind: FaultReset, Method: "POST"}, reply, func(t *testing.T, e env, a rawAnswer) {
			if a.err == nil || posts(e) != 3 {
				t.Errorf("err %v, %d posts", a.err, posts(e))
			}
		}},
		{"truncate a topic page", FaultRule{Kind: FaultTruncate, Path: "viewtopic.php"}, view, func(t *testing.T, e env, a rawAnswer) {
			ids := postIDsIn(a.body)
			if a.status != 200 || fmt.Sprint(ids) != "[p1 p2]" {
				t.Errorf("status %d, posts %v; want p1 p2 only", a.status, ids)
			}
			if strings.Contains(a.body, "page-footer") || strings.Contains(a.body, truncateMark) || !strings.HasSuffix(a.body, "</html>\n") {
				t.Errorf("want no footer, no mark, closed html:\n%s", a.body[max(0, len(a.body)-300):])
			}
		}},
		{"truncate another page", FaultRule{Kind: FaultTruncate, Path: "index.php"}, func(e env) rawAnswer { return e.c.raw("GET", "index.php", nil) }, func(t *testing.T, e env, a rawAnswer) {
			if a.status != 200 || strings.Contains(a.body, "page-footer") || !strings.HasSuffix(a.body, "</html>\n") {
				t.Errorf("status %d:\n%s", a.status, a.body)
			}
		}},
		{"cut", FaultRule{Kind: FaultCut}, view, func(t *testing.T, e env, a rawAnswer) {
			if a.err != nil || a.status != 200 || strings.Contains(a.body, "</html>") || len(postIDsIn(a.body)) >= 3 {
				t.Errorf("status %d, err %v, %d bytes, posts %v", a.status, a.err, len(a.body), postIDsIn(a.body))
			}
		}},
		{"lost confirmation", FaultRule{Kind: FaultLost, Method: "POST", Path: "mode=reply"}, reply, func(t *testing.T, e env, a rawAnswer) {
			if a.status != 502 || posts(e) != 4 {
				t.Errorf("status %d, %d posts; want 502 and the reply taken", a.status, posts(e))
			}
		}},
		{"lost confirmation by reset", FaultRule{Kind: FaultLostReset, Method: "POST"}, reply, func(t *testing.T, e env, a rawAnswer) {
			if a.err == nil || posts(e) != 4 {
				t.Errorf("err %v, %d posts; want a reset and the reply taken", a.err, posts(e))
			}
		}},
		{"expired session", FaultRule{Kind: FaultSession, Path: "viewtopic.php"}, view, func(t *testing.T, e env, a rawAnswer) {
			if a.status != 200 || strings.Contains(a.body, "mode=logout") {
				t.Errorf("status %d, still logged in", a.status)
			}
		}},
		{"expired token", FaultRule{Kind: FaultToken, Method: "POST"}, reply, func(t *testing.T, e env, a rawAnswer) {
			if a.status != 200 || !strings.Contains(a.body, MsgFormInvalid) || posts(e) != 3 {
				t.Errorf("status %d, %d posts; want the form again with %q", a.status, posts(e), MsgFormInvalid)
			}
		}},
		{"flood refusal", FaultRule{Kind: FaultFlood, Method: "POST"}, reply, func(t *testing.T, e env, a rawAnswer) {
			if a.status != 200 || !strings.Contains(a.body, MsgFlood) || posts(e) != 3 {
				t.Errorf("status %d, %d posts; want the form again with %q", a.status, posts(e), MsgFlood)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBoard(t, Options{FloodInterval: -1})
			e := env{b: b, c: b.client(), tid: b.thread(3)}
			e.c.login("Alice")
			rule := tc.rule
			rule.Count = 1
			if err := b.s.AddFault(rule); err != nil {
				t.Fatal(err)
			}
			before := b.s.Faults().Requests
			a := tc.do(e)
			tc.check(t, e, a)
			st := b.s.Faults()
			if st.ByKind[tc.rule.Kind] != 1 || st.Total != 1 || len(st.Log) != 1 || st.Log[0].Kind != tc.rule.Kind {
				t.Errorf("stats %+v, want one %s", st, tc.rule.Kind)
			}
			if st.Requests <= before {
				t.Errorf("requests %d, before %d", st.Requests, before)
			}
			// Count 1: the next request is served as usual.
			if a := view(e); a.err != nil || a.status != 200 || !strings.Contains(a.body, "page-footer") {
				t.Errorf("after the fault: status %d, err %v", a.status, a.err)
			}
			if b.s.Faults().Total != 1 {
				t.Errorf("a scheduled fault of count 1 fired again")
			}
		})
	}
}

// TestFaultAgent: a rule naming one client's User-Agent leaves another
// client's requests alone (the simulated players' beside the bot's).
func TestFaultAgent(t *testing.T) {
	b := newBoard(t, Options{FloodInterval: -1})
	c := b.client()
	tid := b.thread(3)
	c.login("Alice")
	if err := b.s.AddFault(FaultRule{Kind: Fault5xx, Agent: "forumgm/"}); err != nil {
		t.Fatal(err)
	}
	if a := c.raw("GET", fmt.Sprintf("viewtopic.php?t=%d", tid), nil); a.err != nil || a.status != 200 {
		t.Errorf("status %d (%v) for a client the rule does not name, want 200", a.status, a.err)
	}
	if n := b.s.Faults().Total; n != 0 {
		t.Errorf("%d faults, want none", n)
	}
}

// TestFaultSchedule: skip and count pick exactly which matching requests
// fail; other requests are not counted.
func TestFaultSchedule(t *testing.T) {
	b := newBoard(t, Options{})
	tid := b.thread(2)
	c := b.client()
	if err := b.s.SetFaults(1, FaultRule{Kind: Fault5xx, Path: "viewtopic.php", Skip: 1, Count: 2}); err != nil {
		t.Fatal(err)
	}
	var got []int
	for i := 0; i < 5; i++ {
		c.raw("GET", "index.php", nil) // not matched
		got = append(got, c.raw("GET", fmt.Sprintf("viewtopic.php?t=%d", tid), nil).status)
	}
	if fmt.Sprint(got) != "[200 503 503 200 200]" {
		t.Errorf("statuses %v", got)
	}
}

// TestFaultRate: a rate draws from the seed, so the same seed and requests
// give the same faults, another seed others; the count caps them.
func TestFaultRate(t *testing.T) {
	run := func(seed int64, count int) string {
		b := newBoard(t, Options{})
		c := b.client()
		if err := b.s.SetFaults(seed, FaultRule{Kind: Fault5xx, Rate: 0.3, Count: count}); err != nil {
			t.Fatal(err)
		}
		var s strings.Builder
		for i := 0; i < 100; i++ {
			if c.raw("GET", "index.php", nil).status == 503 {
				s.WriteByte('x')
			} else {
				s.WriteByte('.')
			}
		}
		if n := strings.Count(s.String(), "x"); n != b.s.Faults().ByKind[Fault5xx] {
			t.Errorf("%d faults seen, %d counted", n, b.s.Faults().ByKind[Fault5xx])
		}
		return s.String()
	}
	a, again, other := run(7, 0), run(7, 0), run(8, 0)
	if a != again {
		t.Errorf("same seed, different faults:\n%s\n%s", a, again)
	}
	if a == other {
		t.Errorf("seeds 7 and 8 gave the same faults")
	}
	if n := strings.Count(a, "x"); n < 15 || n > 45 {
		t.Errorf("%d faults in 100 at rate 0.3", n)
	}
	if n := strings.Count(run(7, 5), "x"); n != 5 {
		t.Errorf("count 5: %d faults", n)
	}
}

// TestDownFor: an hour down on the board's clock costs no real time.
func TestDownFor(t *testing.T) {
	b := newBoard(t, Options{})
	tid := b.thread(2)
	c := b.client()
	start := time.Now()
	b.s.DownFor(time.Hour)
	if !b.s.DownUntil().Equal(t0.Add(time.Minute).Add(time.Hour)) {
		t.Errorf("down until %v", b.s.DownUntil())
	}
	for _, step := range []struct {
		advance time.Duration
		want    int
	}{{0, 503}, {59 * time.Minute, 503}, {59 * time.Second, 503}, {time.Second, 200}} {
		b.clk.Advance(step.advance)
		a := c.raw("GET", fmt.Sprintf("viewtopic.php?t=%d", tid), nil)
		if a.status != step.want {
			t.Errorf("after %v more: status %d, want %d", step.advance, a.status, step.want)
		}
		if a.status == 503 && !strings.Contains(a.body, MsgBoardDisabled) {
			t.Errorf("down page:\n%s", a.body)
		}
	}
	if st := b.s.Faults(); st.ByKind[FaultDown] != 3 {
		t.Errorf("down answers counted %d, want 3", st.ByKind[FaultDown])
	}
	if !b.s.DownUntil().IsZero() {
		t.Error("still down")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("an hour down took %v of real time", d)
	}
	// ClearFaults ends a downtime at once.
	b.s.DownFor(time.Hour)
	b.s.ClearFaults()
	if a := c.raw("GET", "index.php", nil); a.status != 200 {
		t.Errorf("after ClearFaults: %d", a.status)
	}
}

// TestFaultsWhileServing: rules change while requests run (go test -race).
func TestFaultsWhileServing(t *testing.T) {
	b := newBoard(t, Options{})
	b.thread(2)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := b.client()
			for i := 0; i < 25; i++ {
				req, _ := http.NewRequest("GET", b.ts.URL+"/index.php", nil)
				if resp, err := c.hc.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	for i := 0; i < 25; i++ {
		_ = b.s.AddFault(FaultRule{Kind: Fault5xx, Count: 1})
		_ = b.s.Faults()
		if i%10 == 0 {
			b.s.ClearFaults()
		}
	}
	wg.Wait()
	if st := b.s.Faults(); st.Requests != 100 {
		t.Errorf("requests %d, want 100", st.Requests)
	}
}

func TestParseFaultRule(t *testing.T) {
	tests := []struct {
		spec    string
		want    FaultRule
		wantErr string
	}{
		{"5xx", FaultRule{Kind: Fault5xx}, ""},
		{"429-date,rate=0.25,retry=2m,method=post,path=mode=reply", FaultRule{Kind: Fault429Date, Rate: 0.25, RetryAfter: 2 * time.Minute, Method: "POST", Path: "mode=reply"}, ""},
		{"lost,count=2,skip=1,status=504", FaultRule{Kind: FaultLost, Count: 2, Skip: 1, Status: 504}, ""},
		{"slow,delay=3s", FaultRule{Kind: FaultSlow, Delay: 3 * time.Second}, ""},
		{"slow-apply,method=post,delay=4s", FaultRule{Kind: FaultSlowApply, Method: "POST", Delay: 4 * time.Second}, ""},
		{"slow-apply,method=post,path=mode=compose,agent=forumgm/,delay=7s", FaultRule{Kind: FaultSlowApply, Method: "POST", Path: "mode=compose", Agent: "forumgm/", Delay: 7 * time.Second}, ""},
		{"meltdown", FaultRule{}, "unknown fault kind"},
		{"down", FaultRule{}, "unknown fault kind"},
		{"5xx,rate=2", FaultRule{}, "not within 0 to 1"},
		{"5xx,status=200", FaultRule{}, "not an error status"},
		{"5xx,count", FaultRule{}, "not key=value"},
		{"5xx,colour=red", FaultRule{}, "unknown key"},
		{"slow,delay=soon", FaultRule{}, "delay"},
	}
	for _, tc := range tests {
		got, err := ParseFaultRule(tc.spec)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: err %v, want %q", tc.spec, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.spec, got, err, tc.want)
		}
	}
}
