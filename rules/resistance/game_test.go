package resistance

import (
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// check is one expectation on a finished run.
type check func(t *testing.T, r *run)

func rejected(sub string) check {
	return func(t *testing.T, r *run) { t.Helper(); mustContain(t, "rejections", r.rej(), sub) }
}
func noRejections() check {
	return func(t *testing.T, r *run) {
		t.Helper()
		if len(r.Rejected) > 0 {
			t.Errorf("unexpected rejections:\n%s", r.rej())
		}
	}
}
func public(subs ...string) check {
	return func(t *testing.T, r *run) { t.Helper(); mustContain(t, "public", r.pub(), subs...) }
}
func notPublic(subs ...string) check {
	return func(t *testing.T, r *run) { t.Helper(); mustNotContain(t, "public", r.pub(), subs...) }
}
func privateTo(who string, subs ...string) check {
	return func(t *testing.T, r *run) { t.Helper(); mustContain(t, "PMs to "+who, r.pm(who), subs...) }
}

// onlyTo: sub reaches who by PM and nobody else, and never the thread.
func onlyTo(who, sub string) check {
	return func(t *testing.T, r *run) {
		t.Helper()
		mustContain(t, "PMs to "+who, r.pm(who), sub)
		for p := range r.Private {
			if p != who {
				mustNotContain(t, "PMs to "+p, r.pm(p), sub)
			}
		}
		mustNotContain(t, "public", r.pub(), sub)
	}
}
func missions(want ...string) check {
	return func(t *testing.T, r *run) {
		t.Helper()
		if got := strings.Join(r.State.Missions, ","); got != strings.Join(want, ",") {
			t.Errorf("missions = %s, want %s", got, strings.Join(want, ","))
		}
	}
}
func sabotages(want ...int) check {
	return func(t *testing.T, r *run) {
		t.Helper()
		got := r.State.Sabotages
		if len(got) != len(want) {
			t.Errorf("sabotages = %v, want %v", got, want)
			return
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("sabotages = %v, want %v", got, want)
			}
		}
	}
}
func phase(want string) check {
	return func(t *testing.T, r *run) {
		t.Helper()
		if got := (Game{}).Status(r.State).Phase; got != want {
			t.Errorf("phase = %s, want %s", got, want)
		}
	}
}
func leader(want string) check {
	return func(t *testing.T, r *run) {
		t.Helper()
		if r.State.Leader != want {
			t.Errorf("leader = %s, want %s", r.State.Leader, want)
		}
	}
}
func team(want string) check {
	return func(t *testing.T, r *run) {
		t.Helper()
		if got := strings.Join(r.State.Team, ","); got != want {
			t.Errorf("team = %s, want %s", got, want)
		}
	}
}
func hand(who string, want ...string) check {
	return func(t *testing.T, r *run) {
		t.Helper()
		if got := strings.Join(r.State.Hands[who], ","); got != strings.Join(want, ",") {
			t.Errorf("%s holds %s, want %s", who, got, strings.Join(want, ","))
		}
	}
}

type gameCase struct {
	name   string
	cfg    rules.Config
	steps  []string
	checks []check
}

func runCases(t *testing.T, cases []gameCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := play(t, tc.cfg, tc.steps...)
			for _, c := range tc.checks {
				c(t, r)
			}
			if t.Failed() {
				t.Logf("public:\n%s\nrejections:\n%s", r.pub(), r.rej())
			}
		})
	}
}

func TestProposals(t *testing.T) {
	t.Parallel()
	f5 := fixture(five, nil, nil)
	f7 := fixture(seven, []string{StrongLeader, Speech}, nil)
	runCases(t, []gameCase{
		{"leader proposes", f5, cat("Ann> [b]TEAM: Ann, cat[/b]"),
			[]check{noRejections(), team("Ann,Cat"), public("Ann proposes the team: [b]Ann, Cat[/b] (mission 1, proposal 1)")}},
		{"not the leader", f5, cat("Ben> [b]TEAM: Ann, Ben[/b]"),
			[]check{rejected("only the leader, Ann"), team(""), public("Proposal by Ben not accepted: only the leader, Ann, proposes the team.")}},
		{"wrong size", f5, cat("Ann> [b]TEAM: Ann, Ben, Cat[/b]"),
			[]check{rejected("needs exactly 2 players, not 3"), team(""), public("Proposal by Ann not accepted: mission 1 needs exactly 2 players, not 3.")}},
		{"unknown name", f5, cat("Ann> [b]TEAM: Ann, Zed[/b]"),
			[]check{rejected(`"Zed" matches no player`), team(""), public("Proposal by Ann not accepted")}},
		{"repeated name", f5, cat("Ann> [b]TEAM: Ann, ann[/b]"),
			[]check{rejected("Ann is named twice"), team("")}},
		{"replaced before the first vote", f5, cat("Ann> [b]TEAM: Ann, Ben[/b]", "Ann> [b]PROPOSE: Cat + Dan[/b]"),
			[]check{noRejections(), team("Cat,Dan"), public("Ann replaces the proposal with the team: [b]Cat, Dan[/b]")}},
		{"locked after the first vote", f5, cat("Ann> [b]TEAM: Ann, Ben[/b]", "Cat# APPROVE", "Ann> [b]TEAM: Cat, Dan[/b]"),
			[]check{rejected("locked once the first vote"), team("Ann,Ben"), public("Proposal by Ann not accepted: the team is locked")}},
		{"cards first at 7+", f7, cat("Ann> [b]TEAM: Ann, Ben[/b]"),
			[]check{rejected("cards must be handed out first"), team(""), public("Proposal by Ann not accepted: the mission's cards must be handed out first (Strong Leader, Passionate Speech).")}},
		{"after both cards", f7, cat("Ann> [b]GIVE strong TO Dan[/b] [b]GIVE passionate TO Dan[/b] [b]TEAM: Ann, Ben[/b]"),
			[]check{noRejections(), team("Ann,Ben"), public("All cards are handed out: Ann may propose the team.")}},
	})
}

func TestVotes(t *testing.T) {
	t.Parallel()
	f5 := fixture(five, nil, nil)
	rej := fixture(five, nil, rules.Options{"missing_vote": "reject"})
	prop := "Ann> [b]TEAM: Ann, Cat[/b]"
	runCases(t, []gameCase{
		{"majority approves", f5, cat(prop, all(five, "APPROVE", "Ben", "Eli")),
			[]check{missions("success"), public("APPROVE (3): Ann, Cat, Dan\nREJECT (2): Ben, Eli\n", "The team is [b]APPROVED[/b].")}},
		{"majority rejects", f5, cat(prop, all(five, "REJECT", "Ann", "Cat")),
			[]check{missions(), phase("m1-p2"), leader("Ben"), public("The team is [b]REJECTED[/b].", "Rejected proposals this mission: 1 of 5.")}},
		{"double vote makes a tie, which rejects", f5, cat(prop, "Ann> [b]PLAY Double Vote[/b]", all(five, "REJECT", "Ann", "Ben")),
			[]check{missions(), phase("m1-p2"), public("Ann plays [b]Double Vote[/b]", "APPROVE (3): Ann (x2), Ben\nREJECT (3): Cat, Dan, Eli")}},
		{"double vote swings", f5, cat(prop, "Ann> [b]PLAY Double Vote[/b]", all(five, "REJECT", "Ann", "Ben", "Cat")),
			[]check{missions("success"), public("APPROVE (4): Ann (x2), Ben, Cat\nREJECT (2): Dan, Eli")}},
		{"double vote once per game", f5, cat(prop, "Ann> [b]PLAY Double Vote[/b]", all(five, "REJECT"), "Ben> [b]TEAM: Ann, Ben[/b]", "Ann> [b]PLAY Double Vote[/b]"),
			[]check{rejected("no Double Vote card left")}},
		{"double vote only in the thread", f5, cat(prop, "Ann# PLAY Double Vote"),
			[]check{rejected("must be declared in the thread")}},
		{"double vote needs a team", f5, cat("Ann> [b]PLAY Double Vote[/b]"),
			[]check{rejected("none is yet")}},
		{"vote before a team", f5, cat("Ben> [b]APPROVE[/b]"),
			[]check{rejected("no team has been proposed yet")}},
		{"PM vote overrides a later thread vote", f5, cat(prop, "Cat# REJECT", "Cat> [b]APPROVE[/b]", all([]string{"Ann", "Ben", "Dan", "Eli"}, "APPROVE", "Ben", "Eli")),
			[]check{rejected("your vote by PM stands"), missions(), public("APPROVE (2): Ann, Dan\nREJECT (3): Ben, Cat, Eli")}},
		{"PM vote overrides an earlier thread vote", f5, cat(prop, "Cat> [b]APPROVE[/b]", "Cat# REJECT", all([]string{"Ann", "Ben", "Dan", "Eli"}, "APPROVE", "Ben", "Eli")),
			[]check{noRejections(), missions(), public("REJECT (3): Ben, Cat, Eli")}},
		{"latest thread vote counts", f5, cat(prop, "Cat> [b]REJECT[/b] ... [b]APPROVE[/b]", "Dan> [b]APPROVE[/b]", "Dan> [b]REJECT[/b]", "Ann> [b]APPROVE[/b]", "Ben> [b]REJECT[/b]", "Eli> [b]REJECT[/b]"),
			[]check{public("APPROVE (2): Ann, Cat\nREJECT (3): Ben, Dan, Eli")}},
		{"quoted vote does not count", f5, cat(prop, all([]string{"Ann", "Ben", "Cat", "Dan"}, "APPROVE"), "Eli> [quote=Ann]I [b]REJECT[/b][/quote] hmm"),
			[]check{missions(), phase("m1-p1"), func(t *testing.T, r *run) {
				if w := (Game{}).Status(r.State).Waiting; strings.Join(w, ",") != "Eli" {
					t.Errorf("waiting = %v", w)
				}
			}}},
		{"missing votes abstain", f5, cat(prop, "Ann> [b]APPROVE[/b]", "Cat> [b]APPROVE[/b]", "Ben> [b]REJECT[/b]", "!deadline"),
			[]check{missions("success"), public("APPROVE (2): Ann, Cat\nREJECT (1): Ben\nNo vote from: Dan, Eli (not counted).")}},
		{"missing votes reject", rej, cat(prop, "Ann> [b]APPROVE[/b]", "Cat> [b]APPROVE[/b]", "Ben> [b]REJECT[/b]", "!deadline"),
			[]check{missions(), public("APPROVE (2): Ann, Cat\nREJECT (3): Ben, Dan (no vote), Eli (no vote)\nNo vote from: Dan, Eli (counted as REJECT).")}},
	})
}

func TestOrders(t *testing.T) {
	t.Parallel()
	f5 := fixture(five, nil, nil)
	prop := "Ann> [b]TEAM: Ann, Ben[/b]" // Ann resistance, Ben spy
	yes := all(five, "APPROVE")
	runCases(t, []gameCase{
		{"spy sabotages", f5, cat(prop, "Ben# SABOTAGE", yes), []check{missions("fail"), sabotages(1), public("[b]Mission 1: FAIL[/b] — 1 sabotage.")}},
		{"spy supports", f5, cat(prop, "Ben# SUPPORT", yes), []check{missions("success"), sabotages(0), public("[b]Mission 1: SUCCESS[/b] — 0 sabotages.")}},
		{"spy default is sabotage", f5, cat(prop, yes), []check{missions("fail"), sabotages(1)}},
		{"resistance cannot sabotage", f5, cat(prop, "Ann# SABOTAGE", "Ben# SUPPORT", yes),
			[]check{rejected("a resistance member cannot sabotage: your order counts as SUPPORT"), missions("success"), sabotages(0)}},
		{"order in the thread", f5, cat(prop, "Ben> [b]SUPPORT[/b]", yes),
			[]check{rejected("mission orders are secret"), missions("fail"), sabotages(1)}},
		{"not on the team", f5, cat(prop, "Cat# SUPPORT"), []check{rejected("you are not on the proposed team")}},
		{"before a team", f5, cat("Ben# SUPPORT"), []check{rejected("no team has been proposed yet")}},
		{"preloaded with the last vote", f5, cat(prop, all([]string{"Ann", "Cat", "Dan", "Eli"}, "APPROVE"), "Ben# APPROVE\nSUPPORT"),
			[]check{noRejections(), missions("success")}},
		{"latest order counts", f5, cat(prop, "Ben# SABOTAGE", "Ben# SUPPORT", yes), []check{missions("success")}},
		{"replacement drops orders of those who left", f5, cat(prop, "Ben# SUPPORT", "Ann> [b]TEAM: Ann, Cat[/b]", "Ann> [b]TEAM: Ann, Ben[/b]", yes),
			[]check{missions("fail"), sabotages(1)}},
		{"orders do not outlive a rejected proposal", f5, cat(prop, "Ben# SUPPORT", all(five, "REJECT"), "Ben> [b]TEAM: Ann, Ben[/b]", yes),
			[]check{missions("fail"), sabotages(1)}},
	})
}

func TestDeadlines(t *testing.T) {
	t.Parallel()
	g := Game{}
	t.Run("time limit and Due", func(t *testing.T) {
		for _, tc := range []struct {
			hours float64
			want  time.Duration
		}{{48, 48 * time.Hour}, {0.5, 30 * time.Minute}, {1.0 / 360, 10 * time.Second}} {
			st, _, err := g.Setup(fixture(five, nil, rules.Options{"phase_hours": tc.hours}))
			if err != nil {
				t.Fatal(err)
			}
			dl := g.Status(st).Deadline
			if dl.Sub(startTime).Round(time.Millisecond) != tc.want {
				t.Errorf("phase_hours %v: deadline after %v", tc.hours, dl.Sub(startTime))
			}
			if g.Due(st, dl.Add(-time.Second)) || !g.Due(st, dl) {
				t.Errorf("Due around the deadline is wrong")
			}
			moved := g.SetDeadline(st, dl.Add(time.Hour))
			if g.Due(moved, dl) || g.Status(moved).Deadline != dl.Add(time.Hour) {
				t.Errorf("SetDeadline did not move the time limit")
			}
		}
	})
	t.Run("everyone voted resolves at once", func(t *testing.T) {
		r := play(t, fixture(five, nil, nil), "Ann> [b]TEAM: Ann, Cat[/b]", "Ann> [b]APPROVE[/b]", "Ben> [b]APPROVE[/b]", "Cat> [b]APPROVE[/b]", "Dan# REJECT")
		if g.Due(r.State, startTime) {
			t.Fatal("Due with a vote missing")
		}
		if st := g.Status(r.State); strings.Join(st.Waiting, ",") != "Eli" || strings.Join(st.Acted, ",") != "Ann,Ben,Cat,Dan" {
			t.Errorf("waiting %v acted %v", st.Waiting, st.Acted)
		}
		s2, _, err := g.Apply(r.State, rules.Command{Kind: KindVote, Args: []string{"reject"}, Src: rules.Source{Player: "Eli", Channel: rules.Public}})
		if err != nil || !g.Due(s2, startTime) {
			t.Fatalf("Due must be true once everyone voted (err %v)", err)
		}
		now := startTime.Add(5 * time.Minute)
		s3, _ := g.Resolve(s2, now)
		if st := g.Status(s3); st.Phase != "m2-p1" || st.Deadline != now.Add(48*time.Hour) || strings.Join(st.Waiting, ",") != "Ben" {
			t.Errorf("next phase %s deadline %v waiting %v", st.Phase, st.Deadline, st.Waiting)
		}
	})
	runCases(t, []gameCase{
		{"missing voters are named", fixture(five, nil, nil), cat("Ann> [b]TEAM: Ann, Cat[/b]", "Ann> [b]APPROVE[/b]", "Ben# REJECT", "!deadline"),
			[]check{public("No vote from: Cat, Dan, Eli (not counted).", "APPROVE (1): Ann\nREJECT (1): Ben\n"), missions(), phase("m1-p2"), func(t *testing.T, r *run) {
				if m := (Game{}).Status(r.State).Extra["missing"]; strings.Join(m.([]string), ",") != "Cat,Dan,Eli" {
					t.Errorf("missing = %v", m)
				}
			}}},
	})
}

func TestGameEnds(t *testing.T) {
	t.Parallel()
	f5 := fixture(five, nil, nil)
	reject := func(leader string, team string) []string {
		return cat(leader+"> [b]TEAM: "+team+"[/b]", all(five, "REJECT"))
	}
	five5 := cat(reject("Ann", "Ann, Ben"), reject("Ben", "Ben, Cat"), reject("Cat", "Cat, Dan"), reject("Dan", "Dan, Eli"), reject("Eli", "Eli, Ann"))
	runCases(t, []gameCase{
		{"5th rejection: spies win", f5, five5,
			[]check{missions(), public("That is rejected proposal 5 of 5 in mission 1.", "[b]THE SPIES WIN[/b]: the rejection limit was reached.", "Roles:\nAnn — Resistance\nBen — Spy"), func(t *testing.T, r *run) {
				st := (Game{}).Status(r.State)
				if !st.Finished || st.Extra["winner_side"] != "spies" || strings.Join(st.Winners, ",") != "Ben,Eli" || st.Phase != "end" {
					t.Errorf("status %+v", st)
				}
			}}},
		{"4th rejection: not yet", f5, five5[:24], []check{phase("m1-p5"), leader("Eli")}},
		{"rejection_limit 2", fixture(five, nil, rules.Options{"rejection_limit": 2}), cat(reject("Ann", "Ann, Ben"), reject("Ben", "Ben, Cat")),
			[]check{public("[b]THE SPIES WIN[/b]", "rejected proposal 2 of 2")}},
		{"rejections reset each mission", f5, cat(reject("Ann", "Ann, Ben"), reject("Ben", "Ben, Cat"), "Cat> [b]TEAM: Cat, Dan[/b]", all(five, "APPROVE"),
			reject("Dan", "Dan, Eli, Ann"), reject("Eli", "Eli, Ann, Ben"), reject("Ann", "Ann, Ben, Cat"), reject("Ben", "Ben, Cat, Dan")),
			[]check{missions("success"), phase("m2-p5"), leader("Cat")}},
		{"three successes", f5, cat("Ann> [b]TEAM: Ann, Cat[/b]", all(five, "APPROVE"), "Ben> [b]TEAM: Ann, Cat, Dan[/b]", all(five, "APPROVE"), "Cat> [b]TEAM: Cat, Dan[/b]", all(five, "APPROVE")),
			[]check{missions("success", "success", "success"), public("[b]THE RESISTANCE WINS[/b]: three missions succeeded."), func(t *testing.T, r *run) {
				st := (Game{}).Status(r.State)
				if st.Extra["winner_side"] != "resistance" || strings.Join(st.Winners, ",") != "Ann,Cat,Dan" {
					t.Errorf("status %+v", st)
				}
			}}},
		{"three fails", f5, cat("Ann> [b]TEAM: Ann, Ben[/b]", all(five, "APPROVE"), "Ben> [b]TEAM: Ann, Ben, Cat[/b]", all(five, "APPROVE"), "Cat> [b]TEAM: Eli, Ben[/b]", all(five, "APPROVE")),
			[]check{missions("fail", "fail", "fail"), sabotages(1, 1, 2), public("[b]THE SPIES WIN[/b]: three missions failed.")}},
		{"commands after the end", f5, cat(five5, "Ann> [b]TEAM: Ann, Ben[/b]"), []check{rejected("the game is over")}},
	})
	t.Run("End by the GM", func(t *testing.T) {
		g := Game{}
		st, _, _ := g.Setup(f5)
		s2, evs := g.End(st, startTime)
		status := g.Status(s2)
		if !status.Finished || len(status.Winners) != 0 || status.Extra["winner_side"] != nil {
			t.Errorf("status %+v", status)
		}
		if len(evs) != 1 || evs[0].To != rules.Everyone || !strings.Contains(evs[0].Text, "Eli — Spy") || !strings.Contains(evs[0].Text, "with no winner") {
			t.Errorf("events %+v", evs)
		}
		if g.Due(s2, startTime.Add(1000*time.Hour)) {
			t.Error("a finished game is never due")
		}
		if _, evs := g.End(s2, startTime); evs != nil {
			t.Error("ending twice says something")
		}
	})
}
