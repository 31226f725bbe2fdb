package dispatch_test

import (
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
	if got := pe.Error(); got != "panic: oops" {
		t.Fatalf("Error() = %q", got)
	}
	if pe.Unwrap() != nil {
		t.Fatal("Unwrap of a non-error value is not nil")
	}
	if again := dispatch.NewPanicError(pe, []byte("other stack")); again != pe {
		t.Fatal("NewPanicError of a *PanicError did not return it as is (the first stack must be kept)")
	}

	wrapped := dispatch.NewPanicError(io.ErrUnexpectedEOF, nil)
	if !errors.Is(wrapped, io.ErrUnexpectedEOF) {
		t.Fatal("errors.Is does not see through a PanicError carrying an error")
	}
	if !dispatch.IsPanic(fmt.Errorf("run failed: %w", wrapped)) {
		t.Fatal("IsPanic does not find a wrapped PanicError")
	}
	if dispatch.IsPanic(io.EOF) || dispatch.IsPanic(nil) {
		t.Fatal("IsPanic reports a panic for a plain error or nil")
	}
}
