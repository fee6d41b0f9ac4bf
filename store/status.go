package store

// The statuses of what the store keeps. They are stored as these strings;
// the audit log and `forumgm audit --json` show them as they are.

// GameStatus is where a game stands.
type GameStatus string

const (
	GameRunning  GameStatus = "running"
	GamePaused   GameStatus = "paused"   // reads and applies commands; its deadline is stopped
	GameFinished GameStatus = "finished" // the rules ended it
	GameEnded    GameStatus = "ended"    // the GM ended it
	// GameSignups: taking sign-ups in its thread; its state is the
	// sign-up list until they close and the game starts (running).
	GameSignups GameStatus = "signups"
	// GameCancelled: sign-ups closed with too few players, or the GM
	// cancelled them; the game never started.
	GameCancelled GameStatus = "cancelled"
)

// MessageStatus is how far the moderator has got with a post or PM.
type MessageStatus string

const (
	MessageNew       MessageStatus = "new"       // recorded, its commands not read yet
	MessageProcessed MessageStatus = "processed" // its commands were read and applied
	MessageIgnored   MessageStatus = "ignored"   // kept for the audit log only
)

// CommandStatus is what became of one command (one segment of a message).
type CommandStatus string

const (
	CommandAccepted   CommandStatus = "accepted"
	CommandRejected   CommandStatus = "rejected"
	CommandIgnored    CommandStatus = "ignored"    // not an order (chatter, a late edit)
	CommandSuperseded CommandStatus = "superseded" // its post was edited in time; the edit counts
	CommandVoided     CommandStatus = "voided"     // cancelled by the GM
)

// SendClass is what an outbox item is to the players waiting for it: a
// bot account's sends go out lowest class first across its games (each
// game's own lanes keep their order), first come first within a class.
type SendClass int

const (
	// SendResults: a phase's results, new deadlines.
	SendResults SendClass = 0
	// SendAnswers: an answer to a player's own command (a receipt, a
	// rejection, a count asked for), a GM's notice to one player. Items
	// queued before classes were kept count as answers.
	SendAnswers SendClass = 1
	// SendChores: reminders, prods, sign-up lists, and a new game's
	// opening post (its clock starts only once it is up, so nobody loses
	// time; a running game's answers go first).
	SendChores SendClass = 2
)

// OutboxState is where a post or PM to send stands.
type OutboxState string

const (
	OutboxPending OutboxState = "pending" // not tried yet
	OutboxSending OutboxState = "sending" // tried; whether it went out is checked by its marker before any retry
	OutboxSent    OutboxState = "sent"
	OutboxFailed  OutboxState = "failed" // given up; the GM can retry it
	// OutboxUnconfirmed: it may well have gone out (the board said so, or
	// its answer was lost) but the check for its marker could not be made;
	// checked again later, never resent before a check answers, never
	// failed for it.
	OutboxUnconfirmed OutboxState = "unconfirmed"
	// OutboxUnknown: a request of it left and ended without an answer (it
	// timed out, or its connection broke): the board may have it, or may
	// still be taking it. Never failed for that: whoever sends next looks
	// for its marker first and, finding nothing, waits out the rest of
	// that request's window (ClaimSettles) before it sends again.
	OutboxUnknown OutboxState = "unknown"
	// OutboxTaken: the board answered with its own page saying it took
	// it, but its marker was not found on the board (forum.ErrSaidSent).
	// Never sent again by itself, and no longer holding up the messages
	// after it: the GM is told (status, the desk, the log) and may
	// `forumgm retry` it after looking at the board.
	OutboxTaken OutboxState = "taken"
	// OutboxSplit: the board refused it as too long; it goes out instead as
	// the items whose PartOf names it.
	OutboxSplit OutboxState = "split"
	// OutboxLapsed: it no longer applies by the time it could go (a
	// reminder of a phase that closed first) and is never sent. Only a
	// pending item lapses: one that may have gone out is left to the
	// marker check like any other.
	OutboxLapsed OutboxState = "lapsed"
)

// ConfirmLaterNote is the last error of a sent item the board took
// without naming its id (forum.ErrConfirmLater): its marker is looked for
// later, with others (Tx.ToConfirm); found, the id replaces the note.
const ConfirmLaterNote = "sent: the board took it; its marker is looked for later (a post with the next read of the thread, PMs together in the sent folder)"

// Unsent tells the states still to be sent or confirmed.
func (s OutboxState) Unsent() bool {
	return s == OutboxPending || s == OutboxSending || s == OutboxUnconfirmed || s == OutboxUnknown
}
