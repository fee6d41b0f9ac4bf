package forum

import "context"

type laterKey struct{}

// Later marks ctx's requests to the board as the bot's sends (forms,
// submissions, their confirmations): on a session shared with reads they
// give way to them, so reading never waits behind a burst of sends.
func Later(ctx context.Context) context.Context { return context.WithValue(ctx, laterKey{}, true) }

// IsLater says whether ctx was marked by Later.
func IsLater(ctx context.Context) bool { b, _ := ctx.Value(laterKey{}).(bool); return b }
