package rules

import (
	"strings"
	"time"
)

// A game's views for people (Presenter): sections of facts, tables and
// drawings, laid out by the game and rendered by the desk. Everything in
// them is plain text, which the desk escapes; player names are kept apart
// from the words around them (Cell.Names) so that the desk can isolate
// each one, and a right-to-left mark in a name cannot turn the text after
// it around.

// Viewing is whom a view is for and what it may draw on.
type Viewing struct {
	// GM: the view is the GM's (secrets included); else everyone's.
	GM bool
	// Now is the time of the view: results not yet published (a round
	// report held for the next round) are not shown to players before it.
	Now time.Time
	// History is the game's past, oldest first, as replayed from its
	// journal: what a game whose state keeps no history draws it from.
	// Nil when it is not known; the view then shows what the state holds.
	History []Moment
}

// Moment is one step of a game's past: a command applied, or a phase
// resolved (or the game ended by the GM), with the states around it.
type Moment struct {
	Before, After State
	// Command is the command applied; nil for a resolution or an end.
	Command *Command
	// Ended: the GM ended the game here (Command is nil).
	Ended bool
	// At is when: the command's forum time, the resolution's time.
	At time.Time
}

// Section is one part of a game's page: a heading and what goes under it.
type Section struct {
	Title string
	// Intro is a sentence or two under the title.
	Intro string
	// GM marks a section that holds what only the GM may see; a game
	// returns none for everyone's view.
	GM       bool
	Facts    []Fact
	Pictures []Picture // SVG drawings (Format "svg"), with their Alt text
	Tables   []Table
	// Notes are sentences after the tables (what a symbol means).
	Notes []string
}

// Fact is one labelled value ("Leader: Ann").
type Fact struct {
	Label string
	Value Cell
}

// Table is a table of cells; the first cell of a row heads it when
// RowHeads is set (the player of each row, the round of each row).
type Table struct {
	Caption  string // what the table holds, in a few words
	Head     []Cell // column headings (player names among them, isolated)
	Rows     []Row
	RowHeads bool
}

// Row is one row of a table.
type Row struct {
	Cells []Cell
	Mark  Mark // for the whole row (the current leader's, an eliminated player's)
}

// Cell is one value: Text, then Names (player names, each shown apart from
// the text around it), with an optional Mark saying how to show it. Alt,
// when set, says in words what Text's symbols mean ("approve" for ✓),
// for screen readers and as a tooltip.
type Cell struct {
	Text  string
	Names []string
	Alt   string
	Mark  Mark
	// Boxed draws the cell in a box: one of the group its row is about
	// (a proposal's team).
	Boxed bool
}

// Mark says how the desk shows a cell or row.
type Mark string

// The marks.
const (
	Plain  Mark = ""
	Good   Mark = "good"   // went well: approved, a mission that succeeded, a hit
	Bad    Mark = "bad"    // went badly: rejected, sabotaged, eliminated
	Lead   Mark = "lead"   // the one that matters now: the current leader, mission, round
	Muted  Mark = "muted"  // not yet, nothing, out of the game
	Strong Mark = "strong" // a total, a winner
	Secret Mark = "secret" // what only the GM sees
)

// Text is a cell of plain text.
func Text(s string) Cell { return Cell{Text: s} }

// Who is a cell listing player names ("—" when there are none).
func Who(names ...string) Cell {
	if len(names) == 0 {
		return Cell{Text: "—", Mark: Muted}
	}
	return Cell{Names: names}
}

// Marked is a cell of text with a mark.
func Marked(s string, m Mark) Cell { return Cell{Text: s, Mark: m} }

// bidiControls are the characters that change the direction of the text
// after them (embeddings, overrides, isolates and marks).
const bidiControls = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"

// PlainName is a name without its bidi controls, for drawings: SVG text
// cannot isolate a name from the text after it as HTML's <bdi> does.
func PlainName(s string) string {
	if !strings.ContainsAny(s, bidiControls) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(bidiControls, r) {
			return -1
		}
		return r
	}, s)
}
