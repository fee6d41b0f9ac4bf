package gameconfig

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads a GM's duration (extend, the web desk's forms): Go's (90m, 24h, -1h30m) plus days
// (2d, 1.5d), as forum games count them.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "d") {
		if f, err := strconv.ParseFloat(strings.TrimSuffix(s, "d"), 64); err == nil {
			return time.Duration(f * float64(24*time.Hour)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration: write it like 2d, 24h, 90m or -1h30m", s)
	}
	return d, nil
}
