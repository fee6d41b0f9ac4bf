package nations

import "github.com/forumgm/forumgm/rules"

// PhaseKind implements rules.PhaseKinds: Nations has rounds only (the break
// before a round is not a phase: nobody acts in it).
func (Game) PhaseKind(st rules.State) string {
	if st.(*State).Finished {
		return ""
	}
	return "round"
}

// Kinds implements rules.PhaseKinds.
func (Game) Kinds() (all, main []string) { return []string{"round"}, []string{"round"} }
