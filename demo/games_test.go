package demo

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestGamesComeFromTheRegistry: the demo offers the registered games that
// implement rules.Demo, refuses others by listing those, and each game's
// table has players and gets faster with the speed.
func TestGamesComeFromTheRegistry(t *testing.T) {
	games := Games()
	if !slices.Contains(games, DefaultGame) {
		t.Fatalf("Games() = %v lacks the default %q", games, DefaultGame)
	}
	for _, g := range games {
		d, err := demoOf(g)
		if err != nil {
			t.Fatal(err)
		}
		slow, fast := d.DemoTable(1), d.DemoTable(2)
		if len(slow.Players) == 0 || slow.Title == "" {
			t.Errorf("%s: table without players or title: %+v", g, slow)
		}
		if reflect.DeepEqual(slow.Options, fast.Options) {
			t.Errorf("%s: the options do not depend on the speed: %v", g, slow.Options)
		}
	}
	_, err := NewBoard("chess", "127.0.0.1:0")
	if err == nil || !strings.Contains(err.Error(), strings.Join(games, ", ")) {
		t.Errorf("NewBoard(chess) = %v, want an error listing %v", err, games)
	}
}
