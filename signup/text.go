package signup

import (
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// The posts of sign-ups, as BBCode. Every name in them came from the board
// (a player's forum name) and goes through rules.Esc; the GM's own words
// (about) are the GM's BBCode. Times are in the board's zone and UTC
// (rules.WhenUTC), with how far away they are from now.

// titles are the games' names for people.
var titles = map[string]string{"resistance": "The Resistance", "protest": "Protest", "nations": "Nations"}

// Title is game's name for people.
func Title(game string) string {
	if t, ok := titles[game]; ok {
		return t
	}
	return game
}

// seats says how many players the game takes: "5 to 7 players", "6 players".
func (s State) seats() string {
	if s.Min == s.Max {
		return rules.Plural(s.Max, "player")
	}
	return fmt.Sprintf("%d to %d players", s.Min, s.Max)
}

// closing is the line saying when and how sign-ups close.
func (s State) closing(zone *time.Location, now time.Time) string {
	line := fmt.Sprintf("Sign-ups close on [b]%s[/b] (%s), or as soon as %d %s in.", rules.WhenUTC(s.Close, zone), rules.Until(s.Close.Sub(now)), s.Max, isAre(s.Max))
	if s.Extended || s.ExtendBy <= 0 {
		return line + fmt.Sprintf(" With fewer than %d in by then, the game is cancelled.", s.Min)
	}
	return line + fmt.Sprintf(" With fewer than %d in by then, they stay open %s longer, once; then the game is cancelled if still short.", s.Min, length(s.ExtendBy))
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// length writes a length of time for people: "24 hours", "2 days", "90 seconds".
func length(d time.Duration) string {
	return strings.TrimPrefix(rules.Until(d), "in ")
}

// list is the numbered list of who is in.
func (s State) list() string {
	if len(s.In) == 0 {
		return "Nobody has signed up yet."
	}
	var b strings.Builder
	for i, e := range s.In {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d. %s", i+1, rules.Esc(e.Name))
	}
	return b.String()
}

// CallText is the call for players: what the game is, how to join and
// leave, how many it takes and when sign-ups close. about is the GM's own
// introduction ("" for the game's name).
func (s State) CallText(game, name, about string, zone *time.Location, now time.Time) string {
	if strings.TrimSpace(about) == "" {
		about = fmt.Sprintf("[b]Sign-ups are open[/b] for a game of %s (%s).", Title(game), rules.Esc(name))
	} else {
		about = "[b]Sign-ups are open.[/b] " + strings.TrimSpace(about)
	}
	return about + "\n\n" +
		"To join, post [b]/in[/b] (in bold) in this thread. Changed your mind? Post [b]/out[/b] before sign-ups close. " +
		"The bot reads your forum name from your post; nothing else is needed.\n\n" +
		fmt.Sprintf("The game takes %s. ", s.seats()) + s.closing(zone, now) + "\n\n" +
		"The game starts here, in this thread, as soon as sign-ups close; roles go out by PM."
}

// ListText answers a read's sign-up commands in one post: what became of
// each, then the list as it stands and when sign-ups close.
func (s State) ListText(results []Result, zone *time.Location, now time.Time) string {
	var lines []string
	for _, r := range results {
		lines = append(lines, r.Line())
	}
	return strings.Join(lines, "\n") + "\n\n" +
		fmt.Sprintf("[b]Signed up[/b] (%d of %s):\n", len(s.In), s.seats()) + s.list() + "\n\n" + s.closing(zone, now)
}

// Why is why sign-ups closed.
type Why int

const (
	Filled  Why = iota // the game is full
	Closing            // the closing time came with enough in
	ByGM               // the GM closed them early
)

// ClosedText says sign-ups are closed and the game begins: the players, in
// sign-up order (results: the commands read in the step that closed them,
// answered here rather than in a post of their own).
func (s State) ClosedText(why Why, results []Result) string {
	var b strings.Builder
	for _, r := range results {
		b.WriteString(r.Line() + "\n")
	}
	if len(results) > 0 {
		b.WriteByte('\n')
	}
	switch why {
	case Filled:
		fmt.Fprintf(&b, "[b]Sign-ups are closed:[/b] the game is full with %s.", rules.Plural(len(s.In), "player"))
	case Closing:
		fmt.Fprintf(&b, "[b]Sign-ups are closed:[/b] the closing time has come with %d in (%s).", len(s.In), s.seats())
	default:
		fmt.Fprintf(&b, "[b]The GM has closed sign-ups[/b] with %d in (%s).", len(s.In), s.seats())
	}
	b.WriteString("\n\nThe players, in sign-up order:\n" + s.list() + "\n\n")
	b.WriteString("The game begins now, in this thread; roles go out by PM. An [b]/in[/b] from now on cannot be taken: the GM can bring you in as a replacement.")
	return b.String()
}

// ExtendedText says sign-ups are short at their closing time and stay open
// once more, until the state's (new) Close.
func (s State) ExtendedText(results []Result, zone *time.Location, now time.Time) string {
	var b strings.Builder
	for _, r := range results {
		b.WriteString(r.Line() + "\n")
	}
	if len(results) > 0 {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[b]Sign-ups are extended:[/b] only %d %s in at the closing time, and the game needs at least %d. ", len(s.In), isAre(len(s.In)), s.Min)
	fmt.Fprintf(&b, "They stay open until [b]%s[/b] (%s), once: with fewer than %d in by then, the game is cancelled. Post [b]/in[/b] to join.\n\n",
		rules.WhenUTC(s.Close, zone), rules.Until(s.Close.Sub(now)), s.Min)
	fmt.Fprintf(&b, "[b]Signed up[/b] (%d of %s):\n", len(s.In), s.seats())
	b.WriteString(s.list())
	return b.String()
}

// CancelledText says the game is cancelled: too few signed up by the
// closing time (byGM: the GM cancelled it).
func (s State) CancelledText(results []Result, byGM bool) string {
	var b strings.Builder
	for _, r := range results {
		b.WriteString(r.Line() + "\n")
	}
	if len(results) > 0 {
		b.WriteByte('\n')
	}
	if byGM {
		fmt.Fprintf(&b, "[b]The GM has cancelled the game[/b] during sign-ups (%d signed up). Thank you for your interest.", len(s.In))
		return b.String()
	}
	extended := ""
	if s.Extended {
		extended = ", even after the extension"
	}
	who := fmt.Sprintf("only %d signed up", len(s.In))
	if len(s.In) == 0 {
		who = "nobody signed up"
	}
	fmt.Fprintf(&b, "[b]Sign-ups are closed and the game is cancelled:[/b] %s by the closing time%s, and it needs at least %d. Thank you for your interest.",
		who, extended, s.Min)
	return b.String()
}

// LateReason is why an /in or /out made after sign-ups closed is not taken.
func LateReason(closed time.Time, zone *time.Location) string {
	return fmt.Sprintf("sign-ups closed on %s and the game is under way; the GM can bring you in as a replacement", rules.WhenUTC(closed, zone))
}

// PMReason is why an /in or /out sent by PM is not taken.
const PMReason = "sign-ups are taken in the game thread, where everyone sees the list: post /in or /out there, in bold"
