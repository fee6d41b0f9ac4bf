package realgames

import (
	"fmt"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestLoginRefusal: on real phpBB and MyBB, only the board's answer to a
// wrong password holds the bot's logins back, its attempt limit is met as
// a refusal too (a captcha the bot cannot solve: reported, never hammered),
// and the bot logs in again once the password file is fixed and the
// board's attempt count undone (boardtest.CheckLoginRefusal).
func TestLoginRefusal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		engine string
		// the board's own words, in order: wrong password, then its limit
		texts []string
		lim   func(b *realboardtest.Board) boardtest.LoginLimits
		count string // the bot's failed-login count on the board
	}{
		{realboardtest.PhpBB,
			// language/en/common.php LOGIN_ERROR_PASSWORD, then
			// LOGIN_ERROR_ATTEMPTS at max_login_attempts (3).
			[]string{"incorrect password", "incorrect password", "incorrect password", "maximum allowed number of login attempts"},
			func(b *realboardtest.Board) boardtest.LoginLimits {
				return boardtest.LoginLimits{Wrong: 4, StillRefused: true, Reset: func(t testing.TB) {
					// What a login by hand with the captcha solved does
					// (auth/provider/db.php on success).
					b.Query(t, fmt.Sprintf("UPDATE {prefix}users SET user_login_attempts = 0 WHERE user_id = %d", b.Bot.ID))
					b.Query(t, fmt.Sprintf("DELETE FROM {prefix}login_attempts WHERE user_id = %d", b.Bot.ID))
				}}
			},
			"SELECT user_login_attempts AS n FROM {prefix}users WHERE user_id = %d"},
		{realboardtest.MyBB,
			// messages.lang.php error_invalidpworusername, then past
			// failedcaptchalogincount (3) global.lang.php
			// invalid_captcha_verify.
			[]string{"invalid username/password", "invalid username/password", "invalid username/password", "invalid username/password", "image verification code"},
			func(b *realboardtest.Board) boardtest.LoginLimits {
				return boardtest.LoginLimits{Wrong: 5, StillRefused: true, Reset: func(t testing.TB) {
					// What the end of failedlogintime's lockout does
					// (inc/functions.php login_attempt_check).
					b.Query(t, fmt.Sprintf("UPDATE {prefix}users SET loginattempts = 0, loginlockoutexpiry = 0 WHERE uid = %d", b.Bot.ID))
				}}
			},
			"SELECT loginattempts AS n FROM {prefix}users WHERE uid = %d"},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			t.Parallel()
			b := realboardtest.Start(t, tc.engine, realboardtest.Options{Players: []string{"Alice"}})
			before := b.Query(t, fmt.Sprintf(tc.count, b.Bot.ID))[0]["n"]
			log := boardtest.CheckLoginRefusal(t, b, tc.lim(b))
			var sent []string
			for _, a := range log {
				if a.Requests > 0 && a.Err != nil {
					sent = append(sent, a.Err.Error())
				}
			}
			if len(sent) != len(tc.texts)+1 { // + the captcha refusal of the right password
				t.Errorf("%d refused logins reached the board, want %d", len(sent), len(tc.texts)+1)
			}
			for i, want := range tc.texts {
				if i < len(sent) && !strings.Contains(strings.ToLower(sent[i]), want) {
					t.Errorf("refusal %d: %q; want the board's %q", i+1, sent[i], want)
				}
			}
			t.Logf("failed-login count on the board: %v before, %v after", before, b.Query(t, fmt.Sprintf(tc.count, b.Bot.ID))[0]["n"])
		})
	}
}

// TestLoginStaleToken: the board's guest session (which its login form's
// token is bound to) ends between the form and its submission: an
// ordinary failure, not a refusal, and the next attempt logs in.
func TestLoginStaleToken(t *testing.T) {
	t.Parallel()
	for engine, del := range map[string]string{
		realboardtest.PhpBB: "DELETE FROM {prefix}sessions WHERE session_user_id = 1", // ANONYMOUS
		realboardtest.MyBB:  "DELETE FROM {prefix}sessions WHERE uid = 0",
	} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			b := realboardtest.Start(t, engine, realboardtest.Options{Players: []string{"Alice"}})
			boardtest.CheckStaleLoginToken(t, b, func(t testing.TB) { b.Query(t, del) })
		})
	}
}

// TestLoginProbeRefusal: `forumgm probe` with a wrong password on real
// phpBB and MyBB says what the board said and to check the name and
// password.
func TestLoginProbeRefusal(t *testing.T) {
	t.Parallel()
	for engine, says := range map[string]string{realboardtest.PhpBB: "incorrect password", realboardtest.MyBB: "invalid username/password"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			boardtest.CheckProbeRefusal(t, realboardtest.Start(t, engine, realboardtest.Options{Players: []string{"Alice"}}), says)
		})
	}
}
