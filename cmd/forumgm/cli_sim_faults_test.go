package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestCLISimFaults: `forumgm sim --fault` rules and --down-for shape what
// the board answers; a bad rule is a usage error naming the problem.
func TestCLISimFaults(t *testing.T) {
	for _, tc := range []struct {
		spec, want string
	}{
		{"meltdown", "unknown fault kind"},
		{"5xx,rate=2", "not within 0 to 1"},
		{"slow,delay=soon", "delay"},
	} {
		r := runCLI(t, "sim", "--addr", "127.0.0.1:0", "--fault", tc.spec)
		wantExit(t, r, 2, "sim --fault "+tc.spec)
		if !strings.Contains(r.stderr+r.stdout, tc.want) {
			t.Errorf("--fault %s: want %q in\n%s", tc.spec, tc.want, r)
		}
	}

	get := func(u string) (int, http.Header) {
		t.Helper()
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Header
	}
	sim := startBackground(t, cliEnv(nil), "sim", "--addr", "127.0.0.1:0",
		"--fault", "5xx,path=viewtopic.php,count=1,status=500", "--fault", "429,method=GET,path=index.php,count=1,retry=45s")
	thread := sim.waitLine(t, "demo thread: ", 20*time.Second)
	if f := sim.waitLine(t, "fault: ", 5*time.Second); f != `5xx count 1 on  "viewtopic.php"` {
		t.Errorf("banner %q", f)
	}
	base := thread[:strings.Index(thread, "viewtopic.php")]
	var got []int
	for range 2 {
		s, _ := get(thread)
		got = append(got, s)
	}
	s, h := get(base + "index.php")
	got = append(got, s)
	if fmt.Sprint(got) != "[500 200 429]" || h.Get("Retry-After") != "45" {
		t.Errorf("statuses %v, Retry-After %q; want [500 200 429] and 45", got, h.Get("Retry-After"))
	}

	down := startBackground(t, cliEnv(nil), "sim", "--addr", "127.0.0.1:0", "--down-for", "1h")
	thread = down.waitLine(t, "demo thread: ", 20*time.Second)
	down.waitLine(t, "down for 1h0m0s", 5*time.Second)
	if s, _ := get(thread); s != http.StatusServiceUnavailable {
		t.Errorf("board down for an hour answered %d", s)
	}
}
