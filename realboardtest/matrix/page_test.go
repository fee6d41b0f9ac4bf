package matrix_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/realboardtest/matrix"
)

// docs/engine-matrix.md is the generator's output for the committed
// results (docs/engine-matrix.json), byte for byte: a hand edit, or results
// committed without the page regenerated, fails here. Every result names a
// test that still exists in its package and a package that still marks
// cells, so a renamed or removed test shows as stale too.
func TestMatrixPageIsGenerated(t *testing.T) {
	root := filepath.Join("..", "..")
	d, err := matrix.ReadData(filepath.Join(root, "docs", "engine-matrix.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := matrix.Render(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "docs", "engine-matrix.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/engine-matrix.md is not the generator's output for docs/engine-matrix.json; regenerate it: go run ./realboardtest/matrix/cmd/matrixdoc")
	}

	sources := map[string]string{}
	for _, r := range d.Results {
		src, ok := sources[r.Package]
		if !ok {
			files, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(r.Package), "*_test.go"))
			var b strings.Builder
			for _, f := range files {
				body, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				b.Write(body)
			}
			src = b.String()
			sources[r.Package] = src
		}
		top, _, _ := strings.Cut(r.Test, "/")
		if !regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(top) + `\(t \*testing\.T\)`).MatchString(src) {
			t.Errorf("%s: %s is not a test in %s any more (stale results: rerun and regenerate)", r.FileName(), top, r.Package)
		}
		if !strings.Contains(src, "matrix.Cell(") && !strings.Contains(src, "matrix.Lacks(") {
			t.Errorf("%s: %s marks no cells", r.FileName(), r.Package)
		}
	}
}
