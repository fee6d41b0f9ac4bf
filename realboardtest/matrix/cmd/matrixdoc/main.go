// Command matrixdoc writes the engine matrix (docs/engine-matrix.md) from
// the results the real-board tests wrote under $FORUMGM_MATRIX_OUT:
//
//	FORUMGM_MATRIX_OUT=/tmp/m go test ./realboardtest/realgames ./realboardtest/smftest ...
//	go run ./realboardtest/matrix/cmd/matrixdoc -in /tmp/m
//
// The new results replace the committed ones of the same test and cell in
// docs/engine-matrix.json (-fresh drops the committed ones), and the page
// is rendered from that file alone, so the matrix test can render it again.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/forumgm/forumgm/realboardtest/matrix"
)

func main() {
	in := flag.String("in", os.Getenv(matrix.OutEnv), "the results directory ($"+matrix.OutEnv+")")
	data := flag.String("data", "docs/engine-matrix.json", "the committed results file, updated")
	out := flag.String("out", "docs/engine-matrix.md", "the matrix page, rewritten")
	fresh := flag.Bool("fresh", false, "drop the committed results instead of merging into them")
	flag.Parse()
	if err := run(*in, *data, *out, *fresh); err != nil {
		fmt.Fprintln(os.Stderr, "matrixdoc:", err)
		os.Exit(1)
	}
}

func run(in, dataPath, out string, fresh bool) error {
	var d matrix.Data
	if !fresh {
		var err error
		if d, err = matrix.ReadData(dataPath); err != nil {
			return err
		}
	}
	if in != "" {
		rs, err := matrix.ReadDir(in)
		if err != nil {
			return err
		}
		if len(rs) == 0 {
			return fmt.Errorf("no results in %s (did the tests run with %s set?)", in, matrix.OutEnv)
		}
		d.Results = matrix.Merge(d.Results, rs)
	}
	page, err := matrix.Render(d)
	if err != nil {
		return err
	}
	b, err := d.Encode()
	if err != nil {
		return err
	}
	if err := os.WriteFile(dataPath, b, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(out, page, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d results; %s written\n", dataPath, len(d.Results), out)
	return nil
}
