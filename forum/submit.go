package forum

import (
	"context"
	"errors"
)

type submitKey struct{}

// SubmitHook is a sender's hook for the moment a submission leaves: a port
// calls it (Submitting) just before it writes a request that may post or
// send something, after every wait (the form's age, the board's pacer, a
// flood interval), and calls the ended it returned once that request has
// ended (answered, failed or timed out). The moderator records there that
// the board may be taking the message from then on, so a send killed
// before its request left leaves nothing uncertain behind it; and a clean
// stop lets a request already on its way end (its answer recorded) rather
// than cut it off.
type SubmitHook func() (ended func(), err error)

// ErrStopping is the cause a sender cancels a send's context with when its
// runner stops (or gives the game back) with none of its requests on the
// way: no new request may leave, but a port still finishes what reads an
// answer already given (the marker check after a success page).
var ErrStopping = errors.New("stopping: no new submission")

// WithSubmit returns ctx carrying f (nil: none).
func WithSubmit(ctx context.Context, f SubmitHook) context.Context {
	return context.WithValue(ctx, submitKey{}, f)
}

// Submitting runs ctx's submission hook, if it has one. An error means the
// request must not be made (the port reports it as not submitted). ended
// is never nil: call it once the request has ended.
func Submitting(ctx context.Context) (ended func(), err error) {
	if f, ok := ctx.Value(submitKey{}).(SubmitHook); ok && f != nil {
		ended, err = f()
		if err != nil {
			return func() {}, err
		}
		if ended != nil {
			return ended, nil
		}
	}
	return func() {}, nil
}
