package rules

// PhaseKinds is a game whose phases come in kinds, so that a GM's deadline
// schedule (a clock time on chosen weekdays) can apply to some of them
// only: The Resistance's first proposal of a mission may wait for the
// schedule's slot while a proposal after a rejection keeps its short time
// limit. A game without it has one kind, "phase".
type PhaseKinds interface {
	Game
	// PhaseKind names the kind of s's current phase ("" once finished).
	PhaseKind(s State) string
	// Kinds lists every kind the game has, and the main ones, which a
	// schedule applies to unless the GM names others.
	Kinds() (all, main []string)
}

// KindOf is the kind of the current phase of s.
func KindOf(g Game, s State) string {
	if k, ok := g.(PhaseKinds); ok {
		return k.PhaseKind(s)
	}
	if g.Status(s).Finished {
		return ""
	}
	return "phase"
}

// KindsOf lists a game's kinds of phase, and its main ones.
func KindsOf(g Game) (all, main []string) {
	if k, ok := g.(PhaseKinds); ok {
		return k.Kinds()
	}
	return []string{"phase"}, []string{"phase"}
}
