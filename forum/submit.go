package forum

import "context"

type submitKey struct{}

// WithSubmit returns ctx carrying f, the sender's hook for the moment a
// submission leaves: a port calls it (Submitting) just before it writes a
// request that may post or send something, after every wait (the form's
// age, the board's pacer, a flood interval). The moderator records there
// that the board may be taking the message from then on, so a send killed
// before its request left leaves nothing uncertain behind it.
func WithSubmit(ctx context.Context, f func() error) context.Context {
	return context.WithValue(ctx, submitKey{}, f)
}

// Submitting runs ctx's submission hook, if it has one. An error means the
// request must not be made (the port reports it as not submitted).
func Submitting(ctx context.Context) error {
	if f, ok := ctx.Value(submitKey{}).(func() error); ok && f != nil {
		return f()
	}
	return nil
}
