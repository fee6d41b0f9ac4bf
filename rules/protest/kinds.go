package protest

import "github.com/forumgm/forumgm/rules"

// PhaseKind implements rules.PhaseKinds: Protest has turns only.
func (Game) PhaseKind(st rules.State) string {
	if st.(*State).Finished {
		return ""
	}
	return "turn"
}

// Kinds implements rules.PhaseKinds.
func (Game) Kinds() (all, main []string) { return []string{"turn"}, []string{"turn"} }
