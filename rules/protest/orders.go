package protest

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/protest/hexmap"
)

// Command kinds.
const (
	KindName    = "name"    // Args: [organisation name]
	KindScan    = "scan"    // Args: [label, radius, HEX]
	KindProtest = "protest" // Args: [HEX]
	KindCancel  = "cancel"  // Args: [label] or ["PROTEST"]
)

const byPM = "orders count only when sent to me by PM; this one in the thread does not count"

const pmHelp = "not an order: send scans as L n HEX (e.g. A 2 K10), a protest as PROTEST HEX, " +
	"CANCEL A or CANCEL PROTEST, or NAME: your organisation"

// hexLike says whether w looks like a hex name (letters then digits), so a
// bold word in the thread can be told from emphasis.
func hexLike(w string) bool {
	i := strings.IndexFunc(w, func(r rune) bool { return r >= '0' && r <= '9' })
	if i <= 0 {
		return false
	}
	for _, r := range w[:i] {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	_, err := strconv.Atoi(w[i:])
	return err == nil
}

// Parse reads one bold run of a post or one PM line.
func (Game) Parse(s rules.State, text string, src rules.Source) rules.Parsed {
	st := s.(*State)
	public := src.Channel == rules.Public
	words := rules.Words(strings.ToUpper(text))
	if len(words) == 0 {
		return rules.Parsed{Ignored: true}
	}
	// In the thread bold is often emphasis: only text shaped like an order
	// counts as one (and is then refused, since orders go by PM).
	notOrder := func(reason string) rules.Parsed {
		if public {
			return rules.Parsed{Ignored: true}
		}
		return rules.Parsed{Reject: reason}
	}
	cmd := func(kind string, args ...string) rules.Parsed {
		return rules.Parsed{Cmd: &rules.Command{Kind: kind, Args: args, Text: text, Src: src}}
	}
	w := words
	switch w[0] {
	case "NAME", "ORG", "ORGANISATION", "ORGANIZATION":
		name := strings.TrimSpace(rules.Rest(text, 1))
		if name == "" {
			return rules.Parsed{Reject: "NAME needs your organisation's name, e.g. NAME: Friends of the Earth"}
		}
		if err := checkOrg(name); err != nil {
			return rules.Parsed{Reject: err.Error()}
		}
		return cmd(KindName, name)
	case "PROTEST":
		if len(w) != 2 || !hexLike(w[1]) {
			return notOrder("PROTEST needs one hex, e.g. PROTEST L11")
		}
		if public {
			return rules.Parsed{Reject: byPM}
		}
		h, err := st.Map.Parse(w[1])
		if err != nil {
			return rules.Parsed{Reject: err.Error()}
		}
		return cmd(KindProtest, h.Name())
	case "CANCEL":
		if len(w) != 2 || (w[1] != "PROTEST" && len(w[1]) != 1) {
			return notOrder("CANCEL needs a scan label or PROTEST, e.g. CANCEL B")
		}
		if public {
			return rules.Parsed{Reject: byPM}
		}
		if w[1] != "PROTEST" && !strings.Contains(Labels, w[1]) {
			return rules.Parsed{Reject: fmt.Sprintf("scan label %s: labels are A to E", w[1])}
		}
		return cmd(KindCancel, w[1])
	}
	if w[0] == "SCAN" && len(w) > 1 {
		w = w[1:]
	}
	// A scan: a one-letter label, a number, a hex.
	if len(w) == 3 && len(w[0]) == 1 && w[0][0] >= 'A' && w[0][0] <= 'Z' {
		n, nerr := strconv.Atoi(w[1])
		if nerr == nil || hexLike(w[2]) {
			if public {
				if nerr == nil && hexLike(w[2]) {
					return rules.Parsed{Reject: byPM}
				}
				return rules.Parsed{Ignored: true}
			}
			if !strings.Contains(Labels, w[0]) {
				return rules.Parsed{Reject: fmt.Sprintf("scan label %s: labels are A to E", w[0])}
			}
			if nerr != nil {
				return rules.Parsed{Reject: fmt.Sprintf("scan radius %q is not a number (1 to %d)", w[1], MaxRadius)}
			}
			if n < 1 || n > MaxRadius {
				return rules.Parsed{Reject: fmt.Sprintf("scan radius %d: it must be 1 to %d", n, MaxRadius)}
			}
			h, err := st.Map.Parse(w[2])
			if err != nil {
				return rules.Parsed{Reject: err.Error()}
			}
			return cmd(KindScan, w[0], strconv.Itoa(n), h.Name())
		}
	}
	return notOrder(pmHelp)
}

func checkOrg(name string) error {
	if utf8.RuneCountInString(name) > MaxOrgName {
		return fmt.Errorf("organisation names are at most %d characters", MaxOrgName)
	}
	if rules.NormName(name) == "" {
		return fmt.Errorf("an organisation name needs letters or digits")
	}
	return nil
}

// Apply applies one command. Errors are user-facing rejections.
func (g Game) Apply(s rules.State, c rules.Command) (rules.State, []rules.Event, error) {
	st := s.(*State)
	if st.Finished {
		return s, nil, fmt.Errorf("the game is over")
	}
	id := c.Src.Player
	p, ok := st.Players[id]
	if !ok {
		return s, nil, fmt.Errorf("you are not playing in this game")
	}
	switch c.Kind {
	case KindName:
		if len(c.Args) != 1 {
			return s, nil, fmt.Errorf("NAME needs your organisation's name")
		}
		name := strings.TrimSpace(c.Args[0])
		if err := checkOrg(name); err != nil {
			return s, nil, err
		}
		for _, other := range st.Seats.IDs() {
			if other != id && rules.NormName(st.Players[other].Org) == rules.NormName(name) {
				return s, nil, fmt.Errorf("%s already goes by that name", st.Seats.Display(other))
			}
		}
		n := g.clone(st)
		n.Players[id].Org = name
		return n, nil, nil
	case KindScan, KindProtest, KindCancel:
	default:
		return s, nil, fmt.Errorf("unknown order %q", c.Kind)
	}
	if c.Src.Channel == rules.Public {
		return s, nil, fmt.Errorf("%s", byPM)
	}
	if p.Out {
		return s, nil, fmt.Errorf("you are out of the game (no Prestige Points left); your orders are ignored")
	}
	n := g.clone(st)
	np := n.Players[id]
	var evs []rules.Event
	switch c.Kind {
	case KindScan:
		o, err := scanArgs(st.Map, c.Args)
		if err != nil {
			return s, nil, err
		}
		replaced := false
		for i, old := range np.Scans {
			if old.Label == o.Label {
				np.Scans[i] = o
				replaced = true
				evs = append(evs, rules.PrivateEvent(id, "order",
					fmt.Sprintf("Scan %s %d %s replaces your earlier scan %s %d %s.", o.Label, o.Radius, o.Hex, old.Label, old.Radius, old.Hex)))
			}
		}
		if !replaced {
			np.Scans = append(np.Scans, o)
		}
	case KindProtest:
		if len(c.Args) != 1 {
			return s, nil, fmt.Errorf("PROTEST needs one hex")
		}
		h, err := st.Map.Parse(c.Args[0])
		if err != nil {
			return s, nil, err
		}
		if np.Protest != "" && np.Protest != h.Name() {
			evs = append(evs, rules.PrivateEvent(id, "order",
				fmt.Sprintf("Protest at %s replaces your earlier protest at %s.", h.Name(), np.Protest)))
		}
		np.Protest = h.Name()
	case KindCancel:
		if len(c.Args) != 1 {
			return s, nil, fmt.Errorf("CANCEL needs a scan label or PROTEST")
		}
		if c.Args[0] == "PROTEST" {
			if np.Protest == "" {
				return s, nil, fmt.Errorf("you have no protest order this turn")
			}
			np.Protest = ""
			break
		}
		kept := np.Scans[:0]
		for _, o := range np.Scans {
			if o.Label != c.Args[0] {
				kept = append(kept, o)
			}
		}
		if len(kept) == len(np.Scans) {
			return s, nil, fmt.Errorf("you have no scan %s this turn", c.Args[0])
		}
		np.Scans = kept
	}
	return n, evs, nil
}

func scanArgs(m hexmap.Map, args []string) (ScanOrder, error) {
	if len(args) != 3 {
		return ScanOrder{}, fmt.Errorf("a scan is L n HEX")
	}
	if len(args[0]) != 1 || !strings.Contains(Labels, args[0]) {
		return ScanOrder{}, fmt.Errorf("scan label %s: labels are A to E", args[0])
	}
	r, err := strconv.Atoi(args[1])
	if err != nil || r < 1 || r > MaxRadius {
		return ScanOrder{}, fmt.Errorf("scan radius %s: it must be 1 to %d", args[1], MaxRadius)
	}
	h, err := m.Parse(args[2])
	if err != nil {
		return ScanOrder{}, err
	}
	return ScanOrder{Label: args[0], Radius: r, Hex: h.Name()}, nil
}
