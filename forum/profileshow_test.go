package forum

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestProfileFileText is issue 22 item 11's `forumgm profile show`: a
// built-in profile printed in the profile-file format loads back to the
// same profile, and names every key (so a GM writing `base: ENGINE` sees
// what each inherits), the empty ones included.
func TestProfileFileText(t *testing.T) {
	t.Parallel()
	for _, name := range BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			p, _ := Builtin(name)
			text, err := ProfileFileText(p)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), name+".profile.yaml")
			if err := os.WriteFile(path, text, 0o644); err != nil {
				t.Fatal(err)
			}
			back, err := LoadProfile(path)
			if err != nil {
				t.Fatalf("the printed profile does not load: %v\n%s", err, text)
			}
			if !reflect.DeepEqual(back, p) {
				t.Errorf("the printed profile loads to another profile:\n got %+v\nwant %+v", back, p)
			}
			var m map[string]any
			if err := yaml.Unmarshal(text, &m); err != nil {
				t.Fatal(err)
			}
			for _, k := range ProfileKeys() {
				if k == "base" || strings.HasPrefix(k, "forms.") {
					continue // a built-in has no base; forms are checked below
				}
				if strings.HasPrefix(k, "page_marks.*.") {
					for _, kind := range PageKinds {
						if kk := strings.Replace(k, "*", string(kind), 1); !hasPath(m, kk) {
							t.Errorf("the printed profile does not name %s", kk)
						}
					}
					continue
				}
				if !hasPath(m, k) {
					t.Errorf("the printed profile does not name %s", k)
				}
			}
			for _, f := range []string{"login", "reply", "pm"} {
				for _, k := range []string{"page", "selector"} {
					if !hasPath(m, "forms."+f+"."+k) {
						t.Errorf("the printed profile does not name forms.%s.%s", f, k)
					}
				}
			}
			if !strings.HasPrefix(string(text), "# ") || !strings.Contains(string(text), "base: "+name) {
				t.Errorf("the printed profile does not open by saying what it is and how to use it:\n%.300s", text)
			}
		})
	}
	// Empty lists are as good as none: a profile file that clears a list
	// loads as a built-in without it.
	p, err := ParseProfile([]byte("base: phpbb\nflood_text: []\n"))
	if err != nil || p.FloodText != nil {
		t.Errorf("flood_text: [] gives %#v (%v), want nil", p.FloodText, err)
	}
}

func hasPath(m map[string]any, key string) bool {
	parts := strings.Split(key, ".")
	var cur any = m
	for _, part := range parts {
		mm, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = mm[part]; !ok {
			return false
		}
	}
	return true
}
