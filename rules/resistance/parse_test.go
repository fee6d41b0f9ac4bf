package resistance

import (
	"strings"
	"testing"

	"github.com/forumgm/forumgm/rules"
)

func TestParse(t *testing.T) {
	t.Parallel()
	const pub, pm = rules.Public, rules.Private
	tests := []struct {
		text   string
		ch     rules.Channel
		kind   string   // "" with reject=="" means Ignored
		args   []string // expected args when kind != ""
		reject string   // substring of the rejection
	}{
		{"APPROVE", pub, KindVote, []string{"approve"}, ""},
		{"approve!", pub, KindVote, []string{"approve"}, ""},
		{"Vote: Reject", pub, KindVote, []string{"reject"}, ""},
		{"VOTE:APPROVE", pm, KindVote, []string{"approve"}, ""},
		{"vote approve", pm, KindVote, []string{"approve"}, ""},
		{"REJECT this team", pub, KindVote, []string{"reject"}, ""},
		{"APPROVE or REJECT", pub, "", nil, "both APPROVE and REJECT"},
		{"VOTE", pub, "", nil, "VOTE APPROVE"},
		{"VOTE maybe", pm, "", nil, "APPROVE or REJECT"},
		{"TEAM: Ann, Ben", pub, KindTeam, []string{"Ann, Ben"}, ""},
		{"team ann and ben", pub, KindTeam, []string{"ann and ben"}, ""},
		{"PROPOSE: Ann, Ben", pub, KindTeam, []string{"Ann, Ben"}, ""},
		{"Propose team: Ann, Ben", pub, KindTeam, []string{"Ann, Ben"}, ""},
		{"TEAM:", pub, "", nil, "name the team"},
		{"TEAM: Ann, Ben", pm, "", nil, "posted in the thread"},
		{"SUPPORT", pm, KindOrder, []string{"support"}, ""},
		{"sabotage", pm, KindOrder, []string{"sabotage"}, ""},
		{"SABOTAGE", pub, "", nil, "mission orders are secret"},
		{"Support", pub, "", nil, "mission orders are secret"},
		{"GIVE Strong Leader TO bob", pub, KindGive, []string{StrongLeader, "bob"}, ""},
		{"give strong to bob", pub, KindGive, []string{StrongLeader, "bob"}, ""},
		{"GIVE: Passionate TO Mary Jane", pub, KindGive, []string{Speech, "Mary Jane"}, ""},
		{"GIVE close eye TO bob", pub, KindGive, []string{CloseEye, "bob"}, ""},
		{"GIVE spotlight TO bob", pub, KindGive, []string{Spotlight, "bob"}, ""},
		{"GIVE o TO bob", pub, "", nil, "could mean"},
		{"GIVE Lady TO bob", pub, "", nil, "is not a card"},
		{"GIVE Strong Leader", pub, "", nil, "GIVE card TO name"},
		{"PLAY Passionate Speech", pub, KindPlay, []string{Speech}, ""},
		{"play double vote", pub, KindPlay, []string{DoubleVote}, ""},
		{"PLAY Strong Leader", pub, KindPlay, []string{StrongLeader}, ""},
		{"PLAY Keeping a Close Eye ON bob", pm, KindPlay, []string{CloseEye, "bob"}, ""},
		{"PLAY Keeping a Close Eye on You ON bob", pub, KindPlay, []string{CloseEye, "bob"}, ""},
		{"PLAY Keeping a Close Eye on You", pm, KindPlay, []string{CloseEye}, ""},
		{"PLAY In The Spotlight ON bob", pub, KindPlay, []string{Spotlight, "bob"}, ""},
		{"PLAY Spotlight: bob", pub, "", nil, "is not a card"},
		{"PLAY", pm, "", nil, "name the card"},
		{"OVERHEAR bob", pm, KindOverhear, []string{"bob"}, ""},
		{"Overhear: bob", pub, KindOverhear, []string{"bob"}, ""},
		{"OVERHEAR", pm, "", nil, "OVERHEAR name"},
		{"OPEN UP TO bob", pm, KindOpenUp, []string{"bob"}, ""},
		{"open up: bob", pub, KindOpenUp, []string{"bob"}, ""},
		{"OPENUP TO bob", pm, KindOpenUp, []string{"bob"}, ""},
		{"OPEN UP", pm, "", nil, "OPEN UP TO name"},
		{"I really think so", pub, "", nil, ""},
		{"Open the door", pub, "", nil, ""},
		{"hello there", pm, "", nil, "not a command"},
		{"   ", pm, "", nil, ""},
	}
	for _, tc := range tests {
		t.Run(string(tc.ch)+":"+tc.text, func(t *testing.T) {
			p := Game{}.Parse(nil, tc.text, rules.Source{Player: "Ann", Channel: tc.ch})
			switch {
			case tc.kind != "":
				if p.Cmd == nil {
					t.Fatalf("no command (reject %q)", p.Reject)
				}
				if p.Cmd.Kind != tc.kind || strings.Join(p.Cmd.Args, "|") != strings.Join(tc.args, "|") {
					t.Errorf("got %s %q, want %s %q", p.Cmd.Kind, p.Cmd.Args, tc.kind, tc.args)
				}
			case tc.reject != "":
				if p.Cmd != nil || !strings.Contains(p.Reject, tc.reject) {
					t.Errorf("got cmd %v reject %q, want reject %q", p.Cmd, p.Reject, tc.reject)
				}
			default:
				if p.Cmd != nil || p.Reject != "" || !p.Ignored {
					t.Errorf("got %+v, want ignored", p)
				}
			}
		})
	}
}
