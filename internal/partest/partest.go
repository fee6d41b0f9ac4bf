// Package partest sets how many of a package's tests run at once. Tests
// that mostly wait (on real clocks, real boards, processes they start)
// gain nothing from Go's default of one test per core: on a two-core
// machine it adds their waits up two by two.
package partest

import (
	"flag"
	"strconv"
)

// Default sets the test binary's -parallel to n unless it was given on the
// command line. Call it from TestMain before m.Run.
func Default(n int) {
	flag.Parse()
	defaultIn(flag.CommandLine, n)
}

func defaultIn(fs *flag.FlagSet, n int) {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		fs.Set("test.parallel", strconv.Itoa(n))
	}
}
