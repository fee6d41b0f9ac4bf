package gameconfig

import (
	"strings"
	"testing"
	"time"
)

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
		got, err := ParseDuration(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v", tc.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "2d, 24h") {
			t.Errorf("the error should show how to write one: %v", err)
		}
	}
}
