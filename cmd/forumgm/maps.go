package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/protest"
)

// mapWriter returns what replay calls after each resolution to write the
// map pictures of that turn: turn-N.svg/.png for players, turn-N-gm.svg/.png
// also showing the hidden sites. Only Protest has a map.
func mapWriter(game, dir string) (func(s rules.State, n int) error, error) {
	if game != "protest" {
		return nil, fmt.Errorf("--map-out: %s has no map (only protest does)", game)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	write := func(name string, data []byte) error {
		return os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	draw := func(s rules.State, turn int) error {
		pub, gm, err := protest.Pictures(s, turn)
		if err != nil {
			return err
		}
		ppub, pgm, err := protest.PicturesPNG(s, turn)
		if err != nil {
			return err
		}
		for name, data := range map[string][]byte{
			fmt.Sprintf("turn-%d.svg", turn): pub, fmt.Sprintf("turn-%d-gm.svg", turn): gm,
			fmt.Sprintf("turn-%d.png", turn): ppub, fmt.Sprintf("turn-%d-gm.png", turn): pgm,
		} {
			if err := write(name, data); err != nil {
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
