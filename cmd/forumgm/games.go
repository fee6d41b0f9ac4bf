package main

// Every game the program plays (the registry rules.Names() lists).
import _ "github.com/forumgm/forumgm/games"
