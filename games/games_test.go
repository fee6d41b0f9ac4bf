package games

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/rules"
)

// TestEveryGameFolderIsListed finds the folders under rules/ whose code
// registers a game and checks that each is imported here: a game someone
// added without its line in games.go would be missing from the program.
func TestEveryGameFolderIsListed(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob(filepath.Join("..", "rules", "*"))
	if err != nil {
		t.Fatal(err)
	}
	registering := 0
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), "rules.Register(") {
				registering++
				break
			}
		}
	}
	if registering == 0 {
		t.Fatal("found no game folder under rules/")
	}
	if got := len(rules.Names()); got != registering {
		t.Errorf("%d folders under rules/ register a game, but %d games are registered (%v): add the missing import to games.go",
			registering, got, rules.Names())
	}
}
