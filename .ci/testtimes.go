// testtimes reads `go test -json` on its standard input and prints what a
// plain `go test` run prints (each package's ok/FAIL line, and the whole
// output of every test that failed), then each package's time, slowest
// first, so a CI log shows where the suite's minutes go. It exits 1 when a
// package or test failed, or when the input had no test event at all.
//
//	go test -json ./... | go run .ci/testtimes.go
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type pkgTime struct {
	name    string
	elapsed float64
	result  string
}

// slowest is how many of the slowest tests are listed after the packages.
const slowest = 15

func main() {
	start := time.Now()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	outputs := map[string][]string{} // package + test: its lines so far
	var pkgs, tests []pkgTime
	failed, events := false, 0
	for in.Scan() {
		var e event
		if err := json.Unmarshal(in.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Println(in.Text()) // a build error or anything else go test says plainly
			continue
		}
		events++
		key := e.Package + "\x00" + e.Test
		switch e.Action {
		case "output":
			if e.Test == "" {
				if s := strings.TrimSpace(e.Output); s != "PASS" && !strings.HasPrefix(s, "=== ") && s != "" {
					fmt.Print(e.Output)
				}
			} else {
				outputs[key] = append(outputs[key], e.Output)
			}
		case "fail":
			failed = true
			if e.Test != "" {
				fmt.Print(strings.Join(outputs[key], ""))
				tests = append(tests, pkgTime{e.Package + " " + e.Test, e.Elapsed, "FAIL"})
			} else {
				pkgs = append(pkgs, pkgTime{e.Package, e.Elapsed, "FAIL"})
			}
			delete(outputs, key)
		case "pass", "skip":
			if e.Test == "" {
				pkgs = append(pkgs, pkgTime{e.Package, e.Elapsed, e.Action})
			} else {
				tests = append(tests, pkgTime{e.Package + " " + e.Test, e.Elapsed, e.Action})
			}
			delete(outputs, key)
		}
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].elapsed > pkgs[j].elapsed })
	fmt.Printf("\n== each package's time (go test -json), slowest first; %d packages, %s of wall time in all\n", len(pkgs), time.Since(start).Round(time.Second))
	for _, p := range pkgs {
		if p.elapsed < 1 {
			continue
		}
		fmt.Printf("%8.1fs  %-4s  %s\n", p.elapsed, p.result, p.name)
	}
	sort.Slice(tests, func(i, j int) bool { return tests[i].elapsed > tests[j].elapsed })
	fmt.Printf("\n== the %d slowest tests (a parallel test's time includes its waits beside the others)\n", slowest)
	for _, p := range tests[:min(slowest, len(tests))] {
		fmt.Printf("%8.1fs  %-4s  %s\n", p.elapsed, p.result, p.name)
	}
	if failed || events == 0 {
		os.Exit(1)
	}
}
