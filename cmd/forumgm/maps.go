package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/forumgm/forumgm/rules"
)

// mapWriter returns what replay calls after each resolution to write the
// map pictures of that turn: turn-N.svg/.png for players, turn-N-gm.svg/.png
// also showing what only the GM sees. Only games that implement rules.Drawer
// have a map.
func mapWriter(game, dir string) (func(s rules.State, n int) error, error) {
	g, err := rules.Lookup(game)
	if err != nil {
		return nil, err
	}
	drawer, ok := g.(rules.Drawer)
	if !ok {
		return nil, fmt.Errorf("--map-out: %s has no map or chart (%s)", game, mapGames())
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	draw := func(s rules.State, turn int) error {
		pics, err := drawer.Draw(s, turn)
		if err != nil {
			return err
		}
		for _, p := range pics {
			name := fmt.Sprintf("turn-%d", turn)
			if p.GM {
				name += "-gm"
			}
			if err := os.WriteFile(filepath.Join(dir, name+"."+p.Format), p.Data, 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	first := true
	return func(s rules.State, n int) error {
		if first { // the map as the game opened, before turn 1
			first = false
			if err := draw(s, 0); err != nil {
				return err
			}
		}
		return draw(s, n)
	}, nil
}

// mapGames says which registered games have a map, for help and errors.
func mapGames() string {
	var with []string
	for _, n := range rules.Names() {
		if g, _ := rules.Lookup(n); g != nil {
			if _, ok := g.(rules.Drawer); ok {
				with = append(with, n)
			}
		}
	}
	if len(with) == 0 {
		return "no game has any"
	}
	return "games with pictures: " + strings.Join(with, ", ")
}
