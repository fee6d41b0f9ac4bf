package main

import (
	"strings"
	"testing"
	"time"
)

func TestFlagsFirst(t *testing.T) {
	tests := []struct{ in, want string }{
		{"forumgm audit g --json", "forumgm audit --json g"},
		{"forumgm audit g --player Ann --phase m1-p1", "forumgm audit --player Ann --phase m1-p1 g"},
		{"forumgm replace g Ben Benedict --id 9", "forumgm replace --id 9 g Ben Benedict"},
		{"forumgm replace g Ben Benedict --id=9", "forumgm replace --id=9 g Ben Benedict"},
		{"forumgm extend g -30m", "forumgm extend g -30m"}, // a negative duration is not a flag
		{"forumgm status --json g", "forumgm status --json g"},
		{"forumgm status g --json", "forumgm status --json g"},
		{"forumgm replay x.yaml --json --map-out d", "forumgm replay --json --map-out d x.yaml"},
		{"forumgm nosuch a --b", "forumgm nosuch a --b"},
		{"forumgm audit g -- --json", "forumgm audit g -- --json"},
	}
	a := app()
	for _, tc := range tests {
		got := strings.Join(flagsFirst(a, strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"2d", 48 * time.Hour, true},
		{"1.5d", 36 * time.Hour, true},
		{"-1d", -24 * time.Hour, true},
		{"90m", 90 * time.Minute, true},
		{"-1h30m", -90 * time.Minute, true},
		{"soon", 0, false},
		{"d", 0, false},
	}
	for _, tc := range tests {
		got, err := parseDuration(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseDuration(%q) = %v, %v", tc.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "2d, 24h") {
			t.Errorf("the error should show how to write one: %v", err)
		}
	}
}
