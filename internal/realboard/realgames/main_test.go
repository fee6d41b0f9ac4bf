package realgames

import (
	"flag"
	"os"
	"testing"
)

// TestMain raises the parallelism to 8 unless -parallel was given: these
// tests mostly wait on the boards' real clocks (flood limits, deadlines),
// and Go's default, the core count, would run them two by two here, doubling
// the package's time under a plain `go test ./...`.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", "8")
	}
	os.Exit(m.Run())
}
