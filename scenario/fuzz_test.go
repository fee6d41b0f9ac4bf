package scenario_test

// Run: go test -run '^$' -fuzz FuzzParse -fuzztime 30s ./scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/scenario"
)

// FuzzParse: arbitrary bytes never panic Parse; an error names the file
// (and is a *scenario.Error); a scenario that parses has a game, players
// and steps that are each exactly one of post, pm or deadline.
func FuzzParse(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzParse, plus every example and scenario file.
	for _, pat := range []string{"../testdata/examples/*.yaml", "../testdata/scenarios/*/*.yaml"} {
		files, _ := filepath.Glob(pat)
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	const name = "fuzz-scenario.yaml"
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scenario.Parse(name, data)
		if err != nil {
			var se *scenario.Error
			if !errors.As(err, &se) || se.File != name || !strings.Contains(err.Error(), name) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if sc.Game == "" || len(sc.Players) == 0 {
			t.Fatalf("parsed without game or players: %+v", sc)
		}
		for i, st := range sc.Script {
			n := 0
			for _, b := range []bool{st.Post != "", st.PM != "", st.Deadline} {
				if b {
					n++
				}
			}
			if n != 1 || st.Line < 1 {
				t.Fatalf("step %d: %+v", i+1, st)
			}
		}
	})
}
