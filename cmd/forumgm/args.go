package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// flagsFirst moves a command's flags ahead of its arguments, so
// `forumgm audit GAME --json` works like `forumgm audit --json GAME`
// (urfave/cli v2 stops reading flags at the first argument). Only names
// the command really has count as flags: `extend GAME -30m` keeps its
// negative duration as an argument.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 3 {
		return args
	}
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") { // global flags
		i++
	}
	if i >= len(args) {
		return args
	}
	cmd := app.Command(args[i])
	if cmd == nil {
		return args
	}
	takes := map[string]bool{} // flag name -> takes a value
	for _, f := range append(cmd.Flags, cli.HelpFlag) {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takes[n] = !isBool
		}
	}
	var flags, rest []string
	tail := args[i+1:]
	for j := 0; j < len(tail); j++ {
		a := tail[j]
		if a == "--" {
			rest = append(rest, tail[j:]...)
			break
		}
		name, hasValue := strings.TrimLeft(a, "-"), false
		if k := strings.IndexByte(name, '='); k >= 0 {
			name, hasValue = name[:k], true
		}
		needs, known := takes[name]
		if !strings.HasPrefix(a, "-") || !known {
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		if needs && !hasValue && j+1 < len(tail) {
			j++
			flags = append(flags, tail[j])
		}
	}
	out := append([]string{}, args[:i+1]...)
	out = append(out, flags...)
	return append(out, rest...)
}
