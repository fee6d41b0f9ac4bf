package resistance

import (
	"fmt"
	"strings"

	"github.com/forumgm/forumgm/rules"
)

// Command kinds.
const (
	KindVote     = "vote"     // Args: [approve|reject]
	KindTeam     = "team"     // Args: [names as written]
	KindOrder    = "order"    // Args: [support|sabotage]
	KindGive     = "give"     // Args: [card, name as written]
	KindPlay     = "play"     // Args: [card] or [card, name as written]
	KindOverhear = "overhear" // Args: [name as written]
	KindOpenUp   = "openup"   // Args: [name as written]
)

// Parse implements rules.Game. Names are matched in Apply, so a bad name in a
// proposal gets the public notice the rulings ask for.
func (Game) Parse(_ rules.State, text string, src rules.Source) rules.Parsed {
	pub := src.Channel == rules.Public
	text = strings.TrimSpace(text)
	words := rules.Words(text)
	if len(words) == 0 {
		return rules.Parsed{Ignored: true}
	}
	up := make([]string, len(words))
	for i, w := range words {
		up[i] = strings.ToUpper(w)
	}
	cmd := func(kind string, args ...string) rules.Parsed {
		return rules.Parsed{Cmd: &rules.Command{Kind: kind, Args: args, Text: text}}
	}
	reject := func(f string, a ...any) rules.Parsed { return rules.Parsed{Reject: fmt.Sprintf(f, a...)} }

	switch up[0] {
	case "VOTE":
		if len(up) < 2 {
			return reject("a vote is VOTE APPROVE or VOTE REJECT")
		}
		return parseVote(up[1:], text)
	case "APPROVE", "REJECT":
		return parseVote(up, text)
	case "TEAM", "PROPOSE", "PROPOSAL":
		n := 1
		if up[0] != "TEAM" && len(up) > 1 && up[1] == "TEAM" {
			n = 2
		}
		if !pub {
			return reject("a team proposal must be posted in the thread, in bold")
		}
		names := rules.Rest(text, n)
		if names == "" {
			return reject("name the team: TEAM: alice, bob")
		}
		return cmd(KindTeam, names)
	case "SUPPORT", "SABOTAGE":
		if pub {
			return reject("mission orders are secret: send SUPPORT or SABOTAGE to the bot by PM, never in the thread")
		}
		return cmd(KindOrder, strings.ToLower(up[0]))
	case "GIVE":
		i := lastWord(up, "TO")
		if i < 2 || i == len(up)-1 {
			return reject("to hand out a card write GIVE card TO name")
		}
		card, err := matchCard(strings.Join(words[1:i], " "))
		if err != nil {
			return reject("%v", err)
		}
		return cmd(KindGive, card, strings.Join(words[i+1:], " "))
	case "PLAY", "USE":
		if len(words) < 2 {
			return reject("name the card: PLAY card [ON name]")
		}
		if card, err := matchCard(strings.Join(words[1:], " ")); err == nil {
			return cmd(KindPlay, card)
		}
		i := lastWord(up, "ON")
		if i < 2 || i == len(up)-1 {
			_, err := matchCard(strings.Join(words[1:], " "))
			return reject("%v", err)
		}
		card, err := matchCard(strings.Join(words[1:i], " "))
		if err != nil {
			return reject("%v", err)
		}
		return cmd(KindPlay, card, strings.Join(words[i+1:], " "))
	case "OVERHEAR":
		if len(words) < 2 {
			return reject("name a player next to you in the leader order: OVERHEAR name")
		}
		return cmd(KindOverhear, strings.Join(words[1:], " "))
	case "OPEN", "OPENUP":
		i := 1
		if up[0] == "OPEN" {
			if len(up) < 2 || up[1] != "UP" {
				break
			}
			i = 2
		}
		if i < len(up) && up[i] == "TO" {
			i++
		}
		if i >= len(up) {
			return reject("name the player who learns your role: OPEN UP TO name")
		}
		return cmd(KindOpenUp, strings.Join(words[i:], " "))
	}
	if pub {
		return rules.Parsed{Ignored: true}
	}
	return reject("not a command this game knows: %q", text)
}

// parseVote reads APPROVE/REJECT followed by optional words; a second vote
// word makes it ambiguous.
func parseVote(up []string, text string) rules.Parsed {
	v := up[0]
	if v != "APPROVE" && v != "REJECT" {
		return rules.Parsed{Reject: "a vote is APPROVE or REJECT"}
	}
	for _, w := range up[1:] {
		if w == "APPROVE" || w == "REJECT" {
			return rules.Parsed{Reject: "both APPROVE and REJECT in one vote: which is it?"}
		}
	}
	return rules.Parsed{Cmd: &rules.Command{Kind: KindVote, Args: []string{strings.ToLower(v)}, Text: text}}
}

func lastWord(up []string, w string) int {
	for i := len(up) - 1; i >= 0; i-- {
		if up[i] == w {
			return i
		}
	}
	return -1
}

// matchCard finds a card by a unique prefix of its name or of the name from
// any of its words on ("strong", "close eye", "spotlight"), case and spaces
// ignored.
func matchCard(s string) (string, error) {
	k := rules.NormName(s)
	if k == "" {
		return "", fmt.Errorf("no card named")
	}
	var hits []string
	for _, c := range cardNames {
		if rules.NormName(c) == k {
			return c, nil
		}
		ws := strings.Fields(c)
		for i := range ws {
			if strings.HasPrefix(rules.NormName(strings.Join(ws[i:], "")), k) && (i == 0 || len(k) >= 3) {
				hits = append(hits, c)
				break
			}
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", fmt.Errorf("%q is not a card (cards: %s)", s, strings.Join(cardNames, ", "))
	}
	return "", fmt.Errorf("%q could mean %s", s, strings.Join(hits, " or "))
}
