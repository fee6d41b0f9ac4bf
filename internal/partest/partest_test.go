package partest

import (
	"flag"
	"io"
	"testing"
)

func TestDefault(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "7"},
		{[]string{"-test.parallel", "3"}, "3"},
		{[]string{"-test.parallel=1"}, "1"},
	} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("test.parallel", 2, "")
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		defaultIn(fs, 7)
		if got := fs.Lookup("test.parallel").Value.String(); got != tc.want {
			t.Errorf("%v: -parallel %s, want %s", tc.args, got, tc.want)
		}
	}
}
