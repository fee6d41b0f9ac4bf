// Package games is the one list of the games forumgm plays. Each game lives
// in its own folder under rules/ and registers itself with rules.Register
// when imported; the program (cmd/) and every test that plays any game
// import this package, so a new game is one line here.
package games

import (
	_ "github.com/forumgm/forumgm/rules/nations"
	_ "github.com/forumgm/forumgm/rules/protest"
	_ "github.com/forumgm/forumgm/rules/resistance"
)
