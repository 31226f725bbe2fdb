package profread_test

import (
	"bytes"
	"context"
	"runtime/pprof"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/profread"
)

// parked is where the labelled goroutine of TestGoroutineLabels waits.
func parked(ready chan<- struct{}, release <-chan struct{}) {
	close(ready)
	<-release
}

// TestGoroutineLabels reads a goroutine profile: the goroutine started
// under pprof.Do carries its labels and shows the function it waits in;
// the test's own goroutine carries none.
func TestGoroutineLabels(t *testing.T) {
	ready, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go pprof.Do(context.Background(), pprof.Labels("who", "parked", "n", "1"), func(context.Context) {
		defer close(done)
		parked(ready, release)
	})
	<-ready
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	close(release)
	<-done
	samples, err := profread.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var sawParked, sawSelf bool
	for _, s := range samples {
		if s.Has("github.com/forkjoin-go/forkjoin/internal/profread_test.parked") {
			sawParked = true
			if s.Labels["who"] != "parked" || s.Labels["n"] != "1" || len(s.Labels) != 2 {
				t.Errorf("parked goroutine's labels = %v, want who=parked n=1", s.Labels)
			}
		}
		if s.Has("github.com/forkjoin-go/forkjoin/internal/profread_test.TestGoroutineLabels") {
			sawSelf = true
			if len(s.Labels) != 0 {
				t.Errorf("the test's goroutine carries labels %v, want none", s.Labels)
			}
		}
		if len(s.Values) != 1 || s.Values[0] < 1 {
			t.Errorf("goroutine sample values = %v, want one count", s.Values)
		}
	}
	if !sawParked || !sawSelf {
		t.Fatalf("profile lacks the parked goroutine (%v) or the test's (%v): %d samples", sawParked, sawSelf, len(samples))
	}
}

// TestBadInput: truncated and corrupt profiles are errors, not panics.
func TestBadInput(t *testing.T) {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	if _, err := profread.Parse(good[:len(good)/2]); err == nil {
		t.Error("half a gzipped profile parsed without an error")
	}
	for _, b := range [][]byte{{0x0a, 0x05, 0x01}, {0x12, 0x80}, {0x07}, {0x12, 0x02, 0x1a, 0x05}} {
		if _, err := profread.Parse(b); err == nil {
			t.Errorf("Parse(% x) returned no error", b)
		}
	}
}
