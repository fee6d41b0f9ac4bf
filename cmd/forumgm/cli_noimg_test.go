package main

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCLINoImg: on a board whose admin turned [img] off (`forumgm sim
// --no-img`), `probe --post-test` reads its test reply back with the
// picture shown as text, warns, and names the fix; a board that shows
// [img] passes the same check.
func TestCLINoImg(t *testing.T) {
	if testing.Short() {
		t.Skip("starts local forums")
	}
	t.Parallel()
	for _, tc := range []struct {
		flags []string
		want  []string
	}{
		{[]string{"--no-img"}, []string{"warn  pictures in posts ([img])", "the board shows [img] as text in the thread's forum", "set forum: pictures: false in the game file"}},
		{nil, []string{"ok    pictures in posts ([img])", "the board shows [img] as a picture"}},
	} {
		password := fmt.Sprintf("simpw-%d", time.Now().UnixNano())
		sim := startBackground(t, cliEnv(nil), append([]string{"sim", "--addr", "127.0.0.1:0", "--password", password, "--flood", "0"}, tc.flags...)...)
		url := sim.waitLine(t, "demo thread: ", 20*time.Second)
		base := url[:strings.Index(url, "viewtopic.php")]
		topic := url[strings.Index(url, "t=")+2:]
		s := newGMSession(t)
		s.password = password
		r := s.run("probe", "--url", base, "--thread", topic, "--bot", "GM Bot", "--password-env", "FORUMGM_CLI_TEST_PASSWORD", "--requests-per-second", "100", "--post-test")
		sim.stop(t, syscall.SIGTERM)
		wantExit(t, r, 0, fmt.Sprintf("probe --post-test on sim %v", tc.flags))
		for _, want := range tc.want {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("sim %v: probe output lacks %q:\n%s", tc.flags, want, r)
			}
		}
	}
}
