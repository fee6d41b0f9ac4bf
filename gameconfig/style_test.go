package gameconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStyleInGameFile: a style in the game file, or in a shared style file
// under it, loads with its file read in; one that names anything not
// public, holds a marker, or asks the board for what its BBCode lacks is
// refused when the game file is read, with the reason.
func TestStyleInGameFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "house.yaml"), []byte("header: '[b]Welcome to {game}[/b]'\nfooter: '[url=https://example.org/rules]House rules[/url]'\ncolor: navy\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "nested.yaml"), []byte("file: house.yaml\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "typo.yaml"), []byte("headr: x\n"), 0o644)
	tests := []struct {
		name, src string
		want      Style  // when loaded
		err       string // when refused
	}{
		{"inline", okMyBB + "players: [a]\nstyle: {header: 'Night falls on {title}', footer: '-- the GM', color: '#600', font: Georgia}\n",
			Style{Header: "Night falls on {title}", Footer: "-- the GM", Color: "#600", Font: "Georgia"}, ""},
		{"shared file", okForum + "players: [{name: a, id: '3'}]\nstyle: {file: house.yaml}\n",
			Style{Header: "[b]Welcome to {game}[/b]", Footer: "[url=https://example.org/rules]House rules[/url]", Color: "navy"}, ""},
		{"game file over shared file", okForum + "players: [{name: a, id: '3'}]\nstyle: {file: house.yaml, color: '#112233'}\n",
			Style{Header: "[b]Welcome to {game}[/b]", Footer: "[url=https://example.org/rules]House rules[/url]", Color: "#112233"}, ""},
		{"role", okMyBB + "players: [a]\nstyle: {header: 'You are {role}'}\n", Style{}, "names {role}, which is not public"},
		{"hand", okMyBB + "players: [a]\nstyle: {footer: 'Cards: {hand}'}\n", Style{}, "names {hand}, which is not public"},
		{"template syntax", okMyBB + "players: [a]\nstyle: {header: '{{.State.Spies}}'}\n", Style{}, "which is not public"},
		{"marker", okMyBB + "players: [a]\nstyle: {footer: 'forumgm·x/y/1'}\n", Style{}, "marker line"},
		{"colour", okMyBB + "players: [a]\nstyle: {color: 'red]evil[/color'}\n", Style{}, "colour name"},
		{"font on phpbb", okForum + "players: [{name: a, id: '3'}]\nstyle: {font: Verdana}\n", Style{}, "phpBB's BBCode has no [font]"},
		{"font bbcode", okMyBB + "players: [a]\nstyle: {font: 'Arial]x'}\n", Style{}, "font name"},
		{"long header", okMyBB + "players: [a]\nstyle: {header: '" + strings.Repeat("x", 2001) + "'}\n", Style{}, "more than 2000"},
		{"missing file", okMyBB + "players: [a]\nstyle: {file: nope.yaml}\n", Style{}, "style file"},
		{"file names a file", okMyBB + "players: [a]\nstyle: {file: nested.yaml}\n", Style{}, "one level only"},
		{"file typo", okMyBB + "players: [a]\nstyle: {file: typo.yaml}\n", Style{}, "headr"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "g.yaml")
			os.WriteFile(p, []byte(tc.src), 0o644)
			gf, err := LoadGameFile(p)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := *gf.Style
			got.File = ""
			if got != tc.want {
				t.Errorf("style %+v, want %+v", got, tc.want)
			}
			gc, _, _ := gf.Configs(time.Now())
			if gc.Style == nil || gc.Style.Header != tc.want.Header {
				t.Errorf("config's style %+v", gc.Style)
			}
		})
	}
}

// TestStyleApply: the header and footer around the text, placeholders
// filled from the public view, colour and font around the text only.
func TestStyleApply(t *testing.T) {
	v := StyleView{Game: "spies-50", Phase: "m2-p1", Title: "Mission 2, proposal 1", Players: []string{"Ann", "Ben"}}
	tests := []struct {
		name  string
		style *Style
		want  string
	}{
		{"none", nil, "Votes."},
		{"empty", &Style{}, "Votes."},
		{"header and footer", &Style{Header: "[b]{game}[/b]: {title} ({phase})", Footer: "Players: {players}"},
			"[b]spies-50[/b]: Mission 2, proposal 1 (m2-p1)\n\nVotes.\n\nPlayers: Ann, Ben"},
		{"colour and font", &Style{Color: "navy", Font: "Georgia"}, "[color=navy][font=Georgia]Votes.[/font][/color]"},
		{"unknown placeholder left as written", &Style{Footer: "{role}"}, "Votes.\n\n{role}"},
	}
	for _, tc := range tests {
		if got := tc.style.Apply("Votes.", v); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if got, want := tc.style.Overhead(v), len(tc.style.Apply("", v)); got != want {
			t.Errorf("%s: overhead %d, want %d", tc.name, got, want)
		}
	}
}
