package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/forumgm/forumgm/forum"
)

func runProfile(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	app := &cli.App{Name: "forumgm", Writer: &out, Commands: []*cli.Command{profileCommand()},
		ExitErrHandler: func(*cli.Context, error) {}}
	err := app.Run(append([]string{"forumgm", "profile"}, args...))
	return out.String(), err
}

// TestProfileShow (issue 22 item 11): `forumgm profile show ENGINE` prints
// the built-in profile in the profile-file format, and what it prints loads
// back (forum.LoadProfile) to the same profile; `profile show FILE` prints
// a GM's file with what its base fills in, loading back to the same; an
// unknown engine is refused with exit 2, naming the known ones.
func TestProfileShow(t *testing.T) {
	dir := t.TempDir()
	for _, name := range forum.BuiltinNames() {
		out, err := runProfile(t, "show", name)
		if err != nil {
			t.Fatalf("profile show %s: %v", name, err)
		}
		path := filepath.Join(dir, name+".yaml")
		os.WriteFile(path, []byte(out), 0o644)
		got, err := forum.LoadProfile(path)
		want, _ := forum.Builtin(name)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("profile show %s does not load back to the built-in (%v):\n%s", name, err, out)
		}
	}
	mine := filepath.Join(dir, "mine.profile.yaml")
	os.WriteFile(mine, []byte("base: mybb\nname: mine\nselectors:\n  strike: span.bbs\n"), 0o644)
	out, err := runProfile(t, "show", mine)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "strike: span.bbs") || !strings.Contains(out, "post: div.post") || !strings.Contains(out, "base: mybb") {
		t.Errorf("profile show FILE: the override and the inherited keys:\n%s", out)
	}
	path := filepath.Join(dir, "mine-shown.yaml")
	os.WriteFile(path, []byte(out), 0o644)
	got, err := forum.LoadProfile(path)
	want, _ := forum.LoadProfile(mine)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("profile show FILE does not load back to the file's profile (%v)", err)
	}
	_, err = runProfile(t, "show", "vbulletin")
	if ec, ok := err.(cli.ExitCoder); !ok || ec.ExitCode() != 2 || !strings.Contains(err.Error(), "phpbb, mybb, smf") {
		t.Errorf("profile show vbulletin: %v; want exit 2 naming the built-in engines", err)
	}
	if _, err := runProfile(t, "show"); err == nil {
		t.Error("profile show without an engine: no error")
	}
}
