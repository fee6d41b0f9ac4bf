package smftest

import (
	"strings"
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestLoginRefusal: on a real SMF 2.1.4 a wrong password is the board's
// refusal ("Password incorrect"), and so is the redirect to its password
// reminder SMF answers a session's third wrong password with
// (failed_login_threshold): both hold the bot's logins back; once the
// password file is fixed the bot logs in at its first attempt after the
// wait (SMF keeps no captcha after failed logins: its own count is per
// session and resets on a login).
func TestLoginRefusal(t *testing.T) {
	t.Parallel()
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: []string{"Alice"}})
	log := boardtest.CheckLoginRefusal(t, b, boardtest.LoginLimits{Wrong: 4})
	var sent []string
	for _, a := range log {
		if a.Requests > 0 && a.Err != nil {
			sent = append(sent, a.Err.Error())
		}
	}
	for i, want := range []string{"password incorrect", "password incorrect", "action=reminder", "action=reminder"} {
		if i >= len(sent) || !strings.Contains(strings.ToLower(sent[i]), want) {
			t.Errorf("refusals %q: number %d should hold the board's %q", sent, i+1, want)
		}
	}
}

// TestLoginStaleToken: SMF's login form token is kept in the guest's
// session; the session ends between the form and its submission: an
// ordinary failure, not a refusal, and the next attempt logs in.
func TestLoginStaleToken(t *testing.T) {
	t.Parallel()
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: []string{"Alice"}})
	boardtest.CheckStaleLoginToken(t, b, func(t testing.TB) { b.Query(t, "DELETE FROM {prefix}sessions") })
}

// TestLoginProbeRefusal: `forumgm probe` with a wrong password on a real
// SMF says what the board said and to check the name and password.
func TestLoginProbeRefusal(t *testing.T) {
	t.Parallel()
	boardtest.CheckProbeRefusal(t, realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: []string{"Alice"}}), "password incorrect")
}
