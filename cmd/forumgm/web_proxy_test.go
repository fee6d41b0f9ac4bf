package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/forumgm/forumgm/store"
)

// lockedBuffer is a process's stderr, read while it is written.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCLIWebTrustedProxy: `forumgm web --trusted-proxy` believes the
// client address the proxy reports (the failed login's log line names it),
// and without the flag the header is ignored (issue 22 item 5); a value
// that is no address or network is refused with exit 2.
func TestCLIWebTrustedProxy(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"trusted", []string{"--trusted-proxy", "127.0.0.1", "--trusted-proxy", "10.0.0.0/8"}, "from=203.0.113.7"},
		{"not trusted", nil, "from=127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
			dir := t.TempDir()
			db, err := store.Open(context.Background(), filepath.Join(dir, "g.db"))
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			args := append([]string{"web", "--db", filepath.Join(dir, "g.db"), "--http", addr}, tc.flags...)
			cmd := exec.Command(cliBin, args...)
			cmd.Dir = dir
			cmd.Env = cliEnv(map[string]string{"FORUMGM_WEB_PASSWORD": "a long desk password"})
			var stderr lockedBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			t.Cleanup(func() {
				cmd.Process.Signal(syscall.SIGTERM)
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					cmd.Process.Kill()
					<-done
				}
			})
			jar, _ := cookiejar.New(nil)
			c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
			var body []byte
			for deadline := time.Now().Add(30 * time.Second); ; {
				resp, err := c.Get("http://" + addr + "/login")
				if err == nil {
					body, _ = io.ReadAll(resp.Body)
					resp.Body.Close()
					break
				}
				select {
				case werr := <-done:
					done <- werr
					t.Fatalf("forumgm web exited: %v\n%s", werr, stderr.String())
				default:
				}
				if time.Now().After(deadline) {
					t.Fatalf("the desk never answered: %v\n%s", err, stderr.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(body)
			if m == nil {
				t.Fatalf("no login form:\n%s", body)
			}
			req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/login",
				strings.NewReader(url.Values{"csrf": {string(m[1])}, "password": {"not the password"}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-Forwarded-For", "198.51.100.250, 203.0.113.7")
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("a wrong password: %s", resp.Status)
			}
			for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stderr.String(), "failed login"); {
				if time.Now().After(deadline) {
					t.Fatalf("no failed-login line in the log:\n%s", stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			var line string
			for _, l := range strings.Split(stderr.String(), "\n") {
				if strings.Contains(l, "failed login") {
					line = l
				}
			}
			if !strings.Contains(line, tc.want) {
				t.Errorf("failed-login line %q; want %s", line, tc.want)
			}
		})
	}
	dir := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	r := runCLIWith(t, cliOpts{dir: dir, env: map[string]string{"FORUMGM_WEB_PASSWORD": "a long desk password"}},
		"web", "--db", "g.db", "--http", "127.0.0.1:"+strconv.Itoa(freePort(t)), "--trusted-proxy", "the-proxy")
	wantExit(t, r, 2, "web --trusted-proxy the-proxy")
	if !strings.Contains(r.stderr, `--trusted-proxy "the-proxy"`) {
		t.Errorf("the refusal does not name the bad value:\n%s", r)
	}
}
