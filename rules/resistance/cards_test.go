package resistance

import (
	"testing"

	"github.com/forumgm/forumgm/rules"
)

// 7 players Ann..Gus (spies Ben, Eli, Gus), leader order = sign-up order.
// Each case fixes the first cards of the deck.
func deck7(cards ...string) rules.Config {
	rest := []string{}
	left := map[string]int{}
	for _, c := range FullDeck {
		left[c]++
	}
	for _, c := range cards {
		left[c]--
	}
	for _, c := range FullDeck {
		if left[c] > 0 {
			left[c]--
			rest = append(rest, c)
		}
	}
	// Put the named cards first, the others after in the printed order, so
	// every case is fully fixed.
	return fixture(seven, append(append([]string{}, cards...), rest...), nil)
}

func give(from string, pairs ...string) string {
	out := from + ">"
	for i := 0; i+1 < len(pairs); i += 2 {
		out += " [b]GIVE " + pairs[i] + " TO " + pairs[i+1] + "[/b]"
	}
	return out
}

var yes7 = all(seven, "APPROVE")
var no7 = all(seven, "REJECT")

func TestGive(t *testing.T) {
	t.Parallel()
	c := deck7(Speech, CloseEye)
	runCases(t, []gameCase{
		{"gives and announces", c, cat(give("Ann", "passionate", "Cat", "close eye", "Cat")),
			[]check{noRejections(), hand("Cat", Speech, CloseEye), public("Ann gives [b]Passionate Speech[/b] to Cat.", "Ann gives [b]Keeping a Close Eye on You[/b] to Cat.", "All cards are handed out")}},
		{"not to himself", c, cat(give("Ann", "speech", "Ann")), []check{rejected("you cannot keep a card"), hand("Ann")}},
		{"only the dealer", c, cat(give("Ben", "speech", "Cat")), []check{rejected("you have no cards to hand out")}},
		{"only dealt cards", c, cat(give("Ann", "strong", "Cat")), []check{rejected("you were not dealt Strong Leader")}},
		{"not by PM", c, cat("Ann# GIVE speech TO Cat"), []check{rejected("not by PM"), hand("Cat")}},
		{"unknown player", c, cat(give("Ann", "speech", "Zed")), []check{rejected(`"Zed" matches no player`)}},
		{"not twice", c, cat(give("Ann", "speech", "Cat", "speech", "Dan")), []check{rejected("you were not dealt Passionate Speech"), hand("Dan")}},
		{"immediate cards are not played", deck7(Overheard, Successor), cat(give("Ann", "overheard", "Cat"), "Cat> [b]PLAY Overheard[/b]"),
			[]check{rejected("takes effect when it is given")}},
		{"kept cards only by their holder", c, cat(give("Ann", "speech", "Cat", "close", "Cat"), "Ann> [b]TEAM: Ann, Cat[/b]", "Dan> [b]PLAY Passionate Speech[/b]"),
			[]check{rejected("you do not hold Passionate Speech")}},
	})
}

func TestStrongLeader(t *testing.T) {
	t.Parallel()
	c := deck7(StrongLeader, Speech)
	dealt := give("Ann", "strong", "Dan", "speech", "Cat")
	runCases(t, []gameCase{
		{"during a vote it claims the next proposal, then the skipped player leads", c,
			cat(dealt, "Ann> [b]TEAM: Ann, Cat[/b]", "Dan> [b]PLAY Strong Leader[/b]", yes7, // mission 1
				give("Dan", "successor", "Fay", "speech", "Fay"), "Dan> [b]TEAM: Dan, Cat, Fay[/b]", no7), // Dan led mission 2's first proposal instead of Ben
			[]check{noRejections(), missions("success"), phase("m2-p2"), leader("Ben"), hand("Dan"),
				public("Dan declares [b]Strong Leader[/b] and will lead the next proposal.", "[b]Mission 2, proposal 1.[/b] Leader: Dan (in place of Ben, who leads the proposal after).", "Cards dealt to Dan: Successor Nomination and Passionate Speech.", "[b]Mission 2, proposal 2.[/b] Leader: Ben.")}},
		{"and after the skipped player, on in order", c,
			cat(dealt, "Ann> [b]TEAM: Ann, Cat[/b]", "Dan> [b]PLAY Strong Leader[/b]", yes7,
				give("Dan", "successor", "Fay", "speech", "Fay"), "Dan> [b]TEAM: Dan, Cat, Fay[/b]", no7, "Ben> [b]TEAM: Ben, Cat, Fay[/b]", no7),
			[]check{phase("m2-p3"), leader("Cat")}},
		{"while waiting for a later proposal it takes over at once", c,
			cat(dealt, "Ann> [b]TEAM: Ann, Cat[/b]", no7, "Dan> [b]PLAY Strong[/b]", "Dan> [b]TEAM: Dan, Cat[/b]", no7),
			[]check{noRejections(), phase("m1-p3"), leader("Ben"), public("Dan declares [b]Strong Leader[/b] and takes over this proposal from Ben, who leads the one after.", "Dan proposes the team")}},
		{"the skipped leader cannot propose meanwhile", c,
			cat(dealt, "Ann> [b]TEAM: Ann, Cat[/b]", no7, "Dan> [b]PLAY Strong[/b]", "Ben> [b]TEAM: Ben, Cat[/b]"),
			[]check{rejected("only the leader, Dan")}},
		{"not for the first proposal of a mission; not spent", c,
			cat(dealt, "Dan> [b]PLAY Strong Leader[/b]"),
			[]check{rejected("first proposal of a mission cannot be taken over"), leader("Ann"), hand("Dan", StrongLeader)}},
		{"not by the leader who is waiting to propose", c,
			cat(give("Ann", "strong", "Ben", "speech", "Cat"), "Ann> [b]TEAM: Ann, Cat[/b]", no7, "Ben> [b]PLAY Strong Leader[/b]"),
			[]check{rejected("you are already the leader"), leader("Ben"), hand("Ben", StrongLeader), notPublic("Ben declares")}},
		{"refused by the leader, the card still works later", c,
			cat(give("Ann", "strong", "Ben", "speech", "Cat"), "Ann> [b]TEAM: Ann, Cat[/b]", no7, "Ben> [b]PLAY Strong Leader[/b]",
				"Ben> [b]TEAM: Ben, Cat[/b]", "Ben> [b]PLAY Strong Leader[/b]", no7),
			[]check{phase("m1-p3"), leader("Ben"), hand("Ben"), public("Ben declares [b]Strong Leader[/b] and will lead the next proposal.", "[b]Mission 1, proposal 3.[/b] Leader: Ben (in place of Cat, who leads the proposal after).")}},
		{"declared publicly only", c,
			cat(dealt, "Ann> [b]TEAM: Ann, Cat[/b]", "Dan# PLAY Strong Leader"),
			[]check{rejected("must be declared in the thread"), hand("Dan", StrongLeader)}},
		{"beats Successor Nomination, which is spent", deck7(StrongLeader, Successor),
			cat(give("Ann", "strong", "Dan", "successor", "Fay"), "Ann> [b]TEAM: Ann, Cat[/b]", "Dan> [b]PLAY Strong Leader[/b]", yes7),
			[]check{leader("Dan"), public("Fay will lead the first proposal of the next mission.", "Strong Leader wins over Successor Nomination: Fay's nomination is spent.", "Mission 2, proposal 1.[/b] Leader: Dan (in place of Ben, who leads the proposal after)."), func(t *testing.T, r *run) {
				if r.State.Nominee != "" {
					t.Errorf("nominee still %s", r.State.Nominee)
				}
			}}},
	})
}

func TestSuccessorNomination(t *testing.T) {
	t.Parallel()
	c := deck7(Successor, Speech)
	runCases(t, []gameCase{
		{"leads the next mission's first proposal, then the skipped player", c,
			cat(give("Ann", "successor", "Fay", "speech", "Cat"), "Ann> [b]TEAM: Ann, Cat[/b]", no7, // m1-p2 is Ben's: no effect yet
				"Ben> [b]TEAM: Ann, Cat[/b]", yes7, // mission 1 done; Cat's turn taken by Fay
				give("Fay", "strong", "Dan", "speech", "Dan"), "Fay> [b]TEAM: Ann, Cat, Dan[/b]", no7),
			[]check{noRejections(), public("Fay will lead the first proposal of the next mission.", "[b]Mission 1, proposal 2.[/b] Leader: Ben.", "[b]Mission 2, proposal 1.[/b] Leader: Fay (in place of Cat, who leads the proposal after).", "Cards dealt to Fay"), phase("m2-p2"), leader("Cat")}},
		{"the holder's own turn: no skip", c,
			cat(give("Ann", "successor", "Ben", "speech", "Cat"), "Ann> [b]TEAM: Ann, Cat[/b]", yes7, give("Ben", "strong", "Dan", "speech", "Dan"), "Ben> [b]TEAM: Ann, Cat, Dan[/b]", no7),
			[]check{leader("Cat")}},
	})
}

func TestPassionateSpeech(t *testing.T) {
	t.Parallel()
	c := deck7(Speech, Speech)
	base := cat(give("Ann", "speech", "Cat", "speech", "Cat"), "Ann> [b]TEAM: Ann, Cat[/b]")
	runCases(t, []gameCase{
		{"counts double", c, cat(base, "Cat> [b]PLAY Passionate Speech[/b]", all(remove(seven, "Fay"), "REJECT", "Ann", "Cat", "Dan"), "!deadline"),
			[]check{missions("success"), hand("Cat", Speech), public("Cat plays [b]Passionate Speech[/b]: their vote on this team counts double.", "APPROVE (4): Ann, Cat (x2), Dan\nREJECT (3): Ben, Eli, Gus")}},
		{"a 4-4 tie rejects", c, cat(base, "Cat> [b]PLAY Passionate Speech[/b]", all(seven, "REJECT", "Ann", "Cat", "Dan")),
			[]check{missions(), public("APPROVE (4): Ann, Cat (x2), Dan\nREJECT (4): Ben, Eli, Fay, Gus")}},
		{"only once per proposal", c, cat(base, "Cat> [b]PLAY speech[/b] [b]PLAY speech[/b]"),
			[]check{rejected("already counts double"), hand("Cat", Speech)}},
		{"publicly only", c, cat(base, "Cat# PLAY Passionate Speech"), []check{rejected("must be declared in the thread"), hand("Cat", Speech, Speech)}},
		{"needs a team up for votes", c, cat(give("Ann", "speech", "Cat", "speech", "Cat"), "Cat> [b]PLAY Passionate Speech[/b]"),
			[]check{rejected("none is yet")}},
		{"spent on a rejected proposal", c, cat(base, "Cat> [b]PLAY speech[/b]", no7),
			[]check{hand("Cat", Speech)}},
	})
}

func TestCloseEye(t *testing.T) {
	t.Parallel()
	c := deck7(CloseEye, CloseEye)
	base := cat(give("Ann", "close", "Dan", "keeping", "Fay"), "Ann> [b]TEAM: Ann, Ben[/b]")
	runCases(t, []gameCase{
		{"holder alone learns the order", c, cat(base, "Dan# PLAY Keeping a Close Eye ON Ben", "Ben# SABOTAGE", yes7),
			[]check{noRejections(), onlyTo("Dan", "Keeping a Close Eye on You: on mission 1, Ben SABOTAGED."), missions("fail"), hand("Dan")}},
		{"played in the thread", c, cat(base, "Fay> [b]PLAY Close Eye ON ann[/b]", yes7),
			[]check{noRejections(), onlyTo("Fay", "Keeping a Close Eye on You: on mission 1, Ann SUPPORTED."), public("Fay plays [b]Keeping a Close Eye on You[/b] on Ann.")}},
		{"both copies", c, cat(base, "Fay> [b]PLAY Close Eye ON ann[/b]", "Dan# PLAY eye ON Ben", "Ben# SUPPORT", yes7),
			[]check{onlyTo("Fay", "Ann SUPPORTED"), onlyTo("Dan", "Ben SUPPORTED")}},
		{"target must be on the team", c, cat(base, "Dan# PLAY Close Eye ON Cat"), []check{rejected("Cat is not on the proposed team"), hand("Dan", CloseEye)}},
		{"target must be named", c, cat(base, "Dan# PLAY Keeping a Close Eye on You"), []check{rejected("name a team member")}},
		{"needs a team", c, cat(give("Ann", "close", "Dan", "keeping", "Fay"), "Dan# PLAY Close Eye ON Ben"), []check{rejected("none is proposed yet")}},
		{"returned when the team is rejected", c, cat(base, "Dan# PLAY Close Eye ON Ben", no7),
			[]check{hand("Dan", CloseEye), privateTo("Dan", "The team was rejected: your Keeping a Close Eye on You card returns to your hand.")}},
		{"returned when the target leaves the team", c, cat(base, "Dan# PLAY Close Eye ON Ben", "Ann> [b]TEAM: Ann, Cat[/b]"),
			[]check{hand("Dan", CloseEye), privateTo("Dan", "Ben is not on the new team")}},
	})
}

func TestOverheardConversation(t *testing.T) {
	t.Parallel()
	c := deck7(Overheard, Speech)
	base := give("Ann", "overheard", "Cat", "speech", "Fay")
	runCases(t, []gameCase{
		{"announced with the choices", c, cat(base), []check{public("Cat must now name a player next to them in the leader order (Ben or Dan) with [b]OVERHEAR name[/b]")}},
		{"receiver alone learns an adjacent role", c, cat(base, "Cat# OVERHEAR ben"),
			[]check{noRejections(), onlyTo("Cat", "Overheard Conversation: Ben is a SPY.")}},
		{"in the thread too, the result by PM", c, cat(base, "Cat> [b]OVERHEAR: Dan[/b]"),
			[]check{noRejections(), onlyTo("Cat", "Overheard Conversation: Dan is a member of the RESISTANCE.")}},
		{"only adjacent players", c, cat(base, "Cat# OVERHEAR Eli"), []check{rejected("Eli is not next to you in the leader order (Ben or Dan)")}},
		{"only the receiver", c, cat(base, "Dan# OVERHEAR Cat"), []check{rejected("no Overheard Conversation choice")}},
		{"only once", c, cat(base, "Cat# OVERHEAR Ben", "Cat# OVERHEAR Dan"), []check{rejected("no Overheard Conversation choice")}},
		{"wraps around the leader order", deck7(Overheard, Speech), cat(give("Ann", "overheard", "Gus", "speech", "Fay"), "Gus# OVERHEAR Ann"),
			[]check{noRejections(), onlyTo("Gus", "Overheard Conversation: Ann is a member of the RESISTANCE.")}},
		{"no choice by the mission: the next player is named", c, cat(base, "Ann> [b]TEAM: Ann, Cat[/b]", yes7),
			[]check{public("Cat made no Overheard Conversation choice before the mission resolved; the bot names Dan"), onlyTo("Cat", "Overheard Conversation: Dan is a member of the RESISTANCE.")}},
	})
}

func TestEstablishConfidence(t *testing.T) {
	t.Parallel()
	runCases(t, []gameCase{
		{"receiver learns the giving leader's role", deck7(Confidence, Speech), cat(give("Ann", "establish", "Eli", "speech", "Fay")),
			[]check{noRejections(), onlyTo("Eli", "Establish Confidence: Ann is a member of the RESISTANCE."), hand("Eli")}},
		{"a spy leader", deck7(Speech, Speech, Confidence, Spotlight), cat(give("Ann", "speech", "Cat", "speech", "Cat"), "Ann> [b]TEAM: Ann, Cat[/b]", yes7,
			give("Ben", "establish", "Dan", "spotlight", "Fay")),
			[]check{onlyTo("Dan", "Establish Confidence: Ben is a SPY.")}},
	})
}

func TestOpenUp(t *testing.T) {
	t.Parallel()
	c := deck7(OpenUp, Speech)
	base := give("Ann", "open", "Ben", "speech", "Fay")
	runCases(t, []gameCase{
		{"the named player alone learns the receiver's role", c, cat(base, "Ben# OPEN UP TO Fay"),
			[]check{noRejections(), onlyTo("Fay", "Open Up: Ben is a SPY."), privateTo("Ben", "Open Up: your role has been revealed to Fay."),
				public("Ben must now name one other player with [b]OPEN UP TO name[/b]")}},
		{"in the thread", c, cat(base, "Ben> [b]open up: dan[/b]"), []check{noRejections(), onlyTo("Dan", "Open Up: Ben is a SPY.")}},
		{"not himself", c, cat(base, "Ben# OPEN UP TO Ben"), []check{rejected("name another player")}},
		{"only the receiver", c, cat(base, "Cat# OPEN UP TO Ben"), []check{rejected("no Open Up choice")}},
		{"no choice by the mission: the next player learns", c, cat(base, "Ann> [b]TEAM: Ann, Cat[/b]", yes7),
			[]check{onlyTo("Cat", "Open Up: Ben is a SPY."), public("Ben made no Open Up choice before the mission resolved; the bot names Cat")}},
	})
}

func TestInTheSpotlight(t *testing.T) {
	t.Parallel()
	c := deck7(Spotlight, Speech)
	base := cat(give("Ann", "spotlight", "Fay", "speech", "Cat"), "Ann> [b]TEAM: Ann, Ben[/b]")
	runCases(t, []gameCase{
		{"the target's order is revealed publicly", c, cat(base, "Fay> [b]PLAY In The Spotlight ON Ben[/b]", "Ben# SABOTAGE", yes7),
			[]check{noRejections(), hand("Fay"), public("Fay plays [b]In The Spotlight[/b] on Ben", "[b]Mission 1: FAIL[/b] — 1 sabotage.\nIn The Spotlight: Ben sent SABOTAGE.")}},
		{"a default order is revealed too", c, cat(base, "Fay> [b]PLAY spotlight ON Ann[/b]", yes7),
			[]check{public("In The Spotlight: Ann sent SUPPORT.")}},
		{"publicly only", c, cat(base, "Fay# PLAY In The Spotlight ON Ben"), []check{rejected("must be declared in the thread"), hand("Fay", Spotlight)}},
		{"target on the team", c, cat(base, "Fay> [b]PLAY In The Spotlight ON Cat[/b]"), []check{rejected("Cat is not on the proposed team"), hand("Fay", Spotlight)}},
		{"rejected team: nothing revealed, card returned", c, cat(base, "Fay> [b]PLAY In The Spotlight ON Ben[/b]", no7),
			[]check{hand("Fay", Spotlight), notPublic("Ben sent"), public("The team was rejected: In The Spotlight returns to Fay's hand.")}},
	})
}
