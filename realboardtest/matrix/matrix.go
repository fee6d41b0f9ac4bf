// Package matrix records which real-board tests stand for which cell of the
// engine matrix (features × engines, issue 38) and renders the matrix that
// docs/engine-matrix.md holds.
//
// A test marks itself with Cell (or Lacks, for a cell the engine cannot
// have); when it ends its outcome is written as one small JSON file under
// $FORUMGM_MATRIX_OUT. Nothing is written when the variable is unset, so
// the suite's ordinary runs leave no files behind. The generator
// (cmd/matrixdoc) merges those files into docs/engine-matrix.json and
// renders docs/engine-matrix.md from it; a test of this package renders the
// committed JSON again and compares, so a hand edit or a stale page fails.
package matrix

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Features, in the matrix's row order (issue 38's list).
const (
	Nations               = "nations"
	Protest               = "protest"
	Resistance5           = "resistance-5"
	Resistance7           = "resistance-7-cards"
	Signups               = "signups"
	Counts                = "counts"
	Reminders             = "reminders-prods"
	Schedule              = "schedule-zone"
	ResolveNow            = "resolve-now-preview"
	VoteLog               = "vote-log"
	Pictures              = "pictures"
	Edits                 = "edits-deletions"
	Replacement           = "replacement"
	StoppedAcrossDeadline = "stopped-across-deadline"
)

// Feature is one row: its id (the constant) and what the matrix calls it.
type Feature struct{ ID, Name string }

// Features lists the rows in order.
var Features = []Feature{
	{Nations, "Nations, a whole game"},
	{Protest, "Protest, a whole game"},
	{Resistance5, "Resistance, 5 players"},
	{Resistance7, "Resistance, 7+ players, plot cards given and played"},
	{Signups, "Sign-ups (/in, /out, a second /in, the GM's /in)"},
	{Counts, "Counts (on request, the gap, the GM's)"},
	{Reminders, "Reminders and prods"},
	{Schedule, "A schedule in another zone"},
	{ResolveNow, "Phase-guarded resolve-now and preview"},
	{VoteLog, "The public vote log"},
	{Pictures, "Pictures in posts"},
	{Edits, "Edits and deletions after a command"},
	{Replacement, "A replacement player"},
	{StoppedAcrossDeadline, "The bot stopped across a deadline"},
}

// Engine is one column: the realboardtest engine name and its heading.
type Engine struct{ ID, Name string }

// Engines lists the columns in order. The ids are realboardtest's engine
// names (realboardtest.PhpBB, MyBB, SMF, NodeBB); this package does not
// import realboardtest (it starts boards; a recorder needs none), and a
// test checks the names agree.
var Engines = []Engine{
	{"phpbb", "phpBB 3.3"},
	{"mybb", "MyBB 1.8"},
	{"smf", "SMF 2.1"},
	{"nodebb", "NodeBB 4"},
}

// Outcomes of a recorded test.
const (
	Pass = "pass"
	Fail = "fail"
	Skip = "skip"
)

// Result is one test's outcome for one cell: what a JSON file under
// $FORUMGM_MATRIX_OUT holds.
type Result struct {
	Engine  string `json:"engine"`
	Feature string `json:"feature"`
	// Package is the test's directory relative to the module root, e.g.
	// realboardtest/realgames.
	Package string `json:"package"`
	Test    string `json:"test"` // t.Name(), subtests included
	Outcome string `json:"outcome"`
	// Why and Instead are set for a cell the engine cannot have (Lacks).
	Why     string    `json:"why,omitempty"`
	Instead string    `json:"instead,omitempty"`
	Seconds float64   `json:"seconds"`
	At      time.Time `json:"at"`
}

// OutEnv names the results directory.
const OutEnv = "FORUMGM_MATRIX_OUT"

// FullEnv set to "full" runs the cells CI leaves out for its time (whole
// games on the engines where one takes many whole-minute phases).
const FullEnv = "FORUMGM_MATRIX"

// Full says whether the full matrix was asked for (FORUMGM_MATRIX=full).
func Full() bool { return os.Getenv(FullEnv) == "full" }

// Cell marks the running test (or subtest) as the cell (engine, feature).
// When the test ends its outcome (pass, fail, skip) is recorded as the
// cell's result. An unknown engine or feature fails the test at once.
func Cell(t testing.TB, engine, feature string) {
	t.Helper()
	record(t, engine, feature, "", "")
}

// Lacks marks the running test as a cell that cannot work on that engine.
// The test must still check on the real board that the engine lacks it;
// the matrix shows why (what the engine lacks) and instead (what forumgm
// does).
func Lacks(t testing.TB, engine, feature, why, instead string) {
	t.Helper()
	if strings.TrimSpace(why) == "" || strings.TrimSpace(instead) == "" {
		t.Fatalf("matrix.Lacks(%s, %s): why and instead must both say something", engine, feature)
	}
	record(t, engine, feature, why, instead)
}

func record(t testing.TB, engine, feature, why, instead string) {
	t.Helper()
	if !knownEngine(engine) {
		t.Fatalf("matrix: unknown engine %q", engine)
	}
	if !knownFeature(feature) {
		t.Fatalf("matrix: unknown feature %q", feature)
	}
	dir := os.Getenv(OutEnv)
	if dir == "" {
		return
	}
	pkg := packageDir()
	start := time.Now()
	t.Cleanup(func() {
		r := Result{Engine: engine, Feature: feature, Package: pkg, Test: t.Name(),
			Outcome: Pass, Why: why, Instead: instead,
			Seconds: time.Since(start).Round(100 * time.Millisecond).Seconds(), At: start.UTC().Truncate(time.Second)}
		switch {
		case t.Failed():
			r.Outcome = Fail
		case t.Skipped():
			r.Outcome = Skip
		}
		if err := write(dir, r); err != nil {
			t.Errorf("matrix: %v", err)
		}
	})
}

func knownEngine(id string) bool {
	return slices.ContainsFunc(Engines, func(e Engine) bool { return e.ID == id })
}

func knownFeature(id string) bool {
	return slices.ContainsFunc(Features, func(f Feature) bool { return f.ID == id })
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// FileName is the result's file: one per (package, test, engine, feature),
// so a test run again replaces its own earlier result.
func (r Result) FileName() string {
	name := strings.Join([]string{r.Engine, r.Feature, r.Package, r.Test}, "--")
	return unsafeName.ReplaceAllString(name, "_") + ".json"
}

func (r Result) key() string {
	return strings.Join([]string{r.Package, r.Test, r.Engine, r.Feature}, "\x00")
}

func write(dir string, r Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	// Written whole then renamed: the generator never reads half a file.
	tmp, err := os.CreateTemp(dir, ".cell-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, r.FileName()))
}

var (
	pkgOnce sync.Once
	pkgDir  string
)

// packageDir is the test binary's directory (go test runs it in the
// package's) relative to the module root, found by its go.mod.
func packageDir() string {
	pkgOnce.Do(func() {
		wd, err := os.Getwd()
		if err != nil {
			pkgDir = "?"
			return
		}
		for dir := wd; ; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				rel, err := filepath.Rel(dir, wd)
				if err != nil {
					rel = wd
				}
				pkgDir = filepath.ToSlash(rel)
				return
			}
			if filepath.Dir(dir) == dir {
				pkgDir = filepath.Base(wd)
				return
			}
		}
	})
	return pkgDir
}

// ReadDir reads every result file in dir.
func ReadDir(dir string) ([]Result, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var r Result
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func (r Result) check() error {
	switch {
	case !knownEngine(r.Engine):
		return fmt.Errorf("unknown engine %q", r.Engine)
	case !knownFeature(r.Feature):
		return fmt.Errorf("unknown feature %q", r.Feature)
	case r.Outcome != Pass && r.Outcome != Fail && r.Outcome != Skip:
		return fmt.Errorf("unknown outcome %q", r.Outcome)
	case r.Test == "" || r.Package == "":
		return fmt.Errorf("no test or package named")
	case (r.Why == "") != (r.Instead == ""):
		return fmt.Errorf("%s: a lacking cell needs both why and instead", r.Test)
	}
	return nil
}

// Merge returns old with every result in new replacing the one of the same
// (package, test, engine, feature), sorted. A partial run (one package, one
// engine) so updates only its own results.
func Merge(old, new []Result) []Result {
	byKey := map[string]Result{}
	for _, r := range old {
		byKey[r.key()] = r
	}
	for _, r := range new {
		byKey[r.key()] = r
	}
	out := make([]Result, 0, len(byKey))
	for _, r := range byKey {
		out = append(out, r)
	}
	Sort(out)
	return out
}

// Sort orders results by row, column, package and test.
func Sort(rs []Result) {
	fi := func(id string) int { return slices.IndexFunc(Features, func(f Feature) bool { return f.ID == id }) }
	ei := func(id string) int { return slices.IndexFunc(Engines, func(e Engine) bool { return e.ID == id }) }
	slices.SortFunc(rs, func(a, b Result) int {
		if c := fi(a.Feature) - fi(b.Feature); c != 0 {
			return c
		}
		if c := ei(a.Engine) - ei(b.Engine); c != 0 {
			return c
		}
		if c := strings.Compare(a.Package, b.Package); c != 0 {
			return c
		}
		return strings.Compare(a.Test, b.Test)
	})
}

// Data is the committed results file (docs/engine-matrix.json).
type Data struct {
	Results []Result `json:"results"`
}

// ReadData reads a results file; a missing file is no results.
func ReadData(path string) (Data, error) {
	var d Data
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return d, nil
	}
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("%s: %w", path, err)
	}
	for _, r := range d.Results {
		if err := r.check(); err != nil {
			return d, fmt.Errorf("%s: %w", path, err)
		}
	}
	return d, nil
}

// Encode is the results file's bytes.
func (d Data) Encode() ([]byte, error) {
	Sort(d.Results)
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
