package dispatch

// Recovered: a panic carried from the goroutine where it happened to the
// one that waits for the work.

import (
	"context"
	"errors"
	"fmt"
)

// Recovered carries a panic from the goroutine where it happened (a
// worker inside a Job's Call) to the goroutine that waits for the work: the
// original value and the stack of the goroutine that panicked, captured
// where the panic was recovered. A Dispatcher re-raises it on the caller of
// Dispatch (or Unpin) after the latch.
//
// It is plumbing, not what users see: the layer that runs the job converts
// it at its boundary into the module's one public panic type,
// forkjoin.PanicError, which has the same fields and the same Error and
// Unwrap (forkjoin.PanicError's methods are these).
type Recovered struct {
	// Value is what was passed to panic.
	Value any
	// Stack is the stack of the goroutine that panicked, as printed by
	// runtime/debug.Stack at the point of recovery.
	Stack []byte
}

// NewRecovered wraps a recovered value. If the value is already a
// *Recovered (a panic re-raised by an inner layer) it is returned as is, so
// the stack of the first goroutine that panicked is kept.
func NewRecovered(value any, stack []byte) *Recovered {
	if pe, ok := value.(*Recovered); ok {
		return pe
	}
	return &Recovered{Value: value, Stack: stack}
}

// Error returns the panic value's text followed by the stack where the
// panic happened, so that a *Recovered re-raised by panic and never
// recovered prints, in the crash report, the original message once and
// the frames of the code that panicked (the runtime prints the goroutine
// that re-raised it after them). Without a stack, Error is the value's
// text alone.
func (e *Recovered) Error() string {
	if len(e.Stack) == 0 {
		return fmt.Sprint(e.Value)
	}
	return fmt.Sprintf("%v\n\nwhere it panicked: %s", e.Value, e.Stack)
}

// Unwrap returns the panic value if it is an error, so that errors.Is and
// errors.As see through a panic(err) — unless the value is, or wraps,
// context.Canceled or context.DeadlineExceeded: a panic is not a
// cancellation, and code that sets cancellations aside (errors.Is(err,
// context.Canceled)) must not set a panic aside with them. Value holds the
// value in every case.
func (e *Recovered) Unwrap() error {
	err, ok := e.Value.(error)
	if !ok || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}

// ErrGoexit is the Value of the *Recovered that reports work which called
// runtime.Goexit on a goroutine running it for someone else: a pool worker,
// or a goroutine helping while it waits. Goexit cannot be stopped: that
// goroutine ends (a pool worker is replaced), and the work is reported as
// failed, with the stack of the Goexit, instead of never finishing. In a
// test, the usual cause is t.FailNow, t.Fatal or t.SkipNow called off the
// test's goroutine, which the testing package does not allow.
var ErrGoexit = errors.New("runtime.Goexit called in work run for another goroutine (t.FailNow, t.Fatal or t.SkipNow off the test's goroutine?)")
