package resistance

import "github.com/forumgm/forumgm/rules"

// PhaseKind implements rules.PhaseKinds: a mission's first proposal is a
// "mission" phase, the proposals after a rejection are "proposal" phases
// (RULINGS.md: a GM's schedule sets the first, the second keep
// phase_hours unless the GM names them too).
func (Game) PhaseKind(st rules.State) string {
	s := st.(*State)
	switch {
	case s.Finished:
		return ""
	case s.Proposal <= 1:
		return "mission"
	default:
		return "proposal"
	}
}

// Kinds implements rules.PhaseKinds.
func (Game) Kinds() (all, main []string) {
	return []string{"mission", "proposal"}, []string{"mission"}
}
