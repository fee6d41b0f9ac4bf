package forumsim

import (
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Cookie names: phpBB's default cookie_name "phpbb3" plus _u, _k, _sid.
const (
	CookieUser    = "phpbb3_u"
	CookieKey     = "phpbb3_k"
	CookieSession = "phpbb3_sid"
)

type session struct {
	id         string
	userID     int // 1 = guest
	last       time.Time
	confirmKey string // the pending delete confirmation (phpBB user_last_confirm_key)
}

func randHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}

func (se *session) registered() bool { return se.userID != 1 }

// session finds the request's session (cookie sid, else the sid query
// parameter), revives a member from an autologin key when the session is
// gone, or starts a guest session. Caller holds s.mu.
func (s *Server) session(w http.ResponseWriter, r *http.Request) *session {
	now := s.now()
	if s.requests%256 == 0 {
		// Crawlers without cookies leave a guest session per request.
		for id, se := range s.sessions {
			if now.Sub(se.last) > s.opt.SessionLength {
				delete(s.sessions, id)
			}
		}
	}
	sid := ""
	if c, err := r.Cookie(CookieSession); err == nil {
		sid = c.Value
	}
	if sid == "" {
		sid = r.URL.Query().Get("sid")
	}
	if se := s.sessions[sid]; se != nil {
		if now.Sub(se.last) <= s.opt.SessionLength && (se.userID == 1 || s.users[se.userID] != nil) {
			se.last = now
			return se
		}
		delete(s.sessions, sid)
	}
	// Autologin ("Remember me"): the _u and _k cookies start a new session.
	if cu, err := r.Cookie(CookieUser); err == nil {
		if ck, err := r.Cookie(CookieKey); err == nil && ck.Value != "" {
			uid, _ := strconv.Atoi(cu.Value)
			if owner, ok := s.keys[ck.Value]; ok && owner == uid && s.users[uid] != nil {
				return s.newSession(w, uid, ck.Value)
			}
		}
	}
	return s.newSession(w, 1, "")
}

// newSession starts a session and sets the three cookies.
func (s *Server) newSession(w http.ResponseWriter, uid int, key string) *session {
	se := &session{id: randHex(16), userID: uid, last: s.now()}
	s.sessions[se.id] = se
	exp := s.now().Add(365 * 24 * time.Hour)
	for name, v := range map[string]string{CookieUser: strconv.Itoa(uid), CookieKey: key, CookieSession: se.id} {
		http.SetCookie(w, &http.Cookie{Name: name, Value: v, Path: "/", Expires: exp, HttpOnly: true})
	}
	return se
}

// endSession logs a session out (its autologin key too) and starts a guest one.
func (s *Server) endSession(w http.ResponseWriter, se *session, r *http.Request) *session {
	delete(s.sessions, se.id)
	if ck, err := r.Cookie(CookieKey); err == nil {
		delete(s.keys, ck.Value)
	}
	return s.newSession(w, 1, "")
}

func (s *Server) salt(se *session) string {
	if u := s.users[se.userID]; u != nil {
		return u.formSalt
	}
	return s.guest.formSalt
}

// token is phpBB's add_form_key: sha1(creation_time . form_salt . form_name
// . sid). phpBB binds guests' tokens to the session id; here members' are
// bound too, so a token never outlives its session.
func (s *Server) token(se *session, form string, created int64) string {
	h := sha1.Sum([]byte(fmt.Sprintf("%d%s%s%s", created, s.salt(se), form, se.id)))
	return hex.EncodeToString(h[:])
}

// tokenFields are the hidden inputs S_FORM_TOKEN expands to.
func (s *Server) tokenFields(se *session, form string) string {
	now := s.now().Unix()
	return fmt.Sprintf(`<input type="hidden" name="creation_time" value="%d" />`+"\n"+
		`<input type="hidden" name="form_token" value="%s" />`+"\n", now, s.token(se, form, now))
}

// checkToken is check_form_key: the token must match, be at least one
// second old (phpBB's `$diff && $diff <= $timespan`), not expired, and not
// used before. It returns the key to mark used once the submission succeeds.
func (s *Server) checkToken(se *session, form string, r *http.Request) (string, bool) {
	created, err := strconv.ParseInt(r.PostFormValue("creation_time"), 10, 64)
	tok := r.PostFormValue("form_token")
	if err != nil || tok == "" || s.fx.badToken {
		return "", false
	}
	diff := s.now().Unix() - created
	if diff <= 0 || time.Duration(diff)*time.Second > s.opt.TokenLifetime {
		return "", false
	}
	if tok != s.token(se, form, created) {
		return "", false
	}
	key := form + ":" + tok
	if _, used := s.used[key]; used && !s.opt.TokensAgain {
		return "", false
	}
	return key, true
}

// useToken marks a token pair spent (phpBB's posting lock), pruning old ones.
func (s *Server) useToken(key string) {
	now := s.now()
	for k, t := range s.used {
		if now.Sub(t) > s.opt.TokenLifetime+time.Minute {
			delete(s.used, k)
		}
	}
	s.used[key] = now
}
