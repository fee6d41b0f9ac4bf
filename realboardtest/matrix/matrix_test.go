package matrix_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/realboardtest/matrix"
)

// The recorder is tested through the test binary itself: TestRecord runs
// it again with -test.run naming TestRecorderChild, whose subtests pass,
// fail and skip for real (a failing subtest cannot run inside a passing
// test), and reads what they recorded.
const childEnv = "FORUMGM_MATRIX_TEST_CHILD"

func TestRecorderChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestRecord")
	}
	t.Run("passes", func(t *testing.T) { matrix.Cell(t, "phpbb", matrix.Counts) })
	t.Run("fails", func(t *testing.T) {
		matrix.Cell(t, "mybb", matrix.Counts)
		t.Error("on purpose")
	})
	t.Run("skips", func(t *testing.T) {
		matrix.Cell(t, "smf", matrix.Counts)
		t.Skip("on purpose")
	})
	t.Run("lacks", func(t *testing.T) {
		matrix.Lacks(t, "smf", matrix.Signups, "no sign-up thread", "players in the game file")
	})
	t.Run("parent", func(t *testing.T) {
		matrix.Cell(t, "nodebb", matrix.Nations)
		t.Run("child fails", func(t *testing.T) { t.Error("on purpose") })
	})
	t.Run("unknown feature", func(t *testing.T) { matrix.Cell(t, "phpbb", "juggling") })
	t.Run("unknown engine", func(t *testing.T) { matrix.Cell(t, "vbulletin", matrix.Counts) })
	t.Run("lacks without why", func(t *testing.T) { matrix.Lacks(t, "smf", matrix.Signups, "", "x") })
}

func TestRecord(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("the child")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecorderChild$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1", matrix.OutEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child passed, though subtests fail on purpose:\n%s", out)
	}
	for _, want := range []string{
		`matrix: unknown feature "juggling"`, `matrix: unknown engine "vbulletin"`, "why and instead must both say something",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child output lacks %q:\n%s", want, out)
		}
	}
	rs, err := matrix.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]matrix.Result{}
	for _, r := range rs {
		got[r.Test] = r
	}
	want := map[string]struct{ engine, feature, outcome, why string }{
		"TestRecorderChild/passes": {"phpbb", matrix.Counts, matrix.Pass, ""},
		"TestRecorderChild/fails":  {"mybb", matrix.Counts, matrix.Fail, ""},
		"TestRecorderChild/skips":  {"smf", matrix.Counts, matrix.Skip, ""},
		"TestRecorderChild/lacks":  {"smf", matrix.Signups, matrix.Pass, "no sign-up thread"},
		"TestRecorderChild/parent": {"nodebb", matrix.Nations, matrix.Fail, ""},
	}
	if len(got) != len(want) {
		t.Errorf("recorded %d results, want %d: %+v", len(got), len(want), rs)
	}
	for name, w := range want {
		r, ok := got[name]
		if !ok {
			t.Errorf("%s: not recorded", name)
			continue
		}
		if r.Engine != w.engine || r.Feature != w.feature || r.Outcome != w.outcome || r.Why != w.why {
			t.Errorf("%s: recorded %+v, want %+v", name, r, w)
		}
		if r.Package != "realboardtest/matrix" {
			t.Errorf("%s: package %q, want realboardtest/matrix", name, r.Package)
		}
		if time.Since(r.At) > time.Hour || r.At.IsZero() {
			t.Errorf("%s: recorded at %v", name, r.At)
		}
	}
	if r := got["TestRecorderChild/lacks"]; r.Instead != "players in the game file" {
		t.Errorf("lacks: instead %q", r.Instead)
	}
}

// Without FORUMGM_MATRIX_OUT nothing is written (the suite's ordinary
// runs), and the marks still check their names.
func TestRecordUnset(t *testing.T) {
	t.Setenv(matrix.OutEnv, "")
	wd, _ := os.Getwd()
	before, _ := filepath.Glob(filepath.Join(wd, "*"))
	t.Run("cell", func(t *testing.T) { matrix.Cell(t, "phpbb", matrix.Counts) })
	after, _ := filepath.Glob(filepath.Join(wd, "*"))
	if len(before) != len(after) {
		t.Errorf("files appeared: %v -> %v", before, after)
	}
}

func res(engine, feature, test, outcome string) matrix.Result {
	return matrix.Result{Engine: engine, Feature: feature, Package: "realboardtest/x", Test: test, Outcome: outcome,
		At: time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)}
}

func TestView(t *testing.T) {
	lack := res("smf", matrix.Signups, "TestL", matrix.Pass)
	lack.Why, lack.Instead = "no thread", "the file"
	lackFailed := lack
	lackFailed.Outcome = matrix.Fail
	for _, tc := range []struct {
		name    string
		rs      []matrix.Result
		state   string
		wantErr bool
	}{
		{"none", nil, matrix.StateNotRun, false},
		{"pass", []matrix.Result{res("smf", matrix.Signups, "TestA", matrix.Pass)}, matrix.StateGreen, false},
		{"skip only", []matrix.Result{res("smf", matrix.Signups, "TestA", matrix.Skip)}, matrix.StateNotRun, false},
		{"pass and skip", []matrix.Result{res("smf", matrix.Signups, "TestA", matrix.Pass), res("smf", matrix.Signups, "TestB", matrix.Skip)}, matrix.StateGreen, false},
		{"one failed", []matrix.Result{res("smf", matrix.Signups, "TestA", matrix.Pass), res("smf", matrix.Signups, "TestB", matrix.Fail)}, matrix.StateFailed, false},
		{"lacks", []matrix.Result{lack}, matrix.StateCannot, false},
		{"lacks, its check failed", []matrix.Result{lackFailed}, matrix.StateFailed, false},
		{"both working and lacking", []matrix.Result{lack, res("smf", matrix.Signups, "TestA", matrix.Pass)}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := matrix.View(tc.rs)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("no error, state %s", v.State)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.State != tc.state {
				t.Errorf("state %q, want %q", v.State, tc.state)
			}
		})
	}
}

func TestMergeReplacesSameTest(t *testing.T) {
	old := []matrix.Result{res("smf", matrix.Counts, "TestA", matrix.Fail), res("phpbb", matrix.Counts, "TestA", matrix.Pass)}
	got := matrix.Merge(old, []matrix.Result{res("smf", matrix.Counts, "TestA", matrix.Pass), res("mybb", matrix.Nations, "TestB", matrix.Pass)})
	if len(got) != 3 {
		t.Fatalf("%d results: %+v", len(got), got)
	}
	// Sorted by row (Nations before Counts), then column.
	if got[0].Feature != matrix.Nations || got[1].Engine != "phpbb" || got[2].Engine != "smf" || got[2].Outcome != matrix.Pass {
		t.Errorf("merged: %+v", got)
	}
}

func TestRenderCells(t *testing.T) {
	lack := res("smf", matrix.Signups, "TestL/x", matrix.Pass)
	lack.Why, lack.Instead = "no | pipes\nhere", "the file"
	page, err := matrix.Render(matrix.Data{Results: []matrix.Result{
		res("phpbb", matrix.Signups, "TestA", matrix.Pass), lack, res("mybb", matrix.Signups, "TestB", matrix.Fail),
	}})
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(string(page), "\n") {
		if strings.HasPrefix(line, "| Sign-ups") {
			row = line
		}
	}
	cells := strings.Split(strings.Trim(row, "|"), " | ")
	if len(cells) != 1+len(matrix.Engines) {
		t.Fatalf("sign-ups row has %d cells: %q", len(cells), row)
	}
	for i, want := range []string{"✅ green<br>`realboardtest/x TestA`", "❌ **failed**<br>`realboardtest/x TestB` (failed)",
		"➖ cannot: no \\| pipes here — instead: the file<br>`realboardtest/x TestL/x`", "⬜ not run"} {
		if got := strings.TrimSpace(cells[i+1]); got != want {
			t.Errorf("cell %s: %q, want %q", matrix.Engines[i].ID, got, want)
		}
	}
	if !strings.HasPrefix(string(page), matrix.Header+"\n") {
		t.Error("no generated-by header")
	}
}
