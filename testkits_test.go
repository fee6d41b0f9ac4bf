package forumgm_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Test kits (fakes, harnesses, real boards and databases for tests) are for
// tests only. A kit is named so: a package path with an element ending in
// "test" (store/storetest, realboardtest/realgames, and a future
// forum/forumtest by the same rule), or one of the older kits listed here.
var olderKits = map[string]string{
	"internal/htmlcheck":  "well-nested HTML for tests",
	"internal/benchratio": "benchmark ratios",
	"scraper/fakemybb":    "a MyBB-like board for faults the real one cannot stage",
}

// notKits are packages whose names only happen to end in "test".
var notKits = map[string]string{
	"rules/protest": "the Protest game",
}

var kitElement = regexp.MustCompile(`test$`)

// isKit says whether the package at rel (its path in the module) is a test
// kit by name.
func isKit(rel string) bool {
	if _, ok := olderKits[rel]; ok {
		return true
	}
	for p := rel; p != "." && p != "" && p != "/"; p = path.Dir(p) {
		if _, ok := notKits[p]; ok {
			continue
		}
		if kitElement.MatchString(path.Base(p)) {
			return true
		}
	}
	return false
}

func TestIsKit(t *testing.T) {
	t.Parallel()
	for rel, want := range map[string]bool{
		"store/storetest":                   true,
		"store/pgtest":                      true,
		"realboardtest":                     true,
		"realboardtest/realgames":           true,
		"realboardtest/smftest":             true,
		"forum/forumtest":                   true,
		"forum/forumtest/deeper":            true,
		"internal/htmlcheck":                true,
		"scraper/fakemybb":                  true,
		"rules/protest":                     false,
		"rules/protest/hexmap":              false,
		"moderator":                         false,
		"cmd/forumgm":                       false,
		"internal/retry":                    false,
		"forumsim":                          false,
		"internal/contest/notatest/ordinal": true, // an element ending in "test", wherever it is
	} {
		if got := isKit(rel); got != want {
			t.Errorf("isKit(%q) = %v, want %v", rel, got, want)
		}
	}
}

// goPackage is one directory's Go files: the imports of its non-test files.
type goPackage struct {
	name    string              // the package clause's name
	imports map[string][]string // import path → the non-test files importing it
}

// modulePackages parses the imports of every Go file under the module root
// (build tags ignored: a file for another OS counts too).
func modulePackages(t *testing.T) (module string, pkgs map[string]*goPackage) {
	t.Helper()
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod names no module")
	}
	module = string(m[1])
	pkgs = map[string]*goPackage{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(filepath.Dir(p))
		pkg := pkgs[rel]
		if pkg == nil {
			pkg = &goPackage{name: f.Name.Name, imports: map[string][]string{}}
			pkgs[rel] = pkg
		}
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			pkg.imports[ip] = append(pkg.imports[ip], filepath.ToSlash(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return module, pkgs
}

// TestKitsStayInTests: no package's non-test code imports a test kit
// (kits may use each other), and a package whose non-test code imports
// "testing" is a kit by name, so a kit is visible as one from its path.
func TestKitsStayInTests(t *testing.T) {
	t.Parallel()
	module, pkgs := modulePackages(t)
	var kits []string
	for rel, pkg := range pkgs {
		if isKit(rel) {
			kits = append(kits, rel)
			continue
		}
		var bad []string
		for ip, files := range pkg.imports {
			if ip == "testing" {
				t.Errorf("%s imports \"testing\" in %v but is not named as a test kit: move that code into a _test.go file, or name the package …test (e.g. %s)",
					rel, files, path.Join(path.Dir(rel), path.Base(rel)+"test"))
			}
			if r, ok := strings.CutPrefix(ip, module+"/"); ok && isKit(r) {
				bad = append(bad, ip)
			}
		}
		sort.Strings(bad)
		for _, ip := range bad {
			t.Errorf("%s imports the test kit %s in %v: kits are for tests (_test.go files and other kits) only", rel, ip, pkg.imports[ip])
		}
	}
	// The rule must see the kits there are, or it checks nothing.
	for _, want := range []string{
		"store/storetest", "store/pgtest", "forumsim/simtest", "realboardtest",
		"realboardtest/boardtest", "webdesk/browsertest", "replay/gametest",
		"internal/htmlcheck", "internal/benchratio", "scraper/fakemybb",
	} {
		if pkgs[want] == nil || !isKit(want) {
			t.Errorf("the kit %s was not found as one (kits found: %v)", want, kits)
		}
	}
	for rel := range notKits {
		if pkgs[rel] == nil {
			t.Errorf("notKits names %s, which is not a package", rel)
		}
	}
	for rel := range olderKits {
		if pkgs[rel] == nil {
			t.Errorf("olderKits names %s, which is not a package", rel)
		}
	}
}
