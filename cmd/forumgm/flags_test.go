package main

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/forumgm/forumgm/forum"
)

// TestEveryFlagSaysWhatItDoes: every flag of every command has usage text
// for --help (a bare --json says nothing about what it prints).
func TestEveryFlagSaysWhatItDoes(t *testing.T) {
	t.Parallel()
	var walk func(path string, cmds []*cli.Command)
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			for _, f := range c.Flags {
				df, ok := f.(cli.DocGenerationFlag)
				if !ok {
					t.Errorf("%s %s: flag %v has no usage to show", path, c.Name, f.Names())
					continue
				}
				if strings.TrimSpace(df.GetUsage()) == "" {
					t.Errorf("%s %s --%s: no usage text", path, c.Name, f.Names()[0])
				}
			}
			walk(path+" "+c.Name, c.Subcommands)
		}
	}
	walk("forumgm", app().Commands)
}

// TestProbeEngineNamesEveryEngine: probe --engine's help lists every
// built-in engine profile.
func TestProbeEngineNamesEveryEngine(t *testing.T) {
	t.Parallel()
	for _, f := range probeCommand().Flags {
		if f.Names()[0] != "engine" {
			continue
		}
		usage := f.(cli.DocGenerationFlag).GetUsage()
		for _, e := range forum.BuiltinNames() {
			if !strings.Contains(usage, e) {
				t.Errorf("probe --engine's usage %q does not name %s", usage, e)
			}
		}
		return
	}
	t.Fatal("probe has no --engine flag")
}
