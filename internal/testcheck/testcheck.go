package testcheck

import (
	"fmt"
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
