package forum

// MessageKind tells a thread post from a private message, wherever one is
// kept or queued (the store's messages and outbox, the moderator's lanes).
// Its values are the strings existing databases hold.
type MessageKind string

const (
	KindPost MessageKind = "post" // a post in the game's thread
	KindPM   MessageKind = "pm"   // a private message
)

// Name is the kind as a player reads it: "post" or "PM".
func (k MessageKind) Name() string {
	if k == KindPM {
		return "PM"
	}
	return "post"
}
