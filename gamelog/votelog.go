package gamelog

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/forumgm/forumgm/between"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// The command log for the GM's spreadsheets (`forumgm audit --csv`, the
// desk's download) and the public vote log (the desk's public page): each
// command with its phase, player, status, reason and a link to its post.
// The export is the GM's and holds everything; the vote log holds only
// what was posted in the thread, PM commands appearing as a number.

// CommandLine is one command of the GM's export.
type CommandLine struct {
	ID         int64
	Phase      string
	PhaseTitle string
	Time       time.Time
	Player     string // as the forum names him now
	Channel    rules.Channel
	Text       string
	Kind       string
	Status     store.CommandStatus
	Reason     string
	Link       string // the post on the board ("" for a PM)
}

// CommandLines lists a game's commands for the GM's export, filtered as
// the audit log is.
func CommandLines(tx *store.Tx, g Game, f Filter) ([]CommandLine, error) {
	var out []CommandLine
	cmds, err := tx.CommandPosts(g.Row.ID, store.CommandFilter{Phase: f.Phase})
	if err != nil {
		return nil, err
	}
	titles, err := phaseTitles(tx, g)
	if err != nil {
		return nil, err
	}
	roster := g.State.Roster()
	for _, c := range cmds {
		if f.Player != "" && rules.NormName(c.Player) != rules.NormName(f.Player) && rules.NormName(roster.Display(c.Player)) != rules.NormName(f.Player) {
			continue
		}
		line := CommandLine{ID: c.ID, Phase: c.Phase, PhaseTitle: titles[c.Phase], Time: c.Time, Player: roster.Display(c.Player),
			Channel: rules.Channel(c.Channel), Text: c.Text, Kind: c.Kind, Status: c.Status, Reason: c.Reason}
		if line.Channel == rules.Public {
			line.Link = postURL(g, c.ForumID)
		}
		out = append(out, line)
	}
	return out, nil
}

// WriteCSV writes the export for a spreadsheet: a header, then one row a
// command, times in zone. A cell a spreadsheet would take for a formula
// (starting with = + - @, a tab or a carriage return) is neutralised with
// a leading apostrophe: players write the commands and their reasons.
func WriteCSV(w io.Writer, lines []CommandLine, zone *time.Location) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"phase", "phase title", "time", "player", "channel", "command", "kind", "status", "reason", "link", "id"}); err != nil {
		return err
	}
	for _, l := range lines {
		ch := "thread"
		if l.Channel == rules.Private {
			ch = "PM"
		}
		row := []string{l.Phase, l.PhaseTitle, l.Time.In(zoneOr(zone)).Format("2006-01-02 15:04:05 MST"), l.Player, ch, l.Text, l.Kind, string(l.Status), l.Reason, l.Link, fmt.Sprint(l.ID)}
		for i := range row {
			row[i] = safeCell(row[i])
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func zoneOr(z *time.Location) *time.Location {
	if z == nil {
		return time.UTC
	}
	return z
}

// safeCell keeps a cell from being read as a formula (CSV injection).
func safeCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// VoteLog is a game's public vote log: phase by phase, every command
// posted in the thread with its status and reason, and the counts. It is
// made only of what players may see: a PM command is only counted.
type VoteLog struct {
	Game   string
	Zone   *time.Location
	Phases []VoteLogPhase // oldest first
}

// VoteLogPhase is one phase of the vote log.
type VoteLogPhase struct {
	Phase, Title string
	Current      bool
	Commands     []LoggedCommand
	// ByPM is how many commands reached the bot by PM in the phase
	// (accepted or refused); what they were is nobody else's business.
	ByPM   int
	Counts []string // the counts posted in the phase, as posted (BBCode)
}

// LoggedCommand is one thread command in the vote log.
type LoggedCommand struct {
	Time   time.Time
	Player string
	Text   string
	Count  bool // a request for a count
	Status store.CommandStatus
	// Reason is why, as players may read it: "" for an accepted command,
	// and for a refusal whose reason only its player may know (he was
	// told; Hidden is then set).
	Reason string
	Hidden bool
	// Struck: it no longer counts (replaced by a later one of the same
	// kind, its post edited, voided by the GM).
	Struck bool
	Link   string
}

// Votes is the public vote log of a game.
func Votes(tx *store.Tx, g Game) (*VoteLog, error) {
	v := &VoteLog{Game: g.Row.Name, Zone: g.Zone()}
	res, err := tx.Resolutions(g.Row.ID)
	if err != nil {
		return nil, err
	}
	index := map[string]int{}
	for _, r := range res {
		if _, dup := index[r.Phase]; !dup {
			index[r.Phase] = len(v.Phases)
			v.Phases = append(v.Phases, VoteLogPhase{Phase: r.Phase, Title: r.Title})
		}
	}
	if st := g.Rules.Status(g.State); !st.Finished {
		if _, dup := index[st.Phase]; !dup {
			index[st.Phase] = len(v.Phases)
			v.Phases = append(v.Phases, VoteLogPhase{Phase: st.Phase, Title: st.Title, Current: true})
		}
	}
	phase := func(id string) *VoteLogPhase {
		i, ok := index[id]
		if !ok {
			index[id] = len(v.Phases)
			v.Phases = append(v.Phases, VoteLogPhase{Phase: id, Title: id})
			i = len(v.Phases) - 1
		}
		return &v.Phases[i]
	}
	cmds, err := tx.CommandPosts(g.Row.ID, store.CommandFilter{})
	if err != nil {
		return nil, err
	}
	roster := g.State.Roster()
	for i, c := range cmds {
		if c.MessageID == 0 || c.Status == store.CommandIgnored || (c.Status == store.CommandSuperseded && c.Kind == "") {
			continue // the GM's own, chatter (an edited post's too)
		}
		if c.Channel != string(rules.Public) {
			phase(c.Phase).ByPM++
			continue
		}
		lc := LoggedCommand{Time: c.Time, Player: roster.Display(c.Player), Text: c.Text, Count: c.Kind == between.CountKind,
			Status: c.Status, Link: postURL(g, c.ForumID)}
		switch c.Status {
		case store.CommandAccepted:
			if lc.Count {
				lc.Reason = c.Reason
			}
			lc.Struck = !lc.Count && rules.Replaces(g.Rules, c.Kind) && replacedLater(cmds[i+1:], c)
			if lc.Struck {
				lc.Reason = "replaced by a later one"
			}
		case store.CommandRejected:
			lc.Reason = rules.PublicReason(g.Rules, c.Kind, c.Reason)
			lc.Hidden = lc.Reason == ""
		case store.CommandSuperseded:
			lc.Reason, lc.Struck = "the post was edited: the edit counts instead", true
		case store.CommandVoided:
			lc.Reason, lc.Struck = "voided by the GM", true // the GM's own reason is for the audit log
		}
		p := phase(c.Phase)
		p.Commands = append(p.Commands, lc)
	}
	counts, err := tx.PublicEvents(g.Row.ID, between.EventCount)
	if err != nil {
		return nil, err
	}
	for _, e := range counts {
		p := phase(e.Phase)
		p.Counts = append(p.Counts, e.Text)
	}
	return v, nil
}

// replacedLater says whether a later accepted thread command of the same
// player, kind and phase replaces c.
func replacedLater(later []store.CommandPost, c store.CommandPost) bool {
	for _, o := range later {
		if o.Phase == c.Phase && o.Player == c.Player && o.Kind == c.Kind && o.Channel == c.Channel && o.Status == store.CommandAccepted {
			return true
		}
	}
	return false
}
