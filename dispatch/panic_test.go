package dispatch_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/forkjoin-go/forkjoin/dispatch"
)

func TestPanicError(t *testing.T) {
	stack := []byte("goroutine 7 [running]:\n")
	pe := dispatch.NewPanicError("oops", stack)
	if pe.Value != "oops" || string(pe.Stack) != string(stack) {
		t.Fatalf("NewPanicError kept %v / %q", pe.Value, pe.Stack)
	}
	if got := pe.Error(); got != "oops\n\nwhere it panicked: goroutine 7 [running]:\n" {
		t.Fatalf("Error() = %q, want the value once, then the stack", got)
	}
	if got := dispatch.NewPanicError("oops", nil).Error(); got != "oops" {
		t.Fatalf("Error() without a stack = %q", got)
	}
	if again := dispatch.NewPanicError(pe, []byte("other stack")); again != pe {
		t.Fatal("NewPanicError of a *PanicError did not return it as is (the first stack must be kept)")
	}

	// A panic is not the error it carries: a panic(ctx.Err()) is not a
	// cancellation.
	wrapped := dispatch.NewPanicError(fmt.Errorf("in task: %w", context.Canceled), nil)
	if errors.Is(wrapped, context.Canceled) {
		t.Fatal("errors.Is(panic error, context.Canceled) is true: a panic passes for a cancellation")
	}
	if errors.Unwrap(wrapped) != nil {
		t.Fatal("errors.Unwrap of a PanicError is not nil")
	}
	if !dispatch.IsPanic(fmt.Errorf("run failed: %w", wrapped)) {
		t.Fatal("IsPanic does not find a wrapped PanicError")
	}
	if dispatch.IsPanic(io.EOF) || dispatch.IsPanic(nil) {
		t.Fatal("IsPanic reports a panic for a plain error or nil")
	}
}
