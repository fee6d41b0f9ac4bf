package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress reports how far long work has got, on one terminal line that it
// rewrites: nothing for work done within a second (most replays), then at
// most a line a second, and a last one when the work is done. Output that is
// not a terminal (a pipe, a file, a test) gets nothing: the transcript on
// stdout stays what it was.
func progress(w io.Writer, now func() time.Time) func(done, total int) {
	if f, ok := w.(*os.File); !ok || !isTerminal(f) {
		return nil
	}
	return progressTo(w, now)
}

// progressTo is progress without the terminal check.
func progressTo(w io.Writer, now func() time.Time) func(done, total int) {
	start := now()
	last, shown := start, false
	return func(done, total int) {
		t := now()
		if done < total && (t.Sub(start) < time.Second || t.Sub(last) < time.Second) {
			return
		}
		if done == total && !shown {
			return // quick work: nothing was shown, nothing to close
		}
		last, shown = t, true
		fmt.Fprintf(w, "\rreplaying: step %d of %d (%d%%), %s", done, total, done*100/max(total, 1), t.Sub(start).Round(time.Second))
		if done == total {
			fmt.Fprintln(w)
		}
	}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
