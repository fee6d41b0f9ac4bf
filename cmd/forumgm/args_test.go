package main

import (
	"strings"
	"testing"
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
