package resistance

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/rules"
)

func rejections(want int) check {
	return func(t *testing.T, r *run) {
		t.Helper()
		if r.State.Rejections != want {
			t.Errorf("rejections = %d, want %d", r.State.Rejections, want)
		}
	}
}

// over checks whether the game is finished, and for whom.
func over(finished bool, winner string) check {
	return func(t *testing.T, r *run) {
		t.Helper()
		if r.State.Finished != finished || r.State.Winner != winner {
			t.Errorf("finished %v winner %q, want %v %q", r.State.Finished, r.State.Winner, finished, winner)
		}
	}
}

// missing checks whom Status reports missing at the last close.
func missing(want ...string) check {
	return func(t *testing.T, r *run) {
		t.Helper()
		got, _ := (Game{}).Status(r.State).Extra["missing"].([]string)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("missing = %v, want %v", got, want)
		}
	}
}

// silentAfter: mission 1's first k proposals (leaders Ann, Ben, … in order)
// are rejected by everyone; then the next leader lets the time limit pass.
func silentAfter(k int) []string {
	var out []string
	for i := 0; i < k; i++ {
		out = append(out, cat(five[i]+"> [b]TEAM: "+five[i]+", "+five[(i+1)%5]+"[/b]", all(five, "REJECT"))...)
	}
	return append(out, "!deadline")
}

// A leader who posts no valid team by the time limit: by default nothing
// was proposed, so nothing is rejected and the turn passes on; with
// missing_proposal: reject the silence counts as a rejected proposal.
func TestSilentLeader(t *testing.T) {
	t.Parallel()
	pass := fixture(five, nil, nil)
	harsh := fixture(five, nil, rules.Options{"missing_proposal": "reject"})
	var cases []gameCase
	for k := 0; k <= 4; k++ { // 4: the proposal that would reach the limit
		silent, next := five[k], five[(k+1)%5]
		cases = append(cases, gameCase{fmt.Sprintf("pass: %s silent after %d rejections", silent, k), pass, silentAfter(k),
			[]check{noRejections(), rejections(k), phase(fmt.Sprintf("m1-p%d", k+2)), leader(next), over(false, ""), missing(silent), missions(),
				public(fmt.Sprintf("Time is up and %s proposed no team: the turn passes without a proposal, and the rejection count stays at %d of 5. %s leads the next proposal.\nNo team from: %s.", silent, k, next, silent),
					fmt.Sprintf("[b]Mission 1, proposal %d.[/b] Leader: %s. Team size: 2.", k+2, next)),
				notPublic("counts as a rejected proposal", "THE SPIES WIN")}})
		harshChecks := []check{noRejections(), rejections(k + 1), missing(silent),
			public(fmt.Sprintf("Time is up and %s proposed no team: this counts as a rejected proposal.\nNo team from: %s.", silent, silent))}
		if k < 4 {
			harshChecks = append(harshChecks, phase(fmt.Sprintf("m1-p%d", k+2)), leader(next), over(false, ""),
				public(fmt.Sprintf("[b]Mission 1, proposal %d.[/b] Leader: %s. Team size: 2. Rejected proposals this mission: %d of 5.", k+2, next, k+1)))
		} else {
			harshChecks = append(harshChecks, phase("end"), over(true, Spy),
				public("That is rejected proposal 5 of 5 in mission 1.", "[b]THE SPIES WIN[/b]: the rejection limit was reached."))
		}
		cases = append(cases, gameCase{fmt.Sprintf("reject: %s silent after %d rejections", silent, k), harsh, silentAfter(k), harshChecks})
	}
	cases = append(cases,
		gameCase{"pass: the next real rejection still reaches the limit", pass, cat(silentAfter(4), "Ann> [b]TEAM: Ann, Cat[/b]", all(five, "REJECT")),
			[]check{rejections(5), over(true, Spy), public("That is rejected proposal 5 of 5 in mission 1.")}},
		gameCase{"pass: after the silence the mission goes on", pass, cat(silentAfter(4), "Ann> [b]TEAM: Ann, Cat[/b]", all(five, "APPROVE")),
			[]check{missions("success"), rejections(0), phase("m2-p1"), leader("Ben"), over(false, "")}},
		gameCase{"pass: two silences in a row", pass, cat("!deadline", "!deadline"),
			[]check{rejections(0), phase("m1-p3"), leader("Cat"), missing("Ben"),
				public("Time is up and Ben proposed no team: the turn passes without a proposal, and the rejection count stays at 0 of 5. Cat leads the next proposal.")}},
		gameCase{"option names are case-insensitive", fixture(five, nil, rules.Options{"missing_proposal": " REJECT "}), cat("!deadline"),
			[]check{rejections(1), public("this counts as a rejected proposal")}},
	)
	runCases(t, cases)
}

// A silent stand-in (Strong Leader, Successor Nomination): his turn goes back
// to the player he displaced, then the order goes on.
func TestSilentStandIn(t *testing.T) {
	t.Parallel()
	reject := rules.Options{"missing_proposal": "reject"}
	strong := deck7(StrongLeader, Speech)
	strongHarsh := deck7(StrongLeader, Speech)
	strongHarsh.Options = reject
	// Dan holds Strong Leader; Ann's team is rejected; Dan takes over Ben's
	// proposal (mission 1, proposal 2) while the bot waits for it.
	takeOver := cat(give("Ann", "strong", "Dan", "speech", "Cat"), "Ann> [b]TEAM: Ann, Cat[/b]", no7, "Dan> [b]PLAY Strong Leader[/b]")
	// Dan claims mission 2's first proposal during mission 1's vote, so he
	// is dealt its cards (Successor Nomination, Passionate Speech).
	claim := cat(give("Ann", "strong", "Dan", "speech", "Cat"), "Ann> [b]TEAM: Ann, Cat[/b]", "Dan> [b]PLAY Strong Leader[/b]", yes7)
	succ := deck7(Successor, Speech)
	succHarsh := deck7(Successor, Speech)
	succHarsh.Options = reject
	// Fay is nominated; mission 1 succeeds on Ben's proposal, so Fay leads
	// mission 2's first proposal in Cat's place and is dealt its cards
	// (Strong Leader, Passionate Speech).
	nominated := cat(give("Ann", "successor", "Fay", "speech", "Cat"), "Ann> [b]TEAM: Ann, Cat[/b]", no7, "Ben> [b]TEAM: Ann, Cat[/b]", yes7)
	noneHolds := func(cards ...string) check {
		return func(t *testing.T, r *run) {
			t.Helper()
			for id, h := range r.State.Hands {
				for _, c := range cards {
					if contains(h, c) {
						t.Errorf("%s holds the discarded %s", id, c)
					}
				}
			}
			if len(r.State.Dealt) != 0 {
				t.Errorf("still dealt: %v", r.State.Dealt)
			}
		}
	}
	runCases(t, []gameCase{
		{"Strong Leader taking over, silent: Ben's turn comes back", strong, cat(takeOver, "!deadline"),
			[]check{noRejections(), rejections(1), phase("m1-p3"), leader("Ben"), missing("Dan"), hand("Dan"),
				public("Time is up and Dan, leading in Ben's place, proposed no team: the turn passes without a proposal, and the rejection count stays at 1 of 5. Ben leads the next proposal.\nNo team from: Dan.",
					"[b]Mission 1, proposal 3.[/b] Leader: Ben. Team size: 2. Rejected proposals this mission: 1 of 5.")}},
		{"then on in order after Ben", strong, cat(takeOver, "!deadline", "Ben> [b]TEAM: Ben, Cat[/b]", no7),
			[]check{noRejections(), rejections(2), phase("m1-p4"), leader("Cat")}},
		{"the same with missing_proposal: reject", strongHarsh, cat(takeOver, "!deadline"),
			[]check{rejections(2), phase("m1-p3"), leader("Ben"), public("Time is up and Dan, leading in Ben's place, proposed no team: this counts as a rejected proposal.")}},
		{"Strong Leader claiming a mission's first proposal, silent: cards discarded, Ben's turn comes back", strong, cat(claim, "!deadline"),
			[]check{missions("success"), rejections(0), phase("m2-p2"), leader("Ben"), missing("Dan"), noneHolds(Successor), func(t *testing.T, r *run) {
				if r.State.Nominee != "" || len(r.State.Deck) != 6 {
					t.Errorf("nominee %q, deck %v", r.State.Nominee, r.State.Deck)
				}
			}, public("Time is up and Dan, leading in Ben's place, proposed no team: the turn passes without a proposal, and the rejection count stays at 0 of 5. The cards not handed out (Successor Nomination, Passionate Speech) are discarded. Ben leads the next proposal.",
				"[b]Mission 2, proposal 2.[/b] Leader: Ben. Team size: 3.")}},
		{"after discarded cards the next leader proposes at once", strong, cat(claim, "!deadline", "Ben> [b]TEAM: Ben, Cat, Fay[/b]"),
			[]check{noRejections(), team("Ben,Cat,Fay")}},
		{"Successor Nomination, silent: cards discarded, Cat's turn comes back", succ, cat(nominated, "!deadline"),
			[]check{noRejections(), missions("success"), rejections(0), phase("m2-p2"), leader("Cat"), missing("Fay"), noneHolds(StrongLeader),
				public("[b]Mission 2, proposal 1.[/b] Leader: Fay (in place of Cat, who leads the proposal after).",
					"Time is up and Fay, leading in Cat's place, proposed no team: the turn passes without a proposal, and the rejection count stays at 0 of 5. The cards not handed out (Strong Leader, Passionate Speech) are discarded. Cat leads the next proposal.",
					"[b]Mission 2, proposal 2.[/b] Leader: Cat. Team size: 3.")}},
		{"then on in order after Cat", succ, cat(nominated, "!deadline", "Cat> [b]TEAM: Ann, Cat, Dan[/b]", no7),
			[]check{noRejections(), rejections(1), phase("m2-p3"), leader("Dan")}},
		{"the same with missing_proposal: reject", succHarsh, cat(nominated, "!deadline"),
			[]check{rejections(1), phase("m2-p2"), leader("Cat"), public("Time is up and Fay, leading in Cat's place, proposed no team: this counts as a rejected proposal. The cards not handed out (Strong Leader, Passionate Speech) are discarded.")}},
	})
}

// Cards the silent leader had not given are discarded, under either rule;
// those he gave stay given.
func TestSilentLeaderCards(t *testing.T) {
	t.Parallel()
	one := deck7(Speech, Spotlight)
	harsh := deck7(Speech, Spotlight)
	harsh.Options = rules.Options{"missing_proposal": "reject"}
	deckLeft := func(want int) check {
		return func(t *testing.T, r *run) {
			t.Helper()
			if len(r.State.Dealt) != 0 || len(r.State.Deck) != want {
				t.Errorf("dealt %v, deck %v (want %d left)", r.State.Dealt, r.State.Deck, want)
			}
		}
	}
	runCases(t, []gameCase{
		{"one given, one discarded", one, cat("Ann> [b]GIVE speech TO Cat[/b]", "!deadline", "Ben> [b]TEAM: Ben, Cat[/b]"),
			[]check{noRejections(), rejections(0), deckLeft(8), team("Ben,Cat"), hand("Cat", Speech), hand("Ann"),
				public("Time is up and Ann proposed no team: the turn passes without a proposal, and the rejection count stays at 0 of 5. The cards not handed out (In The Spotlight) are discarded. Ben leads the next proposal.")}},
		{"none given, both discarded", one, cat("!deadline"),
			[]check{rejections(0), deckLeft(8), hand("Ann"), public("The cards not handed out (Passionate Speech, In The Spotlight) are discarded.")}},
		{"with missing_proposal: reject", harsh, cat("Ann> [b]GIVE speech TO Cat[/b]", "!deadline", "Ben> [b]TEAM: Ben, Cat[/b]"),
			[]check{noRejections(), rejections(1), deckLeft(8), team("Ben,Cat"), hand("Cat", Speech),
				public("Time is up and Ann proposed no team: this counts as a rejected proposal. The cards not handed out (In The Spotlight) are discarded.\nNo team from: Ann.")}},
		{"the next mission deals from the deck as it was", one, cat("!deadline", "Ben> [b]TEAM: Ann, Cat[/b]", yes7),
			[]check{missions("success"), phase("m2-p1"), leader("Cat"), func(t *testing.T, r *run) {
				if strings.Join(r.State.Dealt, ",") != StrongLeader+","+Successor {
					t.Errorf("mission 2 dealt %v", r.State.Dealt)
				}
			}}},
	})
}

// The opening post's how-to says what a leader's silence does, and the
// option is a bounded choice whose error names it.
func TestMissingProposalOption(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opts rules.Options
		want string
	}{
		{nil, "A leader who has posted no team by the deadline loses the turn to the next leader; the rejection count does not grow."},
		{rules.Options{"missing_proposal": "pass"}, "loses the turn to the next leader; the rejection count does not grow."},
		{rules.Options{"missing_proposal": "reject"}, "A leader who has posted no team by the deadline loses the turn to the next leader, and it counts as a rejected proposal."},
	} {
		r := play(t, fixture(five, nil, tc.opts))
		mustContain(t, fmt.Sprintf("opening with %v", tc.opts), r.pub(), tc.want)
	}
	// A game saved before the option existed has no missing_proposal in its
	// state: it plays by the default.
	g := Game{}
	st, _, _ := g.Setup(fixture(five, nil, rules.Options{"missing_proposal": "reject"}))
	raw, _ := json.Marshal(st)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	delete(m, "missing_proposal")
	raw, _ = json.Marshal(m)
	old, err := g.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := g.Resolve(old, g.Status(old).Deadline); s.(*State).Rejections != 0 || s.(*State).Leader != "Ben" {
		t.Errorf("an old state's silent leader: rejections %d, leader %s", s.(*State).Rejections, s.(*State).Leader)
	}
	for _, v := range []any{"abstain", "approve", "", true, 1} {
		_, _, err := Game{}.Setup(fixture(five, nil, rules.Options{"missing_proposal": v}))
		if err == nil || !strings.Contains(err.Error(), "missing_proposal must be pass or reject") {
			t.Errorf("missing_proposal %v: err = %v", v, err)
		}
	}
}
