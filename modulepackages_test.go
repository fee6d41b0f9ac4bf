package forumgm_test

import (
	"flag"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated list of the module's packages in moderator/steperror.go")

// listedIn is the file holding the generated list of the module's
// packages (the prefixes GMError cuts from a GM's error messages).
const listedIn = "moderator/steperror.go"

var listBlock = regexp.MustCompile(`(?s)var modulePackages = \[\]string\{\n.*?\n\}\n`)

// TestModulePackagesListed: moderator's list of the module's package names
// is the module's packages as they are (test kits and commands apart); with
// -update it is rewritten.
func TestModulePackagesListed(t *testing.T) {
	_, pkgs := modulePackages(t)
	seen := map[string]bool{}
	var names []string
	for rel, p := range pkgs {
		// The games' own packages are named by the registry
		// (rules.Names), not here: games are named only in rules/.
		if isKit(rel) || p.name == "main" || seen[p.name] || strings.HasPrefix(rel, "rules/") {
			continue
		}
		seen[p.name] = true
		names = append(names, p.name)
	}
	sort.Strings(names)
	if len(names) < 20 {
		t.Fatalf("only %v found", names)
	}
	var b strings.Builder
	b.WriteString("var modulePackages = []string{\n\t// generated: the module's packages\n")
	for _, n := range names {
		b.WriteString("\t\"" + n + "\",\n")
	}
	b.WriteString("}\n")
	want := b.String()

	src, err := os.ReadFile(listedIn)
	if err != nil {
		t.Fatal(err)
	}
	got := listBlock.Find(src)
	if got == nil {
		t.Fatalf("%s has no `var modulePackages = []string{…}` block to check", listedIn)
	}
	if string(got) == want {
		return
	}
	if *update {
		if err := os.WriteFile(listedIn, listBlock.ReplaceAll(src, []byte(want)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s lists the module's packages as\n%s\nbut they are\n%s\nregenerate the list with `go test . -run TestModulePackagesListed -update`", listedIn, got, want)
}
