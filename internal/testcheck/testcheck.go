package testcheck

import (
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// StuckAfter is how long PollUntil waits for something that must happen
// before it declares it stuck. It is generous: on a loaded two-core
// machine under -race a wake-up takes milliseconds, not seconds.
const StuckAfter = 5 * time.Second

// PollUntil polls cond, yielding and then backing off a little between
// reads, until it holds or StuckAfter passes; it reports whether it held.
// It is a bounded wait for a condition, not a sleep standing in for
// synchronisation: the caller fails the test when it returns false.
func PollUntil(cond func() bool) bool {
	deadline := time.Now().Add(StuckAfter)
	wait := time.Microsecond
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		runtime.Gosched()
		time.Sleep(wait)
		if wait < time.Millisecond {
			wait *= 2
		}
	}
	return true
}

// MustPanic runs f and returns what it panicked with; it fails the test if
// f returns normally.
func MustPanic(t testing.TB, what string, f func()) (r any) {
	t.Helper()
	defer func() {
		r = recover()
		if r == nil {
			t.Fatalf("%s: did not panic", what)
		}
	}()
	f()
	return nil
}

// MustPanicWith is MustPanic and checks that the panic value, printed,
// contains each of the fragments.
func MustPanicWith(t testing.TB, what string, f func(), fragments ...string) {
	t.Helper()
	r := MustPanic(t, what, f)
	msg := fmt.Sprint(r)
	for _, frag := range fragments {
		if !strings.Contains(msg, frag) {
			t.Fatalf("%s: panic message %q does not mention %q", what, msg, frag)
		}
	}
}

// MustPanicError runs f, which must panic with a *forkjoin.PanicError or,
// in the tests of the layers below forkjoin, the *dispatch.Recovered that
// forkjoin converts into one (both are a pointer to a struct with fields
// Value and Stack; this package cannot import forkjoin) that
// carries want as its value and a stack that shows frame (the function
// where the panic happened); it returns the value f panicked with.
func MustPanicError(t testing.TB, what string, f func(), want any, frame string) any {
	t.Helper()
	r := MustPanic(t, what, f)
	v := reflect.ValueOf(r)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct || !panicType[v.Elem().Type().Name()] {
		t.Fatalf("%s: panicked with %T (%v), want a *PanicError", what, r, r)
	}
	value := v.Elem().FieldByName("Value").Interface()
	stack, _ := v.Elem().FieldByName("Stack").Interface().([]byte)
	if value != want {
		t.Fatalf("%s: PanicError.Value = %v, want the original value %v", what, value, want)
	}
	if !strings.Contains(string(stack), frame) {
		t.Fatalf("%s: PanicError.Stack does not show %s, where the panic happened:\n%s", what, frame, stack)
	}
	return r
}

// panicType holds the names of the types MustPanicError accepts.
var panicType = map[string]bool{"PanicError": true, "Recovered": true}

// LongEnv is the environment variable that turns on the long tests: soaks,
// stress runs and the largest shapes. CI (.ci/run) sets it; a plain
// `go test ./...` leaves it unset and stays fast.
const LongEnv = "FORKJOIN_LONG_TESTS"

// Long skips t unless LongEnv is set to a non-empty value other than "0".
// Call it first in a test that takes more than a second or two.
func Long(t testing.TB) {
	t.Helper()
	if v := os.Getenv(LongEnv); v == "" || v == "0" {
		t.Skipf("long test: set %s=1 to run it (CI does)", LongEnv)
	}
}
