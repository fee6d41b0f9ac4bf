package main

// End-to-end tests of the forumgm command line: the binary is built once and
// run as a user would run it, and its stdout, stderr and exit status are
// checked.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// cliBin is the forumgm binary TestMain builds.
var cliBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "forumgm-cli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cliBin = filepath.Join(dir, "forumgm")
	build := exec.Command("go", "build", "-o", cliBin, ".")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building forumgm:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cliResult is what one run of the binary produced.
type cliResult struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
}

func (r cliResult) String() string {
	return fmt.Sprintf("exit %d\n--- stdout:\n%s\n--- stderr:\n%s", r.code, r.stdout, r.stderr)
}

// cliOpts tune a run: the working directory (default: a fresh temp dir, so a
// default forumgm.db never lands in the source tree), extra environment
// variables and a time limit.
type cliOpts struct {
	dir     string
	env     map[string]string
	timeout time.Duration
}

// cliEnv is the test's environment without anything forumgm reads, plus extra.
func cliEnv(extra map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "FORUMGM_") {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}

func runCLIWith(t *testing.T, o cliOpts, args ...string) cliResult {
	t.Helper()
	if o.timeout == 0 {
		o.timeout = 60 * time.Second
	}
	if o.dir == "" {
		o.dir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cliBin, args...)
	cmd.Dir = o.dir
	cmd.Env = cliEnv(o.env)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := cliResult{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("forumgm %s: still running after %s\n%s", strings.Join(args, " "), o.timeout, r)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("forumgm %s: %v", strings.Join(args, " "), err)
	}
	return r
}

func runCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	return runCLIWith(t, cliOpts{}, args...)
}

// wantExit fails the test unless r exited with code.
func wantExit(t *testing.T, r cliResult, code int, what string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("%s: want exit %d\n%s", what, code, r)
	}
}

var repoRoot = filepath.Join("..", "..")

// ---------------------------------------------------------------- replay

// TestCLIReplayExamples replays every example scenario, as a transcript and
// as JSON, and checks the JSON against the hand-checked .expect.json beside
// each file and the transcript against the JSON.
func TestCLIReplayExamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot, "testdata", "examples", "*.yaml"))
	if err != nil || len(files) < 3 {
		t.Fatalf("want the three example scenarios, found %v (%v)", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			jr := runCLI(t, "replay", "--json", absPath(t, f))
			wantExit(t, jr, 0, "replay --json")
			var got map[string]any
			if err := json.Unmarshal([]byte(jr.stdout), &got); err != nil {
				t.Fatalf("replay --json is not one JSON object: %v\n%s", err, jr.stdout)
			}
			game := scenarioGame(t, f)
			checkReplayKeys(t, game, got)
			exp := strings.TrimSuffix(f, ".yaml") + ".expect.json"
			if _, err := os.Stat(exp); err != nil {
				t.Fatalf("no %s beside the example", exp)
			}
			checkExpect(t, exp, got)

			tr := runCLI(t, "replay", absPath(t, f))
			wantExit(t, tr, 0, "replay")
			if tr.stderr != "" {
				t.Errorf("replay wrote to stderr: %s", tr.stderr)
			}
			checkTranscript(t, tr.stdout, got)
		})
	}
}

func absPath(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// scenarioGame reads a scenario's game from the file itself (the examples
// are JSON, which is YAML).
func scenarioGame(t *testing.T, file string) string {
	t.Helper()
	var sc struct {
		Game string `json:"game"`
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatalf("%s: the examples are JSON: %v", file, err)
	}
	return sc.Game
}

func checkReplayKeys(t *testing.T, game string, got map[string]any) {
	t.Helper()
	want := []string{"game", "finished", "winners", "scores", "out", "rejected", "public", "private"}
	switch game {
	case "resistance":
		want = append(want, "winner_side", "missions", "sabotages")
	case "protest":
		want = append(want, "revealed", "scans")
	}
	for _, k := range want {
		if _, ok := got[k]; !ok {
			t.Errorf("replay --json has no %q key (keys: %v)", k, keysOf(got))
		}
	}
	if got["game"] != game {
		t.Errorf("game = %v, want %s", got["game"], game)
	}
	// The shapes a script reading the JSON relies on.
	if _, ok := got["finished"].(bool); !ok {
		t.Errorf("finished is %T, want a bool", got["finished"])
	}
	for _, k := range []string{"winners", "out", "rejected", "public"} {
		if _, ok := got[k].([]any); !ok {
			t.Errorf("%s is %T, want a list (never null)", k, got[k])
		}
	}
	for _, k := range []string{"scores", "private"} {
		if _, ok := got[k].(map[string]any); !ok {
			t.Errorf("%s is %T, want an object", k, got[k])
		}
	}
	if rej, ok := got["rejected"].([]any); ok {
		for _, r := range rej {
			m, _ := r.(map[string]any)
			if m["player"] == nil || m["text"] == nil || m["reason"] == nil {
				t.Errorf("rejection %v lacks player, text or reason", r)
			}
		}
	}
}

func keysOf(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// checkExpect compares got with an .expect.json file: every key there must
// agree (lists of names and revealed hexes in any order).
func checkExpect(t *testing.T, file string, got map[string]any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	public := joinAny(got["public"])
	for k, w := range want {
		switch k {
		case "finished", "scores", "winner_side", "missions", "sabotages", "scans":
			if !reflect.DeepEqual(got[k], w) {
				t.Errorf("%s = %v, want %v", k, got[k], w)
			}
		case "out", "winners", "revealed":
			if !sameSet(got[k], w) {
				t.Errorf("%s = %v, want (any order) %v", k, got[k], w)
			}
		case "revealed_as_a_set":
			if !sameSet(got["revealed"], w) {
				t.Errorf("revealed = %v, want (any order) %v", got["revealed"], w)
			}
		case "rejected_contains":
			var reasons []string
			for _, r := range asList(got["rejected"]) {
				m, _ := r.(map[string]any)
				reasons = append(reasons, fmt.Sprint(m["reason"]))
			}
			for _, s := range asList(w) {
				if !strings.Contains(strings.Join(reasons, "\n"), fmt.Sprint(s)) {
					t.Errorf("no rejection reason contains %q (reasons: %q)", s, reasons)
				}
			}
		case "public_contains":
			for _, s := range asList(w) {
				if !strings.Contains(public, fmt.Sprint(s)) {
					t.Errorf("the bot's posts do not contain %q", s)
				}
			}
		case "public_not_contains":
			for _, s := range asList(w) {
				if strings.Contains(public, fmt.Sprint(s)) {
					t.Errorf("the bot's posts contain %q", s)
				}
			}
		case "private_contains":
			priv, _ := got["private"].(map[string]any)
			for name, subs := range w.(map[string]any) {
				pms := joinAny(priv[name])
				for _, s := range asList(subs) {
					if !strings.Contains(pms, fmt.Sprint(s)) {
						t.Errorf("no PM to %s contains %q", name, s)
					}
				}
			}
		default:
			// An expectation this test does not know would pass unchecked.
			t.Errorf("%s: expectation key %q is not checked by this test", file, k)
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func joinAny(v any) string {
	var parts []string
	for _, x := range asList(v) {
		parts = append(parts, fmt.Sprint(x))
	}
	return strings.Join(parts, "\n\n")
}

func sameSet(a, b any) bool {
	norm := func(v any) []string {
		var s []string
		for _, x := range asList(v) {
			s = append(s, fmt.Sprint(x))
		}
		sort.Strings(s)
		return s
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// checkTranscript checks that the text output shows every post and PM of the
// bot that --json lists, and ends with the outcome.
func checkTranscript(t *testing.T, text string, got map[string]any) {
	t.Helper()
	public := asList(got["public"])
	if n := strings.Count(text, "▶ BOT POSTS IN THE THREAD:"); n != len(public) || n == 0 {
		t.Errorf("transcript has %d bot posts, --json has %d", n, len(public))
	}
	priv, _ := got["private"].(map[string]any)
	for name, pms := range priv {
		if n := strings.Count(text, "▶ BOT PMs "+name+":"); n != len(asList(pms)) {
			t.Errorf("transcript has %d PMs to %s, --json has %d", n, name, len(asList(pms)))
		}
	}
	var texts []any
	texts = append(texts, public...)
	for _, pms := range priv {
		texts = append(texts, asList(pms)...)
	}
	for _, p := range texts {
		for _, line := range strings.Split(fmt.Sprint(p), "\n") {
			line = strings.TrimSpace(strings.ReplaceAll(line, "\u200b", ""))
			if line != "" && !strings.Contains(text, line) {
				t.Errorf("transcript lacks the bot's line %q", line)
			}
		}
	}
	game := fmt.Sprint(got["game"])
	state := "not finished"
	if got["finished"] == true {
		state = "finished"
	}
	summary := "== " + game + ": " + state
	if ws := asList(got["winners"]); len(ws) > 0 {
		var names []string
		for _, w := range ws {
			names = append(names, fmt.Sprint(w))
		}
		summary += "; winners: " + strings.Join(names, ", ")
	}
	if !strings.Contains(text, summary) {
		t.Errorf("transcript lacks the outcome line %q", summary)
	}
	if rej := asList(got["rejected"]); len(rej) > 0 && !strings.Contains(text, "== "+rules.Plural(len(rej), "rejected command")+":") {
		t.Errorf("transcript does not list the %d rejected command(s)", len(rej))
	}
}

// TestCLIReplayMalformed: every malformed scenario exits 2 with an error
// that names the file and the line where the problem is. (yaml.v3 reports
// parser errors at the 0-based line of the enclosing block, one or more
// lines before the problem, and errors found by the game's Setup - unknown
// game, unknown option, bad option value - carry no file or line at all.)
func TestCLIReplayMalformed(t *testing.T) {
	tests := []struct {
		file  string
		lines []int // acceptable lines: where the problem is
		msg   string
	}{
		{"bad-yaml-bracket.yaml", []int{3, 4}, "']'"},          // '[' opened on line 3 never closes
		{"bad-yaml-tab.yaml", []int{7}, "tab"},                 // tab indentation on line 7
		{"bad-yaml-indent.yaml", []int{6}, ""},                 // "- deadline" indented wrongly on line 6
		{"bad-yaml-quote.yaml", []int{5}, ""},                  // a quote opened on line 5 never closes
		{"bad-yaml-colon.yaml", []int{5}, "mapping values"},    // "text: INVADE: Alice"
		{"unknown-key.yaml", []int{4}, `unknown key "rounds"`}, // top-level key
		{"unknown-step-key.yaml", []int{8}, `unknown key "colour"`},
		{"two-kinds.yaml", []int{6, 7}, "exactly one of"}, // post and pm in one step
		{"deadline-with-text.yaml", []int{6, 7}, "no text"},
		{"missing-text.yaml", []int{5}, "needs a text"},
		{"wrong-type.yaml", []int{3}, "seven"},
		{"not-a-mapping.yaml", []int{1}, "mapping"},
		{"duplicate-player.yaml", []int{2, 5}, "twice"},
		{"unknown-game.yaml", []int{2}, "chess"},
		{"unknown-option.yaml", []int{4, 5}, "roundz"},
		{"bad-option-value.yaml", []int{4, 5}, "many"},
	}
	dir := absPath(t, filepath.Join("testdata", "malformed"))
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			for _, args := range [][]string{{"replay"}, {"replay", "--json"}} {
				// Relative to the working directory, as a user types it.
				r := runCLIWith(t, cliOpts{dir: dir}, append(args, tc.file)...)
				wantExit(t, r, 2, strings.Join(args, " ")+" "+tc.file)
				if strings.TrimSpace(r.stdout) != "" {
					t.Errorf("a malformed scenario printed to stdout: %s", r.stdout)
				}
				m := regexp.MustCompile(regexp.QuoteMeta(tc.file) + `:(\d+):`).FindStringSubmatch(r.stderr)
				if m == nil {
					t.Fatalf("error does not name the file and line as %s:LINE: %q", tc.file, r.stderr)
				}
				line, _ := strconv.Atoi(m[1])
				if !containsInt(tc.lines, line) {
					t.Errorf("error names line %d, want %v: %q", line, tc.lines, r.stderr)
				}
				if !strings.Contains(r.stderr, tc.msg) {
					t.Errorf("error does not say %q: %q", tc.msg, r.stderr)
				}
			}
		})
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func TestCLIReplayUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing file", []string{"replay", "no-such-scenario.yaml"}, 2, "no-such-scenario.yaml"},
		{"no file", []string{"replay"}, 2, "one scenario file"},
		{"two files", []string{"replay", "a.yaml", "b.yaml"}, 2, "one scenario file"},
		{"unknown flag", []string{"replay", "--jsn", "a.yaml"}, 1, "jsn"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, tc.args...)
			wantExit(t, r, tc.code, strings.Join(tc.args, " "))
			if !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("stderr does not say %q:\n%s", tc.msg, r.stderr)
			}
		})
	}
}

// ---------------------------------------------------------------- maps

// svgDoc is what the map check reads from a picture.
type svgDoc struct {
	XMLName xml.Name `xml:"svg"`
	Groups  []svgG   `xml:"g"`
}

type svgG struct {
	Class    string       `xml:"class,attr"`
	Hex      string       `xml:"data-hex,attr"`
	Polygons []svgPolygon `xml:"polygon"`
	Circles  []svgPolygon `xml:"circle"`
	Texts    []string     `xml:"text"`
}

type svgPolygon struct {
	Class string `xml:"class,attr"`
	Hex   string `xml:"data-hex,attr"`
}

// TestCLIReplayMapOut draws the Protest example's maps and checks that every
// picture is there, parses, names every hex, and that only the GM's shows
// the sites still hidden.
func TestCLIReplayMapOut(t *testing.T) {
	file := absPath(t, filepath.Join(repoRoot, "testdata", "examples", "protest-example.yaml"))
	var sc struct {
		Setup struct {
			Map struct {
				Columns, Rows int
			} `json:"map"`
			Sites []string `json:"sites"`
		} `json:"setup"`
		Script []struct {
			Deadline bool `json:"deadline"`
		} `json:"script"`
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatal(err)
	}
	turns := 0
	for _, s := range sc.Script {
		if s.Deadline {
			turns++
		}
	}
	sites := map[string]bool{}
	for _, s := range sc.Setup.Sites {
		sites[s] = true
	}
	if turns == 0 || len(sites) == 0 || sc.Setup.Map.Columns == 0 {
		t.Fatalf("the protest example changed: %d turns, sites %v, map %+v", turns, sites, sc.Setup.Map)
	}
	allHexes := map[string]bool{}
	for c := 0; c < sc.Setup.Map.Columns; c++ {
		for r := 1; r <= sc.Setup.Map.Rows; r++ {
			allHexes[columnName(c)+strconv.Itoa(r)] = true
		}
	}

	out := filepath.Join(t.TempDir(), "maps")
	r := runCLI(t, "replay", "--json", "--map-out", out, file)
	wantExit(t, r, 0, "replay --map-out")
	var res map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("--map-out changed the JSON output: %v", err)
	}

	// Exactly turn-0 … turn-N, four files each.
	var want []string
	for n := 0; n <= turns; n++ {
		for _, suf := range []string{".svg", ".png", "-gm.svg", "-gm.png"} {
			want = append(want, fmt.Sprintf("turn-%d%s", n, suf))
		}
	}
	var have []string
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		have = append(have, e.Name())
	}
	sort.Strings(want)
	if !reflect.DeepEqual(have, want) {
		t.Errorf("files written: %v\nwant %v", have, want)
	}

	prevRevealed := map[string]bool{}
	for n := 0; n <= turns; n++ {
		pub := readSVG(t, filepath.Join(out, fmt.Sprintf("turn-%d.svg", n)), allHexes)
		gm := readSVG(t, filepath.Join(out, fmt.Sprintf("turn-%d-gm.svg", n)), allHexes)
		if len(pub.hidden) > 0 {
			t.Errorf("turn %d: the public map shows hidden sites %v", n, keysOfBool(pub.hidden))
		}
		raw, _ := os.ReadFile(filepath.Join(out, fmt.Sprintf("turn-%d.svg", n)))
		if bytes.Contains(raw, []byte("hidden")) {
			t.Errorf("turn %d: the public map mentions something hidden", n)
		}
		if !reflect.DeepEqual(pub.revealed, gm.revealed) {
			t.Errorf("turn %d: public map reveals %v, GM map %v", n, keysOfBool(pub.revealed), keysOfBool(gm.revealed))
		}
		for h := range pub.revealed {
			if !sites[h] {
				t.Errorf("turn %d: %s is shown as a site but is none", n, h)
			}
		}
		// The GM sees every site: revealed or still hidden, never both.
		union := map[string]bool{}
		for h := range gm.revealed {
			union[h] = true
		}
		for h := range gm.hidden {
			if gm.revealed[h] {
				t.Errorf("turn %d: %s both hidden and revealed on the GM map", n, h)
			}
			union[h] = true
		}
		if !reflect.DeepEqual(union, sites) {
			t.Errorf("turn %d: the GM map shows sites %v, want %v", n, keysOfBool(union), keysOfBool(sites))
		}
		for h := range prevRevealed {
			if !pub.revealed[h] {
				t.Errorf("turn %d: %s was revealed before and is no longer shown", n, h)
			}
		}
		if n == 0 && len(pub.revealed) != 0 {
			t.Errorf("turn 0: sites revealed before any protest: %v", keysOfBool(pub.revealed))
		}
		if n == turns {
			if !sameSet(res["revealed"], anyList(keysOfBool(pub.revealed))) {
				t.Errorf("the last map reveals %v, replay says %v", keysOfBool(pub.revealed), res["revealed"])
			}
		}
		prevRevealed = pub.revealed

		ppub := readPNG(t, filepath.Join(out, fmt.Sprintf("turn-%d.png", n)))
		pgm := readPNG(t, filepath.Join(out, fmt.Sprintf("turn-%d-gm.png", n)))
		if len(gm.hidden) > 0 && bytes.Equal(ppub, pgm) {
			t.Errorf("turn %d: the public and GM PNGs are the same though sites are hidden", n)
		}
	}
}

// columnName is a hex column's letters: A … Z, AA, AB, …
func columnName(c int) string {
	s := ""
	for c++; c > 0; c = (c - 1) / 26 {
		s = string(rune('A'+(c-1)%26)) + s
	}
	return s
}

type mapMarks struct{ revealed, hidden map[string]bool }

// readSVG parses a map picture, checks it names every hex once, and returns
// the sites it marks.
func readSVG(t *testing.T, path string, hexes map[string]bool) mapMarks {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Well-formed XML from the first token to the last.
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("%s is not XML: %v", path, err)
		}
	}
	var doc svgDoc
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	marks := mapMarks{revealed: map[string]bool{}, hidden: map[string]bool{}}
	named := map[string]int{}
	for _, g := range doc.Groups {
		if g.Class != "hex" {
			continue
		}
		named[g.Hex]++
		if !containsString(g.Texts, g.Hex) {
			t.Errorf("%s: hex %s is drawn without its name (texts %q)", filepath.Base(path), g.Hex, g.Texts)
		}
		for _, p := range g.Polygons {
			cls := strings.Fields(p.Class)
			if !containsString(cls, "site") {
				continue
			}
			if p.Hex != g.Hex {
				t.Errorf("%s: site mark for %s drawn in hex %s", filepath.Base(path), p.Hex, g.Hex)
			}
			switch {
			case containsString(cls, "revealed"):
				marks.revealed[g.Hex] = true
			case containsString(cls, "hidden"):
				marks.hidden[g.Hex] = true
			default:
				t.Errorf("%s: site mark %q in %s is neither revealed nor hidden", filepath.Base(path), p.Class, g.Hex)
			}
		}
	}
	for h := range hexes {
		if named[h] != 1 {
			t.Errorf("%s: hex %s drawn %d times", filepath.Base(path), h, named[h])
		}
	}
	for h := range named {
		if !hexes[h] {
			t.Errorf("%s: hex %s is not on the map", filepath.Base(path), h)
		}
	}
	return marks
}

func readPNG(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", path, err)
	}
	if r := img.Bounds(); r.Dx() < 100 || r.Dy() < 100 {
		t.Errorf("%s is only %dx%d", path, r.Dx(), r.Dy())
	}
	return b
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func keysOfBool(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func anyList(xs []string) []any {
	out := []any{}
	for _, x := range xs {
		out = append(out, x)
	}
	return out
}

// TestCLIReplayMapOutNations: Nations' pictures are its charts, one per
// round from the start, with no GM copy (nothing in them is secret).
func TestCLIReplayMapOutNations(t *testing.T) {
	out := filepath.Join(t.TempDir(), "charts")
	f := absPath(t, filepath.Join(repoRoot, "testdata", "examples", "nations-example.yaml"))
	r := runCLI(t, "replay", "--map-out", out, f)
	wantExit(t, r, 0, "replay --map-out")
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, e := range ents {
		have[e.Name()] = true
		if strings.Contains(e.Name(), "-gm") {
			t.Errorf("a GM chart: %s", e.Name())
		}
	}
	for _, want := range []string{"turn-0.svg", "turn-0.png", "turn-1.svg", "turn-1.png"} {
		if !have[want] {
			t.Errorf("no %s in %v", want, have)
		}
	}
}

func TestCLIReplayMapOutOtherGames(t *testing.T) {
	for _, game := range []string{"resistance"} {
		t.Run(game, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "maps")
			f := absPath(t, filepath.Join(repoRoot, "testdata", "examples", game+"-example.yaml"))
			r := runCLI(t, "replay", "--map-out", out, f)
			if r.code == 0 {
				t.Fatalf("--map-out for %s succeeded:\n%s", game, r)
			}
			if !strings.Contains(r.stderr, "--map-out") || !strings.Contains(r.stderr, game) {
				t.Errorf("the error should say --map-out does not apply to %s: %q", game, r.stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was created anyway", out)
			}
		})
	}
}

// ---------------------------------------------------------------- parse

// TestCLIParse: the command prints exactly what the parser's golden files
// say it reads from each saved page.
func TestCLIParse(t *testing.T) {
	td := absPath(t, filepath.Join(repoRoot, "parser", "testdata"))
	tests := []struct{ engine, page string }{
		{"phpbb", "phpbb33_thread"},
		{"phpbb", "phpbb30_thread"},
		{"mybb", "mybb_thread"},
	}
	for _, tc := range tests {
		t.Run(tc.page, func(t *testing.T) {
			r := runCLI(t, "parse", "--engine", tc.engine, filepath.Join(td, tc.page+".html"))
			wantExit(t, r, 0, "parse")
			var got map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, r.stdout)
			}
			if got["kind"] != "thread" {
				t.Errorf("kind = %v, want thread", got["kind"])
			}
			if p, _ := got["pages"].(float64); p < 1 {
				t.Errorf("pages = %v", got["pages"])
			}
			posts := asList(got["posts"])
			segs := 0
			for _, p := range posts {
				m, _ := p.(map[string]any)
				if m["id"] == "" || m["author"] == "" || m["time"] == nil {
					t.Errorf("post without id, author or time: %v", m)
				}
				if _, ok := m["segments"]; !ok {
					t.Errorf("post %v has no segments key", m["id"])
				}
				segs += len(asList(m["segments"]))
			}
			if len(posts) == 0 || segs == 0 {
				t.Fatalf("%d posts, %d segments", len(posts), segs)
			}
			b, err := os.ReadFile(filepath.Join(td, tc.page+".golden.json"))
			if err != nil {
				t.Fatal(err)
			}
			var golden map[string]any
			if err := json.Unmarshal(b, &golden); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, golden) {
				t.Errorf("forumgm parse differs from %s.golden.json:\n%s", tc.page, r.stdout)
			}
		})
	}
	page := filepath.Join(td, "phpbb33_thread.html")
	t.Run("unknown engine", func(t *testing.T) {
		r := runCLI(t, "parse", "--engine", "vbulletin", page)
		if r.code == 0 || !strings.Contains(r.stderr, `unknown engine "vbulletin"`) || strings.TrimSpace(r.stdout) != "" {
			t.Errorf("want a clear error for an unknown engine:\n%s", r)
		}
	})
	t.Run("missing page", func(t *testing.T) {
		r := runCLI(t, "parse", "--engine", "phpbb", "no-such-page.html")
		if r.code == 0 || !strings.Contains(r.stderr, "no-such-page.html") {
			t.Errorf("want an error naming the missing page:\n%s", r)
		}
	})
	t.Run("no page", func(t *testing.T) {
		r := runCLI(t, "parse")
		if r.code != 2 || !strings.Contains(r.stderr, "usage") {
			t.Errorf("want a usage error:\n%s", r)
		}
	})
}

// ---------------------------------------------------------------- sim

// TestCLISim starts the local forum on a free port, reads its demo thread
// over HTTP (and back through `forumgm parse`), and stops it with SIGTERM.
func TestCLISim(t *testing.T) {
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(cliBin, "sim", "--addr", addr)
	cmd.Dir = t.TempDir()
	cmd.Env = cliEnv(nil)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			cmd.Process.Kill()
			<-done
		}
	})
	// Read lines until the demo thread's URL; keep draining so the process
	// never blocks on a full pipe.
	urls := make(chan string, 1)
	var printed bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			printed.WriteString(line + "\n")
			if rest, ok := strings.CutPrefix(line, "demo thread: "); ok {
				urls <- strings.TrimSpace(rest)
			}
		}
		done <- cmd.Wait()
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		stopped = true
		t.Fatalf("sim exited before printing the demo thread: %v\n%s", err, stderr.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("no \"demo thread\" line within 20 s")
	}
	if !strings.HasPrefix(url, "http://"+addr+"/") {
		t.Errorf("demo thread %q is not on the address asked for (%s)", url, addr)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	// The page is a thread our own parser reads as one, with posts.
	page := filepath.Join(t.TempDir(), "thread.html")
	if err := os.WriteFile(page, body, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "parse", "--engine", "phpbb", page)
	wantExit(t, r, 0, "parse of the sim's thread")
	var got map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got["kind"] != "thread" || len(asList(got["posts"])) == 0 {
		t.Errorf("the demo thread has no posts: %s", r.stdout)
	}

	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		stopped = true
		if err != nil {
			t.Errorf("sim did not exit 0 on SIGTERM: %v\n%s", err, stderr.String())
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("sim took %s to stop", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("sim still running 10 s after SIGTERM")
	}
	if !strings.Contains(printed.String(), "press Ctrl-C to stop") {
		t.Errorf("sim output:\n%s", printed.String())
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// ---------------------------------------------------------------- GM workflow

// gameReport is the part of `status --json` the workflow reads.
type gameReport struct {
	Name   string `json:"name"`
	Game   string `json:"game"`
	Status string `json:"status"`
	Rules  struct {
		Phase    string    `json:"phase"`
		Title    string    `json:"title"`
		Deadline time.Time `json:"deadline"`
		Waiting  []string  `json:"waiting"`
		Acted    []string  `json:"acted"`
		Finished bool      `json:"finished"`
	} `json:"rules"`
	Pending int `json:"outbox_pending"`
	Sent    int `json:"outbox_sent"`
	Failed  int `json:"outbox_failed"`
}

type outboxItem struct {
	ID            int64  `json:"id"`
	Kind          string `json:"kind"`
	Recipient     string `json:"recipient"`
	RecipientName string `json:"recipient_name"`
	RecipientID   string `json:"recipient_id"`
	Body          string `json:"body"`
	Marker        string `json:"marker"`
	State         string `json:"state"`
	ForumID       string `json:"forum_id"`
}

// gmSession runs the CLI against one database, collecting every output so
// the test can check that the bot's password never appears in any.
type gmSession struct {
	t        *testing.T
	dir, db  string
	password string
	outputs  []string
}

func (s *gmSession) run(args ...string) cliResult {
	s.t.Helper()
	r := runCLIWith(s.t, cliOpts{dir: s.dir, env: map[string]string{"FORUMGM_DB": s.db, "FORUMGM_CLI_TEST_PASSWORD": s.password}}, args...)
	s.outputs = append(s.outputs, r.stdout, r.stderr)
	return r
}

// ok runs a command that must succeed and returns its stdout.
func (s *gmSession) ok(args ...string) string {
	s.t.Helper()
	r := s.run(args...)
	if r.code != 0 {
		s.t.Fatalf("forumgm %s:\n%s", strings.Join(args, " "), r)
	}
	return r.stdout
}

// fails runs a command that must fail with a message containing msg.
func (s *gmSession) fails(code int, msg string, args ...string) {
	s.t.Helper()
	r := s.run(args...)
	if r.code != code || !strings.Contains(r.stderr, msg) {
		s.t.Errorf("forumgm %s: want exit %d saying %q\n%s", strings.Join(args, " "), code, msg, r)
	}
}

func (s *gmSession) status(game string) gameReport {
	s.t.Helper()
	var rs []gameReport
	out := s.ok("status", "--json", game)
	if err := json.Unmarshal([]byte(out), &rs); err != nil || len(rs) != 1 {
		s.t.Fatalf("status --json %s: %v\n%s", game, err, out)
	}
	return rs[0]
}

func (s *gmSession) outbox(game string) []outboxItem {
	s.t.Helper()
	var v struct {
		Messages json.RawMessage `json:"messages"`
		Outbox   []outboxItem    `json:"outbox"`
	}
	out := s.ok("audit", "--json", "--outbox", game)
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		s.t.Fatalf("audit --json --outbox: %v\n%s", err, out)
	}
	return v.Outbox
}

func newGMSession(t *testing.T) *gmSession {
	dir := t.TempDir()
	return &gmSession{t: t, dir: dir, db: filepath.Join(dir, "games.db"), password: fmt.Sprintf("pw-%d-Sekr1t", time.Now().UnixNano())}
}

// TestCLIGMWorkflow creates a game in a SQLite database and drives it with
// the GM commands, without the daemon: what they queue stays in the outbox.
func TestCLIGMWorkflow(t *testing.T) {
	s := newGMSession(t)
	games := absPath(t, filepath.Join("testdata", "games"))
	spies, benedict := s.spiesOnBoard()
	const g = "spies-cli"
	players := []string{"Ann", "Ben", "Cat", "Dan", "Eli"}
	ids := map[string]string{"Ann": "2", "Ben": "3", "Cat": "4", "Dan": "5", "Eli": "6"}

	// new, with the database given by --db (later ones by FORUMGM_DB).
	before := time.Now()
	out := s.ok("new", "--no-probe", "--db", s.db, spies)
	after := time.Now()
	if want := "created game spies-cli (resistance, 5 players, seed 5)"; !strings.Contains(out, want) {
		t.Errorf("new printed %q, want %q", out, want)
	}
	s.fails(2, "already exists", "new", "--no-probe", "--db", s.db, spies)
	// A second game in the same database, addressed by name below.
	s.ok("new", "--no-probe", filepath.Join(games, "nations.game.yaml"))

	// status: text for a person, JSON for a script.
	text := s.ok("status", g)
	for _, want := range []string{"spies-cli (resistance) — running", "phase:    m1-p1", "deadline:", "waiting:", "acted:", "outbox:   0 sent, 6 waiting", "forum:    not read yet"} {
		if !strings.Contains(text, want) {
			t.Errorf("status lacks %q:\n%s", want, text)
		}
	}
	all := s.ok("status")
	if !strings.Contains(all, "spies-cli (resistance)") || !strings.Contains(all, "nations-cli (nations)") {
		t.Errorf("status without a name should list both games:\n%s", all)
	}
	// --db wins over FORUMGM_DB; a database that does not exist is an
	// error, not an empty board (a mistyped --db must not hide the games).
	s.fails(2, "no database at", "status", "--db", filepath.Join(s.dir, "other.db"))
	if _, err := os.Stat(filepath.Join(s.dir, "other.db")); err == nil {
		t.Error("status created the database it was pointed at")
	}
	st := s.status(g)
	if st.Name != g || st.Game != "resistance" || st.Status != "running" || st.Rules.Phase != "m1-p1" || st.Rules.Finished {
		t.Errorf("status --json: %+v", st)
	}
	// phase_hours: 48 from the moment the game was created, rounded up to
	// a whole minute (the board stamps PMs to the minute).
	if dl := st.Rules.Deadline; dl.Before(before.Add(48*time.Hour).Add(-time.Second)) || dl.After(after.Add(48*time.Hour).Add(time.Minute)) || dl.Second() != 0 {
		t.Errorf("deadline %s, want 48h after creation (%s)", dl, before)
	}
	if len(st.Rules.Waiting) == 0 {
		t.Errorf("nobody is waited for in the first proposal: %+v", st.Rules)
	}
	for _, w := range st.Rules.Waiting {
		if !containsString(players, w) {
			t.Errorf("waiting for %q, who is not playing", w)
		}
	}
	if st.Pending != 6 || st.Sent != 0 {
		t.Errorf("outbox: %d pending, %d sent; want the opening post and 5 role PMs pending", st.Pending, st.Sent)
	}
	if strings.Contains(s.ok("status", "--json"), "You are a SPY") {
		t.Error("status shows a role")
	}

	// The queued opening post and role PMs.
	box := s.outbox(g)
	if len(box) != 6 {
		t.Fatalf("outbox has %d items, want 6: %+v", len(box), box)
	}
	if box[0].Kind != "post" || !strings.Contains(box[0].Body, "Resistance") {
		t.Errorf("first outbox item is not the opening post: %+v", box[0])
	}
	spiesN := 0
	for _, it := range box[1:] {
		if it.Kind != "pm" || it.State != "pending" || ids[it.Recipient] == "" || it.RecipientID != ids[it.Recipient] || it.RecipientName != it.Recipient {
			t.Errorf("role PM %+v: want a pending PM to a player, by their id", it)
		}
		if strings.Contains(it.Body, "You are a SPY") {
			spiesN++
		} else if !strings.Contains(it.Body, "RESISTANCE") {
			t.Errorf("PM to %s tells no role: %q", it.Recipient, it.Body)
		}
	}
	if spiesN != 2 {
		t.Errorf("%d spies among 5 players, want 2", spiesN)
	}
	atext := s.ok("audit", "--outbox", g)
	if !strings.Contains(atext, "OUTBOX") || strings.Count(atext, "pending thread") != 1 || strings.Count(atext, "pending PM to ") != 5 {
		t.Errorf("audit --outbox:\n%s", atext)
	}
	for _, p := range players {
		if !strings.Contains(atext, "PM to "+p) {
			t.Errorf("audit --outbox lists no PM to %s", p)
		}
	}

	// extend moves the deadline by exactly that much; a negative one back.
	dl0 := st.Rules.Deadline
	if out := s.ok("extend", g, "2h"); !strings.Contains(out, "deadline of spies-cli is now") {
		t.Errorf("extend printed %q", out)
	}
	if got := s.status(g).Rules.Deadline; !got.Equal(dl0.Add(2 * time.Hour)) {
		t.Errorf("after extend 2h the deadline is %s, want %s", got, dl0.Add(2*time.Hour))
	}
	s.ok("extend", g, "-30m")
	dl1 := dl0.Add(90 * time.Minute)
	if got := s.status(g).Rules.Deadline; !got.Equal(dl1) {
		t.Errorf("after extend -30m the deadline is %s, want %s", got, dl1)
	}
	s.fails(2, "duration", "extend", g, "soon")

	// pause / resume: the deadline moves by the pause.
	if out := s.ok("pause", g); strings.TrimSpace(out) != "paused" {
		t.Errorf("pause printed %q", out)
	}
	if st := s.status(g); st.Status != "paused" {
		t.Errorf("status after pause: %s", st.Status)
	}
	if !strings.Contains(s.ok("status", g), "— paused") {
		t.Error("status text does not say paused")
	}
	s.fails(1, "not running", "pause", g)
	time.Sleep(1500 * time.Millisecond)
	if out := s.ok("resume", g); strings.TrimSpace(out) != "resumed" {
		t.Errorf("resume printed %q", out)
	}
	st = s.status(g)
	if moved := st.Rules.Deadline.Sub(dl1); st.Status != "running" || moved < 1500*time.Millisecond || moved > 90*time.Second || st.Rules.Deadline.Second() != 0 {
		t.Errorf("after a 1.5 s pause: status %s, deadline moved by %s", st.Status, moved)
	}
	s.fails(1, "not paused", "resume", g)

	// preview shows what resolve-now would post, and changes nothing.
	pv := s.ok("preview", g)
	if !strings.Contains(pv, "Resolving Mission 1, proposal 1 (m1-p1) of spies-cli now would make") || !strings.Contains(pv, "nothing has been sent or saved") ||
		!strings.Contains(pv, "=== 1. thread post ===") || !strings.Contains(pv, "[b]Deadline:[/b]") || !strings.Contains(pv, "forumgm resolve-now spies-cli --phase m1-p1") {
		t.Errorf("preview printed:\n%s", pv)
	}
	if st1 := s.status(g); st1.Rules.Phase != st.Rules.Phase || st1.Pending != st.Pending {
		t.Errorf("preview changed the game: phase %s → %s, outbox %d → %d", st.Rules.Phase, st1.Rules.Phase, st.Pending, st1.Pending)
	}
	s.fails(1, "has moved past phase m9-p9: the current phase is m1-p1", "preview", "--phase", "m9-p9", g)

	// resolve-now --phase closes the proposal: a new phase, a new post
	// queued; the same again is refused, naming the current phase.
	if out := s.ok("resolve-now", "--phase", st.Rules.Phase, g); !strings.Contains(out, "resolved") {
		t.Errorf("resolve-now printed %q", out)
	}
	st2 := s.status(g)
	if st2.Rules.Phase == st.Rules.Phase || st2.Pending <= st.Pending {
		t.Errorf("resolve-now: phase %s → %s, outbox %d → %d", st.Rules.Phase, st2.Rules.Phase, st.Pending, st2.Pending)
	}
	s.fails(1, "has moved past phase "+st.Rules.Phase+": the current phase is "+st2.Rules.Phase, "resolve-now", "--phase", st.Rules.Phase, g)
	if st3 := s.status(g); st3.Rules.Phase != st2.Rules.Phase || st3.Pending != st2.Pending {
		t.Errorf("a refused resolve-now changed the game: phase %s → %s", st2.Rules.Phase, st3.Rules.Phase)
	}
	// Without --phase, whatever phase is current, as before.
	if out := s.ok("resolve-now", g); !strings.Contains(out, "resolved") {
		t.Errorf("resolve-now printed %q", out)
	}
	st2 = s.status(g)

	// replace: the new account takes the slot.
	s.fails(1, `no account named "Zora"`, "replace", g, "Ben", "Zora")
	s.fails(1, "already a player", "replace", g, "Ben", "cat")
	if out := s.ok("replace", "--id", benedict, g, "Ben", "Benedict"); !strings.Contains(out, "Benedict now plays in Ben's slot, replacing Ben") {
		t.Errorf("replace printed %q", out)
	}
	s.fails(1, "Zed", "replace", g, "Zed", "Zora")
	s.fails(2, "replace takes", "replace", g, "Ben")

	// void: a bad id is a clear error, not a crash.
	s.fails(1, "command 999", "void", g, "999")
	s.fails(2, "command id", "void", g, "abc")

	// Unknown games.
	s.fails(1, "no-such-game", "status", "no-such-game")
	s.fails(1, "no-such-game", "extend", "no-such-game", "1h")

	// end: the game is over and says so; GM controls are refused after.
	if out := s.ok("end", g); !strings.Contains(out, "ended") {
		t.Errorf("end printed %q", out)
	}
	st = s.status(g)
	if st.Status != "ended" || !st.Rules.Finished {
		t.Errorf("after end: %+v", st)
	}
	if !strings.Contains(s.ok("status", g), "— ended") {
		t.Error("status text does not say ended")
	}
	s.fails(1, "ended", "end", g)
	s.fails(1, "ended", "extend", g, "1h")
	if st.Pending <= st2.Pending {
		t.Errorf("end queued no final post (outbox %d → %d)", st2.Pending, st.Pending)
	}
	// The other game is untouched.
	if ns := s.status("nations-cli"); ns.Status != "running" || ns.Rules.Phase == "" {
		t.Errorf("nations-cli: %+v", ns)
	}

	// The bot's password is never printed nor stored.
	for _, o := range s.outputs {
		if strings.Contains(o, s.password) {
			t.Fatalf("the bot's password appears in an output:\n%s", o)
		}
	}
	files, _ := filepath.Glob(s.db + "*")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte(s.password)) {
			t.Errorf("the bot's password is stored in %s", f)
		}
	}
}

// TestCLIReplaceRedirectsQueuedPMs: after `replace`, what the bot has yet to
// send to that slot must go to the new account, not the one that left.
func TestCLIReplaceRedirectsQueuedPMs(t *testing.T) {
	s := newGMSession(t)
	spies, benedict := s.spiesOnBoard()
	s.ok("new", "--no-probe", spies)
	s.ok("replace", "--id", benedict, "spies-cli", "Ben", "Benedict")
	for _, it := range s.outbox("spies-cli") {
		if it.Kind == "pm" && it.Recipient == "Ben" && it.State == "pending" && (it.RecipientName != "Benedict" || it.RecipientID != benedict) {
			t.Errorf("pending PM %s for Ben's slot still goes to %s (id %s), who was replaced by Benedict (id %s)", it.Marker, it.RecipientName, it.RecipientID, benedict)
		}
	}
}

// TestCLIFlagsAfterArguments: the README documents the flags after the
// arguments (`forumgm audit GAME [--json] [--outbox]`, `replace GAME OLD NEW
// [--id N]`), so that order must work too.
func TestCLIFlagsAfterArguments(t *testing.T) {
	s := newGMSession(t)
	spies, benedict := s.spiesOnBoard()
	s.ok("new", "--no-probe", spies)
	isJSON := func(out string) bool { return json.Valid([]byte(out)) }
	tests := []struct {
		args []string
		took func(out string) bool // did the flag take effect
	}{
		{[]string{"audit", "spies-cli", "--json"}, isJSON},
		{[]string{"audit", "spies-cli", "--outbox"}, func(out string) bool { return strings.Contains(out, "OUTBOX") }},
		{[]string{"status", "spies-cli", "--json"}, isJSON},
		{[]string{"replace", "spies-cli", "Ben", "Benedict", "--id", benedict}, func(string) bool { return true }},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := s.run(tc.args...)
			if r.code != 0 || !tc.took(r.stdout) {
				t.Errorf("forumgm %s: the flag after the arguments was not taken:\n%s", strings.Join(tc.args, " "), r)
			}
		})
	}
}

// TestCLINewRefuses: game files that must not create a game.
func TestCLINewRefuses(t *testing.T) {
	tests := []struct {
		file string
		msg  []string
	}{
		{"password-inline.game.yaml", []string{"password-inline.game.yaml", "password"}},
		{"phpbb-no-ids.game.yaml", []string{"phpbb-no-ids.game.yaml", "id"}},
		{"no-such.game.yaml", []string{"no-such.game.yaml"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			s := newGMSession(t)
			r := s.run("new", absPath(t, filepath.Join("testdata", "games", tc.file)))
			if r.code == 0 {
				t.Fatalf("new accepted %s:\n%s", tc.file, r)
			}
			for _, m := range tc.msg {
				if !strings.Contains(r.stderr, m) {
					t.Errorf("error does not say %q: %q", m, r.stderr)
				}
			}
			if r := s.run("status"); r.code == 0 && !strings.Contains(r.stdout, "no games yet") {
				t.Errorf("a game was created anyway:\n%s", r)
			}
		})
	}
}

// TestCLIDatabaseURLPasswordRedacted: a malformed or unreachable database
// URL, in --db or FORUMGM_DB, is named in the error without its password.
func TestCLIDatabaseURLPasswordRedacted(t *testing.T) {
	const pw = "Sw0rdfishPW"
	for _, dsn := range []string{
		"postgres://gm:" + pw + "@db.example:notaport/forumgm",
		"postgres:/gm:" + pw + "@127.0.0.1/forumgm",
		"postgres://gm:" + pw + "@127.0.0.1:1/forumgm?connect_timeout=2",
	} {
		for _, viaEnv := range []bool{false, true} {
			for _, cmd := range []string{"status", "run"} {
				o, args := cliOpts{timeout: 30 * time.Second}, []string{cmd}
				if viaEnv {
					o.env = map[string]string{"FORUMGM_DB": dsn}
				} else {
					args = append(args, "--db", dsn)
				}
				r := runCLIWith(t, o, args...)
				if r.code == 0 {
					t.Fatalf("forumgm %s with %s succeeded:\n%s", cmd, dsn, r)
				}
				if strings.Contains(r.stdout+r.stderr, pw) {
					t.Errorf("forumgm %s echoes the database password:\n%s", cmd, r)
				}
			}
		}
	}
}

// TestCLIRunWithSim: `forumgm run` moderates a game created with `new` on
// the local forum: the opening post appears in the thread, the bot's
// password is never logged, and SIGTERM stops it cleanly.
func TestCLIRunWithSim(t *testing.T) {
	if testing.Short() {
		t.Skip("logs in to a local forum and waits for the first post (about 10 s)")
	}
	t.Parallel() // real time, mostly waiting
	password := fmt.Sprintf("simpw-%d", time.Now().UnixNano())
	sim := startBackground(t, cliEnv(nil), "sim", "--addr", "127.0.0.1:0", "--password", password, "--flood", "0")
	url := sim.waitLine(t, "demo thread: ", 20*time.Second)
	base := url[:strings.Index(url, "viewtopic.php")]
	topic := url[strings.Index(url, "t=")+2:]

	s := newGMSession(t)
	s.password = password
	game := filepath.Join(s.dir, "live.game.yaml")
	gf := fmt.Sprintf(`name: live-cli
game: nations
forum:
  url: %s
  engine: phpbb
  thread: %q
  bot: GM Bot
  password_env: FORUMGM_CLI_TEST_PASSWORD
  poll_seconds: 1
  requests_per_second: 20
players:
  - {name: Alice, id: "2"}
  - {name: Bob, id: "3"}
  - {name: Carol, id: "4"}
options: {rounds: 2, round_minutes: 60}
seed: 3
`, base, topic)
	if err := os.WriteFile(game, []byte(gf), 0o600); err != nil {
		t.Fatal(err)
	}
	s.ok("new", game)
	run := startBackground(t, cliEnv(map[string]string{"FORUMGM_DB": s.db, "FORUMGM_CLI_TEST_PASSWORD": password}), "run")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if st := s.status("live-cli"); st.Sent >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("run sent nothing in 60 s; its log:\n%s", run.output())
		}
		time.Sleep(500 * time.Millisecond)
	}
	// The opening post, by the id the outbox recorded for it.
	box := s.outbox("live-cli")
	if len(box) == 0 || box[0].Kind != "post" || box[0].State != "sent" || box[0].ForumID == "" {
		t.Fatalf("outbox after the first send: %+v", box)
	}
	resp, err := http.Get(base + "viewtopic.php?p=" + box[0].ForumID)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Nations begins") {
		t.Errorf("the opening post %s is not in the thread (%s)", box[0].ForumID, resp.Status)
	}
	code, took := run.stop(t, syscall.SIGTERM)
	if code != 0 || took > 10*time.Second {
		t.Errorf("run after SIGTERM: exit %d after %s\n%s", code, took, run.output())
	}
	if strings.Contains(run.output(), password) {
		t.Errorf("run logged the bot's password:\n%s", run.output())
	}
	if code, _ := sim.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("sim exit %d", code)
	}
}

// bgProc is a forumgm process running in the background whose output is
// collected line by line.
type bgProc struct {
	cmd   *exec.Cmd
	mu    chan struct{} // a one-slot lock around out
	out   bytes.Buffer
	lines chan string
	done  chan int
}

func startBackground(t *testing.T, env []string, args ...string) *bgProc {
	t.Helper()
	p := &bgProc{cmd: exec.Command(cliBin, args...), mu: make(chan struct{}, 1), lines: make(chan string, 1000), done: make(chan int, 1)}
	p.cmd.Dir = t.TempDir()
	p.cmd.Env = env
	pr, pw := io.Pipe()
	p.cmd.Stdout, p.cmd.Stderr = pw, pw
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			p.mu <- struct{}{}
			p.out.WriteString(sc.Text() + "\n")
			<-p.mu
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
	}()
	exited := make(chan struct{})
	go func() {
		p.cmd.Wait()
		pw.Close()
		p.done <- p.cmd.ProcessState.ExitCode()
		close(exited)
	}()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			p.cmd.Process.Kill()
			<-exited
		}
	})
	return p
}

func (p *bgProc) output() string {
	p.mu <- struct{}{}
	defer func() { <-p.mu }()
	return p.out.String()
}

// waitLine returns the rest of the first line starting with prefix.
func (p *bgProc) waitLine(t *testing.T, prefix string, d time.Duration) string {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case l := <-p.lines:
			if rest, ok := strings.CutPrefix(strings.TrimLeft(l, " "), prefix); ok {
				return strings.TrimSpace(rest)
			}
		case <-timeout:
			t.Fatalf("no %q line within %s:\n%s", prefix, d, p.output())
		}
	}
}

// stop signals the process and returns its exit code and how long it took.
func (p *bgProc) stop(t *testing.T, sig os.Signal) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-p.done:
		return code, time.Since(start)
	case <-time.After(15 * time.Second):
		t.Fatalf("%v still running 15 s after %v:\n%s", p.cmd.Args, sig, p.output())
	}
	return -1, 0
}

// ---------------------------------------------------------------- demo

func TestCLIDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo plays a whole game (about 20 s)")
	}
	t.Parallel() // real time, mostly waiting
	r := runCLIWith(t, cliOpts{timeout: 2 * time.Minute}, "demo", "--game", "nations", "--speed", "4")
	wantExit(t, r, 0, "demo")
	if r.elapsed > 60*time.Second {
		t.Errorf("the demo took %s, want about a minute at most", r.elapsed)
	}
	if !regexp.MustCompile(`http://127\.0\.0\.1:\d+/viewtopic\.php\?t=\d+`).MatchString(r.stdout) {
		t.Errorf("the demo printed no thread URL:\n%s", r.stdout)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	found := false
	for _, l := range lines[max(0, len(lines)-5):] {
		if strings.Contains(l, "game is over") {
			found = true
		}
	}
	if !found {
		t.Errorf("no \"game is over\" line at the end:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "Final scoreboard") {
		t.Errorf("the bot's final post is not shown:\n%s", r.stdout)
	}
}

// TestCLIDemoKeep: with --keep the forum stays up after the game, for
// browsing, until Ctrl-C, which ends it cleanly.
func TestCLIDemoKeep(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a whole game")
	}
	t.Parallel() // real time, mostly waiting
	p := startBackground(t, cliEnv(nil), "demo", "--game", "nations", "--speed", "8", "--keep")
	url := p.waitLine(t, "open the thread in a browser: ", 20*time.Second)
	// With --keep, and only then, the end gives the address again.
	if end := p.waitLine(t, "thread: ", 90*time.Second); end != url+" — the forum stays up until you press Ctrl-C" {
		t.Errorf("the closing line says %q", end)
	}
	// The final post is on the thread's last page: how many pages the
	// game took depends on its players' timing.
	shown, status := false, ""
	for start := 0; start <= 400 && !shown; start += 10 {
		resp, err := http.Get(fmt.Sprintf("%s&start=%d", url, start))
		if err != nil {
			t.Fatalf("the forum is not up after the game: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		status = resp.Status
		shown = resp.StatusCode == http.StatusOK && strings.Contains(string(body), "Final scoreboard")
		if resp.StatusCode != http.StatusOK {
			break
		}
	}
	if !shown {
		t.Errorf("GET %s after the game: %s; the final post is on none of its pages", url, status)
	}
	if code, took := p.stop(t, os.Interrupt); code != 0 || took > 10*time.Second {
		t.Errorf("demo --keep after Ctrl-C: exit %d after %s\n%s", code, took, p.output())
	}
}

// ---------------------------------------------------------------- help

func TestCLIHelp(t *testing.T) {
	tests := []struct{ cmd, args string }{
		{"demo", ""},
		{"replay", "SCENARIO.yaml"},
		{"new", "GAME.yaml"},
		{"run", ""},
		{"status", "[GAME]"},
		{"audit", "GAME"},
		{"extend", "GAME DURATION"},
		{"resolve-now", "GAME"},
		{"preview", "GAME"},
		{"pause", "GAME"},
		{"resume", "GAME"},
		{"end", "GAME"},
		{"replace", "GAME OLD NEW"},
		{"void", "GAME COMMAND-ID"},
		{"sim", ""},
		{"parse", "PAGE.html"},
		{"probe", "[GAME.yaml]"},
	}
	top := runCLI(t, "--help")
	wantExit(t, top, 0, "--help")
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(tc.cmd) + `\s`).MatchString(top.stdout) {
				t.Errorf("forumgm --help does not list %s", tc.cmd)
			}
			usage := regexp.MustCompile(`(?m)^\s+forumgm ` + regexp.QuoteMeta(tc.cmd) + ` \[command options\]\s*` + regexp.QuoteMeta(tc.args) + `\s*$`)
			for _, args := range [][]string{{tc.cmd, "--help"}, {"help", tc.cmd}} {
				r := runCLI(t, args...)
				wantExit(t, r, 0, strings.Join(args, " "))
				if !strings.Contains(r.stdout, "USAGE:") || !usage.MatchString(r.stdout) {
					t.Errorf("forumgm %s shows no usage line %q:\n%s", strings.Join(args, " "), "forumgm "+tc.cmd+" [command options] "+tc.args, r.stdout)
				}
			}
		})
	}
	if r := runCLI(t, "no-such-command"); r.code == 0 {
		t.Errorf("an unknown command succeeded:\n%s", r)
	}
}
