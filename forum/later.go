package forum

import "context"

type laterKey struct{}

// LaterDefault is the rank of requests marked Later without one of their
// own: an answer's (store.SendAnswers).
const LaterDefault = 1

// Later marks ctx's requests to the board as the bot's sends (forms,
// submissions, their confirmations): on a session shared with reads they
// give way to them, so reading never waits behind a burst of sends. A ctx
// already marked keeps its rank; else it gets LaterDefault.
func Later(ctx context.Context) context.Context {
	if IsLater(ctx) {
		return ctx
	}
	return LaterRank(ctx, LaterDefault)
}

// LaterRank marks ctx's requests as Later with a rank: among the session's
// later requests waiting for their turn, a lower rank goes first (first
// come first within a rank). The sender ranks a message's requests by its
// send class, so one game's answer does not queue behind other games'
// opening posts at the board's pace.
func LaterRank(ctx context.Context, rank int) context.Context {
	return context.WithValue(ctx, laterKey{}, max(rank, 0))
}

// IsLater says whether ctx was marked by Later.
func IsLater(ctx context.Context) bool { _, ok := LaterOf(ctx); return ok }

// LaterOf is ctx's Later rank, and whether it was marked.
func LaterOf(ctx context.Context) (rank int, later bool) {
	rank, later = ctx.Value(laterKey{}).(int)
	return rank, later
}

type confirmKey struct{}

// ConfirmLater marks a send whose marker may be looked for after it, with
// others, rather than at once: when the board answers with its success
// (its sent page, or a redirect its profile's sent_location_regexp names)
// but names no message id, the send ends with ErrConfirmLater instead of
// reading the thread's last page or the sent folder for the marker. The
// sender looks for it later: a post with the game's next read of its
// thread (which reads it anyway), PMs with one listing of the sent folder
// for all of them. A request fewer for each such message (MyBB's PM
// answers and SMF's name none).
func ConfirmLater(ctx context.Context) context.Context {
	return context.WithValue(ctx, confirmKey{}, true)
}

// ConfirmsLater says whether ctx was marked by ConfirmLater.
func ConfirmsLater(ctx context.Context) bool { b, _ := ctx.Value(confirmKey{}).(bool); return b }
