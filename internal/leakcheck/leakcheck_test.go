package leakcheck_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
)

// fakeTB records what Check does with a test, so that a leak can be tested
// without failing the real test.
type fakeTB struct {
	cleanups []func()
	errors   []string
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, format)
	for _, a := range args {
		if err, ok := a.(error); ok {
			f.errors = append(f.errors, err.Error())
		}
	}
}
func (f *fakeTB) finish() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

func TestCheckPassesWhenGoroutinesAreJoined(t *testing.T) {
	leakcheck.Check(t)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done() }()
	}
	wg.Wait()
	// The goroutines have called Done but may still be running their last
	// instructions: Check's poll must tolerate that.
}

func TestVerifyReportsALeakWithStacks(t *testing.T) {
	b := leakcheck.Snapshot()
	block := make(chan struct{})
	started := make(chan struct{})
	go leakyGoroutine(started, block)
	<-started
	err := b.Verify(50 * time.Millisecond)
	close(block)
	if err == nil {
		t.Fatal("Verify returned nil with a goroutine still blocked")
	}
	if !strings.Contains(err.Error(), "leakyGoroutine") {
		t.Fatalf("the error does not hold the leaked goroutine's stack:\n%v", err)
	}
	if err := b.Verify(leakcheck.Timeout); err != nil {
		t.Fatalf("after unblocking: %v", err)
	}
}

func leakyGoroutine(started chan<- struct{}, block <-chan struct{}) {
	close(started)
	<-block
}

func TestCheckFailsTheTestOnALeak(t *testing.T) {
	var f fakeTB
	block := make(chan struct{})
	outer := leakcheck.Snapshot()
	defer func() {
		close(block)
		// Leave no goroutine behind for the tests and examples that follow.
		if err := outer.Verify(leakcheck.Timeout); err != nil {
			t.Error(err)
		}
	}()
	leakcheck.CheckWithin(&f, 50*time.Millisecond)
	started := make(chan struct{})
	go leakyGoroutine(started, block)
	<-started
	start := time.Now()
	f.finish()
	if len(f.errors) == 0 {
		t.Fatal("Check did not report the leaked goroutine")
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Fatalf("Check reported the leak after %v, before its timeout", d)
	}
	if !strings.Contains(strings.Join(f.errors, "\n"), "leakyGoroutine") {
		t.Fatalf("the report does not hold the leaked goroutine's stack: %q", f.errors)
	}
}
