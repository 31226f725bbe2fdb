package dispatch_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/dispatch"
)

func TestRecovered(t *testing.T) {
	stack := []byte("goroutine 7 [running]:\n")
	pe := dispatch.NewRecovered("oops", stack)
	if pe.Value != "oops" || string(pe.Stack) != string(stack) {
		t.Fatalf("NewRecovered kept %v / %q", pe.Value, pe.Stack)
	}
	if got := pe.Error(); got != "oops\n\nwhere it panicked: goroutine 7 [running]:\n" {
		t.Fatalf("Error() = %q, want the value once, then the stack", got)
	}
	if got := dispatch.NewRecovered("oops", nil).Error(); got != "oops" {
		t.Fatalf("Error() without a stack = %q", got)
	}
	if again := dispatch.NewRecovered(pe, []byte("other stack")); again != pe {
		t.Fatal("NewRecovered of a *Recovered did not return it as is (the first stack must be kept)")
	}

	// A panic is not the error it carries: a panic(ctx.Err()) is not a
	// cancellation.
	wrapped := dispatch.NewRecovered(fmt.Errorf("in task: %w", context.Canceled), nil)
	if errors.Is(wrapped, context.Canceled) {
		t.Fatal("errors.Is(panic error, context.Canceled) is true: a panic passes for a cancellation")
	}
	if errors.Unwrap(wrapped) != nil {
		t.Fatal("errors.Unwrap of a Recovered is not nil")
	}
	if !errors.As(fmt.Errorf("run failed: %w", wrapped), new(*dispatch.Recovered)) {
		t.Fatal("errors.As does not find a wrapped Recovered")
	}
}
