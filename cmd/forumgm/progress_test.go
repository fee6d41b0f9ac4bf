package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

func TestProgress(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		every time.Duration // between steps
		steps int
		want  []string // the lines shown (split at \r and \n)
	}{
		{"quick work shows nothing", time.Millisecond, 100, nil},
		{"long work: a line a second and the end", 300 * time.Millisecond, 10, []string{
			"replaying: step 4 of 10 (40%), 1s", "replaying: step 8 of 10 (80%), 2s", "replaying: step 10 of 10 (100%), 3s"}},
	} {
		var buf bytes.Buffer
		clock := t0
		p := progressTo(&buf, func() time.Time { return clock })
		for i := 1; i <= c.steps; i++ {
			clock = clock.Add(c.every)
			p(i, c.steps)
		}
		got := strings.FieldsFunc(buf.String(), func(r rune) bool { return r == '\r' || r == '\n' })
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: shown %q, want %q", c.name, got, c.want)
		}
		if len(c.want) > 0 && !strings.HasSuffix(buf.String(), "\n") {
			t.Errorf("%s: the last line is not ended", c.name)
		}
	}
	// Not a terminal: no progress at all.
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if progress(f, time.Now) != nil {
		t.Error("progress on a file, not a terminal")
	}
}
