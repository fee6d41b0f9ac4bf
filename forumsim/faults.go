package forumsim

import (
	"bytes"
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FaultKind names one way the board (or the network in front of it) fails.
type FaultKind string

// The fault kinds. Each is injected on one request that a FaultRule matches.
const (
	// Fault5xx answers with Status (default 503) and a short error page;
	// the request is not carried out.
	Fault5xx FaultKind = "5xx"
	// Fault429 answers 429 with Retry-After in seconds (RetryAfter,
	// default 30 s); Fault429Date the same with Retry-After as an HTTP
	// date on the board's clock.
	Fault429     FaultKind = "429"
	Fault429Date FaultKind = "429-date"
	// FaultSlow carries the request out after Delay (default 2 s) of real
	// time, so clients' timeouts can be tried.
	FaultSlow FaultKind = "slow"
	// FaultSlowApply carries the request out after Delay (default 2 s) of
	// real time whether or not the client is still there, then answers if
	// it can: a board still working on a submission whose client hung up
	// (PHP goes on with a script whose client went away until it writes;
	// SMF's Post2 sets ignore_user_abort). A cancelled request is not one
	// the board never got.
	FaultSlowApply FaultKind = "slow-apply"
	// FaultReset closes the connection without an answer; the request is
	// not carried out.
	FaultReset FaultKind = "reset"
	// FaultTruncate serves a page cut short but well formed: on a topic
	// page the last post (and the footer after it) is missing and the
	// open elements are closed, so an HTML parser sees nothing wrong; on
	// other pages the cut is halfway, at a tag, and closed the same way.
	FaultTruncate FaultKind = "truncate"
	// FaultCut serves the first half of the page's bytes as if it were
	// all of it (a raw cut: nothing closed).
	FaultCut FaultKind = "cut"
	// FaultLost carries the request out (a POST is taken) and then
	// answers with Status (default 502) instead: the confirmation is
	// lost. FaultLostReset carries it out and closes the connection.
	FaultLost      FaultKind = "lost"
	FaultLostReset FaultKind = "lost-reset"
	// FaultSession ends the request's session before it is served, as
	// a session purge would (a "remember me" key still revives it).
	FaultSession FaultKind = "expire-session"
	// FaultToken makes the request's form token count as expired.
	FaultToken FaultKind = "expire-token"
	// FaultFlood refuses the request's post or PM with the flood notice,
	// whatever the flood interval.
	FaultFlood FaultKind = "flood"
	// FaultDown is logged for requests refused while the board is down
	// (DownFor); it is not a rule kind.
	FaultDown FaultKind = "down"
)

// FaultKinds lists the kinds a FaultRule may have.
var FaultKinds = []FaultKind{Fault5xx, Fault429, Fault429Date, FaultSlow, FaultSlowApply, FaultReset, FaultTruncate,
	FaultCut, FaultLost, FaultLostReset, FaultSession, FaultToken, FaultFlood}

// FaultRule injects one kind of fault into the requests it matches.
type FaultRule struct {
	Kind FaultKind
	// Method ("GET", "POST"; empty: any) and Path (a substring of the
	// request URI, such as "posting.php" or "mode=reply"; empty: any)
	// pick the requests.
	Method, Path string
	// Agent (a substring of the request's User-Agent; empty: any) picks
	// one client's requests: the bot's ("forumgm/") apart from the
	// simulated players' on the same board.
	Agent string
	// Rate is the chance (0 to 1) a matching request gets the fault,
	// drawn from the fault seed; 0 means every matching request.
	Rate float64
	// Count ends the rule after that many faults (0: never). With Rate 0
	// it is a schedule: the next Count matching requests.
	Count int
	// Skip lets the first Skip matching requests through untouched.
	Skip int
	// Status for 5xx and lost; RetryAfter for 429 (whole seconds on the
	// wire); Delay for slow and slow-apply.
	Status     int
	RetryAfter time.Duration
	Delay      time.Duration

	seen, fired int
}

// FaultEvent is one injected fault, in the fault log.
type FaultEvent struct {
	Time   time.Time // on the board's clock
	Kind   FaultKind
	Method string
	URI    string
}

// FaultStats are the faults injected so far.
type FaultStats struct {
	Requests int               // requests seen by the fault layer
	Total    int               // faults injected
	ByKind   map[FaultKind]int // faults injected per kind
	Log      []FaultEvent      // every fault, oldest first (the last 10000)
}

// faults is the Server's fault state, under its own lock so tests change
// it while requests are served.
type faults struct {
	mu        sync.Mutex
	rng       *rand.Rand
	rules     []*FaultRule
	downUntil time.Time
	requests  int
	byKind    map[FaultKind]int
	log       []FaultEvent
}

const maxFaultLog = 10000

// SetFaults replaces the fault rules and reseeds the random draws, so a
// run with the same seed and requests injects the same faults.
func (s *Server) SetFaults(seed int64, rules ...FaultRule) error {
	for _, r := range rules {
		if err := r.validate(); err != nil {
			return err
		}
	}
	f := &s.flt
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rng = rand.New(rand.NewSource(seed))
	f.rules = nil
	for _, r := range rules {
		r := r
		r.seen, r.fired = 0, 0
		f.rules = append(f.rules, &r)
	}
	return nil
}

// AddFault adds a rule to those in force (a schedule for the next
// requests, typically).
func (s *Server) AddFault(r FaultRule) error {
	if err := r.validate(); err != nil {
		return err
	}
	f := &s.flt
	f.mu.Lock()
	defer f.mu.Unlock()
	r.seen, r.fired = 0, 0
	f.rules = append(f.rules, &r)
	return nil
}

// ClearFaults removes every rule and ends a downtime; the stats stay.
func (s *Server) ClearFaults() {
	f := &s.flt
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = nil
	f.downUntil = time.Time{}
}

// DownFor takes the board down for d from now on its clock: every request
// gets phpBB's "board is currently disabled" page with HTTP 503 until the
// clock passes it. With a clock.Fake, an hour down costs no real time.
func (s *Server) DownFor(d time.Duration) {
	f := &s.flt
	f.mu.Lock()
	defer f.mu.Unlock()
	f.downUntil = s.clk.Now().Add(d)
}

// DownUntil is when the board comes back (zero: it is not down).
func (s *Server) DownUntil() time.Time {
	f := &s.flt
	f.mu.Lock()
	defer f.mu.Unlock()
	if !s.clk.Now().Before(f.downUntil) {
		return time.Time{}
	}
	return f.downUntil
}

// Faults reports the faults injected so far.
func (s *Server) Faults() FaultStats {
	f := &s.flt
	f.mu.Lock()
	defer f.mu.Unlock()
	st := FaultStats{Requests: f.requests, ByKind: map[FaultKind]int{}, Log: append([]FaultEvent(nil), f.log...)}
	for k, n := range f.byKind {
		st.ByKind[k] = n
		st.Total += n
	}
	return st
}

func (r FaultRule) validate() error {
	known := r.Kind != FaultDown && r.Kind != ""
	if known {
		known = false
		for _, k := range FaultKinds {
			known = known || k == r.Kind
		}
	}
	switch {
	case !known:
		return fmt.Errorf("forumsim: unknown fault kind %q", r.Kind)
	case r.Rate < 0 || r.Rate > 1:
		return fmt.Errorf("forumsim: fault %s: rate %v not within 0 to 1", r.Kind, r.Rate)
	case r.Count < 0 || r.Skip < 0 || r.Delay < 0 || r.RetryAfter < 0:
		return fmt.Errorf("forumsim: fault %s: negative count, skip, delay or retry", r.Kind)
	case r.Status != 0 && (r.Status < 400 || r.Status > 599):
		return fmt.Errorf("forumsim: fault %s: status %d is not an error status", r.Kind, r.Status)
	}
	return nil
}

// ParseFaultRule reads the `forumgm sim --fault` form:
// kind[,rate=0.1][,count=3][,skip=1][,method=POST][,path=mode=reply][,agent=forumgm/]
// [,status=502][,retry=30s][,delay=2s].
func ParseFaultRule(spec string) (FaultRule, error) {
	parts := strings.Split(spec, ",")
	r := FaultRule{Kind: FaultKind(strings.TrimSpace(parts[0]))}
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			return r, fmt.Errorf("fault %q: %q is not key=value", spec, p)
		}
		var err error
		switch k {
		case "rate":
			r.Rate, err = strconv.ParseFloat(v, 64)
		case "count":
			r.Count, err = strconv.Atoi(v)
		case "skip":
			r.Skip, err = strconv.Atoi(v)
		case "status":
			r.Status, err = strconv.Atoi(v)
		case "method":
			r.Method = strings.ToUpper(v)
		case "path":
			r.Path = v
		case "agent":
			r.Agent = v
		case "retry":
			r.RetryAfter, err = time.ParseDuration(v)
		case "delay":
			r.Delay, err = time.ParseDuration(v)
		default:
			err = fmt.Errorf("unknown key %q", k)
		}
		if err != nil {
			return r, fmt.Errorf("fault %q: %s: %v", spec, k, err)
		}
	}
	if err := r.validate(); err != nil {
		return r, fmt.Errorf("fault %q: %w", spec, err)
	}
	return r, nil
}

// pick decides the request's fault (nil: none) and logs it; a board that
// is down answers for itself.
func (s *Server) pick(r *http.Request) (*FaultRule, bool) {
	f := &s.flt
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	now := s.clk.Now()
	if now.Before(f.downUntil) {
		f.record(now, FaultDown, r)
		return nil, true
	}
	for _, rule := range f.rules {
		if rule.Count > 0 && rule.fired >= rule.Count {
			continue
		}
		if rule.Method != "" && !strings.EqualFold(rule.Method, r.Method) {
			continue
		}
		if rule.Path != "" && !strings.Contains(r.URL.RequestURI(), rule.Path) {
			continue
		}
		if rule.Agent != "" && !strings.Contains(r.UserAgent(), rule.Agent) {
			continue
		}
		rule.seen++
		if rule.seen <= rule.Skip {
			continue
		}
		if rule.Rate > 0 && rule.Rate < 1 {
			if f.rng == nil {
				f.rng = rand.New(rand.NewSource(1))
			}
			if f.rng.Float64() >= rule.Rate {
				continue
			}
		}
		rule.fired++
		f.record(now, rule.Kind, r)
		c := *rule
		return &c, false
	}
	return nil, false
}

func (f *faults) record(now time.Time, k FaultKind, r *http.Request) {
	if f.byKind == nil {
		f.byKind = map[FaultKind]int{}
	}
	f.byKind[k]++
	f.log = append(f.log, FaultEvent{Time: now, Kind: k, Method: r.Method, URI: r.URL.RequestURI()})
	if len(f.log) > maxFaultLog {
		f.log = append(f.log[:0:0], f.log[len(f.log)-maxFaultLog:]...)
	}
}

// reqFaults are the faults the handlers themselves play out (they hold
// s.mu for the request, so a field on the Server is safe).
type reqFaults struct {
	badToken, flood, truncate bool
}

// ServeHTTP serves the board through the fault layer.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rule, down := s.pick(r)
	if down {
		s.serveDown(w, r)
		return
	}
	if rule == nil {
		s.serve(w, r, reqFaults{})
		return
	}
	switch rule.Kind {
	case Fault5xx:
		status := rule.Status
		if status == 0 {
			status = http.StatusServiceUnavailable
		}
		errorPage(w, status)
	case Fault429, Fault429Date:
		d := rule.RetryAfter
		if d <= 0 {
			d = 30 * time.Second
		}
		secs := int64((d + time.Second - 1) / time.Second)
		if rule.Kind == Fault429 {
			w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
		} else {
			w.Header().Set("Retry-After", s.clk.Now().Add(time.Duration(secs)*time.Second).UTC().Format(http.TimeFormat))
		}
		errorPage(w, http.StatusTooManyRequests)
	case FaultSlow:
		d := rule.Delay
		if d <= 0 {
			d = 2 * time.Second
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
		s.serve(w, r, reqFaults{})
	case FaultSlowApply:
		d := rule.Delay
		if d <= 0 {
			d = 2 * time.Second
		}
		// The form is read first: once the client has gone, its body may
		// no longer be there to read.
		_ = r.ParseForm()
		time.Sleep(d)
		s.serve(w, r, reqFaults{})
	case FaultReset:
		hangUp(w)
	case FaultSession:
		s.expireSession(r)
		s.serve(w, r, reqFaults{})
	case FaultToken:
		s.serve(w, r, reqFaults{badToken: true})
	case FaultFlood:
		s.serve(w, r, reqFaults{flood: true})
	case FaultTruncate, FaultCut, FaultLost, FaultLostReset:
		rec := &recorder{header: http.Header{}, status: http.StatusOK}
		s.serve(rec, r, reqFaults{truncate: rule.Kind == FaultTruncate})
		switch rule.Kind {
		case FaultLost:
			status := rule.Status
			if status == 0 {
				status = http.StatusBadGateway
			}
			errorPage(w, status)
			return
		case FaultLostReset:
			hangUp(w)
			return
		}
		body := rec.body.Bytes()
		if rule.Kind == FaultCut {
			body = body[:len(body)/2]
		} else {
			body = truncatePage(body)
		}
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.status)
		_, _ = w.Write(body)
	}
}

// serveDown is phpBB's board_disable page (served with 503).
func (s *Server) serveDown(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	se := s.session(w, r)
	s.message(w, r, se, http.StatusServiceUnavailable, e(MsgBoardDisabled), "")
}

// MsgBoardDisabled is phpBB's BOARD_DISABLE text.
const MsgBoardDisabled = "Sorry but this board is currently unavailable."

// expireSession forgets the request's session (cookie or sid parameter).
func (s *Server) expireSession(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, err := r.Cookie(CookieSession); err == nil {
		delete(s.sessions, c.Value)
	}
	if sid := r.URL.Query().Get("sid"); sid != "" {
		delete(s.sessions, sid)
	}
}

// errorPage is what a proxy or a failing PHP shows: not a board page.
func errorPage(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html><head><title>%d %s</title></head><body><h1>%s</h1></body></html>\n",
		status, http.StatusText(status), http.StatusText(status))
}

// hangUp closes the connection without an answer (a reset, as the client
// sees it).
func hangUp(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler) // net/http closes the connection
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // an RST, not a polite FIN
	}
	_ = conn.Close()
}

// recorder keeps a handler's answer so a fault can change it.
type recorder struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.body.Write(b)
}

// truncatePage cuts a page short and closes it: before the last post of
// a topic page (the handler marked where with truncateMark), else halfway
// through the page's content (after the header, so the page still shows
// who is logged in), at a tag. What follows the cut (the footer, the bottom
// pagination) is gone.
func truncatePage(body []byte) []byte {
	cut := bytes.LastIndex(body, []byte(truncateMark))
	if cut < 0 {
		from := bytes.Index(body, []byte(`<div id="page-body"`))
		to := bytes.Index(body, []byte(`<div id="page-footer"`))
		if from < 0 || to < from {
			from, to = 0, len(body)
		}
		cut = from + (to-from)/2
		if i := bytes.LastIndexByte(body[:cut], '<'); i > from {
			cut = i
		}
	}
	var b bytes.Buffer
	b.Write(body[:cut])
	b.WriteString("</div>\n</div>\n</body>\n</html>\n")
	return b.Bytes()
}

// truncateMark is the comment a topic page carries before its last post
// when a truncation is asked for (never otherwise).
const truncateMark = "<!-- forumsim:truncate -->"
