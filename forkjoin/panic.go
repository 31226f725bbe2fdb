package forkjoin

// PanicError: how a panic in a task reaches whoever waits for the task,
// with its value and the stack where it happened.

import (
	"errors"

	"github.com/forkjoin-go/forkjoin/internal/dispatch"
)

// PanicError is how a panic in user code reaches the caller, in every
// package of this module: Run re-panics with a *PanicError, RunCtx,
// ScopeCtx, Handle.Join, Group.Wait and the other error-returning entry
// points return one, and so do package fold's and package tree's (a panic
// in a fold's or a walk's callback). It is the module's only panic type.
// It keeps the original value and the stack of the goroutine where the
// panic happened; find it with errors.As, or ask IsPanic.
//
// errors.Is and errors.As see through a PanicError to an error value,
// except to a cancellation: a panic is not one, so errors.Is(err,
// context.Canceled) is false for a task that panicked with a value
// wrapping context.Canceled (see Unwrap).
type PanicError struct {
	// Value is what was passed to panic (ErrGoexit for runtime.Goexit).
	Value any
	// Stack is the stack of the goroutine that panicked, as printed by
	// runtime/debug.Stack where the panic was recovered: its frames
	// include the function that panicked.
	Stack []byte
}

// Error returns the panic value's text followed by Stack, so that a
// *PanicError re-raised by Run and never recovered prints, in the crash
// report, the original message once and the frames of the code that
// panicked (the runtime prints the re-raising goroutine after them).
// Without a stack, Error is the value's text alone.
func (e *PanicError) Error() string {
	d := dispatch.Recovered{Value: e.Value, Stack: e.Stack}
	return d.Error()
}

// Unwrap returns the panic value if it is an error, so that errors.Is and
// errors.As see through a panic(err) — unless the value is, or wraps,
// context.Canceled or context.DeadlineExceeded: a panic is not a
// cancellation, and code that sets cancellations aside (errors.Is(err,
// context.Canceled)) must not set a panic aside with them. Value holds the
// value in every case.
func (e *PanicError) Unwrap() error {
	d := dispatch.Recovered{Value: e.Value}
	return d.Unwrap()
}

// newPanicError wraps a recovered value. A *PanicError (a panic re-raised
// by an inner Run) is returned as is, and a *dispatch.Recovered (the
// pool's carrier of a worker's panic) is converted, so that the value and
// the stack of the first goroutine that panicked are kept and no other
// panic type reaches a user.
func newPanicError(v any, stack []byte) *PanicError {
	switch pe := v.(type) {
	case *PanicError:
		return pe
	case *dispatch.Recovered:
		return &PanicError{Value: pe.Value, Stack: pe.Stack}
	}
	return &PanicError{Value: v, Stack: stack}
}

// IsPanic reports whether err is, or wraps, a *PanicError: whether the
// work that returned it failed because some callback panicked, rather
// than with an error of its own or a cancellation.
func IsPanic(err error) bool { return asPanic(err) != nil }

// asPanic returns err's *PanicError, or nil. (Kept apart from the callers:
// errors.As makes its target escape, an allocation they avoid when err is
// nil.)
func asPanic(err error) *PanicError {
	var pe *PanicError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}
