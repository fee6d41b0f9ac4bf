package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/urfave/cli/v2"
)

func runParse(t *testing.T, args ...string) (map[string]any, error) {
	t.Helper()
	var out bytes.Buffer
	app := &cli.App{Name: "forumgm", Writer: &out, Commands: []*cli.Command{parseCommand()},
		ExitErrHandler: func(*cli.Context, error) {}}
	err := app.Run(append([]string{"forumgm", "parse"}, args...))
	if err != nil {
		return nil, err
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	return got, nil
}

func TestParseCommand(t *testing.T) {
	td := filepath.Join("..", "..", "parser", "testdata")
	got, err := runParse(t, "--engine", "phpbb", filepath.Join(td, "phpbb33_thread.html"))
	if err != nil {
		t.Fatal(err)
	}
	posts := got["posts"].([]any)
	first := posts[0].(map[string]any)
	if got["pages"].(float64) != 3 || first["id"] != "111" || first["author_id"] != "52" ||
		first["time"] != "2026-11-30T10:00:00Z" || first["segments"].([]any)[0] != "VOTE: Bob" {
		t.Errorf("thread: %v", got)
	}
	got, err = runParse(t, "--engine", "mybb", filepath.Join(td, "mybb_inbox.html"))
	if err != nil || got["kind"] != "inbox" || len(got["messages"].([]any)) != 2 {
		t.Errorf("inbox: %v %v", got, err)
	}
	got, err = runParse(t, "--engine", "phpbb", filepath.Join(td, "phpbb_pm.html"))
	if err != nil || got["kind"] != "pm" {
		t.Errorf("pm: %v %v", got, err)
	}
	// A profile file overriding the base.
	prof := filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(prof, []byte("base: mybb\nname: mine\n"), 0o644)
	if got, err = runParse(t, "--profile", prof, filepath.Join(td, "mybb_thread.html")); err != nil || got["kind"] != "thread" {
		t.Errorf("profile file: %v %v", got, err)
	}
	// The wrong engine is a clear error, not empty output.
	if _, err := runParse(t, "--engine", "mybb", filepath.Join(td, "phpbb33_thread.html")); err == nil {
		t.Error("phpBB page parsed as MyBB without error")
	}
	if _, err := runParse(t, "--engine", "vbulletin", filepath.Join(td, "phpbb33_thread.html")); err == nil {
		t.Error("unknown engine accepted")
	}
}
