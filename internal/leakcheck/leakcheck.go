package leakcheck

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"time"
)

// Timeout is how long Check and Verify wait for the goroutines started
// since the Snapshot to finish before they report a leak.
const Timeout = 5 * time.Second

// TB is the part of testing.TB that Check uses; *testing.T, *testing.B and
// *testing.F satisfy it.
type TB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
}

// Check takes a Snapshot now and registers a cleanup that fails t, with
// the stacks of the goroutines left over and a dump of all goroutines, if
// goroutines started since are still running once the test and its
// subtests have finished and Timeout has passed.
func Check(t TB) {
	t.Helper()
	CheckWithin(t, Timeout)
}

// CheckWithin is Check with another timeout.
func CheckWithin(t TB, timeout time.Duration) {
	t.Helper()
	b := Snapshot()
	t.Cleanup(func() {
		if err := b.Verify(timeout); err != nil {
			t.Errorf("%v", err)
		}
	})
}

// Baseline records the goroutines running at a Snapshot.
type Baseline struct {
	n   int
	ids map[uint64]bool
}

// Snapshot records the goroutines running now: their number and their ids.
func Snapshot() Baseline {
	stacks := allStacks()
	ids := map[uint64]bool{}
	for _, g := range goroutines(stacks) {
		ids[g.id] = true
	}
	return Baseline{n: runtime.NumGoroutine(), ids: ids}
}

// Count is runtime.NumGoroutine() at the Snapshot.
func (b Baseline) Count() int { return b.n }

// Verify polls, for at most timeout, until every goroutine started since
// the Snapshot has finished. It returns nil as soon as that is so, and
// otherwise an error that holds the stacks of those goroutines followed by
// a dump of all goroutines.
//
// Goroutines are told apart by id, not merely counted: a goroutine that
// was already on its way out at the Snapshot (the previous test's, say)
// cannot hide one that leaks.
func (b Baseline) Verify(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	wait := 10 * time.Microsecond
	for {
		stacks := allStacks()
		var leaked [][]byte
		for _, g := range goroutines(stacks) {
			if !b.ids[g.id] {
				leaked = append(leaked, g.stack)
			}
		}
		if len(leaked) == 0 {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("leakcheck: %d goroutines started during the test still running after %v (%d running now, %d at the start):\n\n%s\n\nall goroutines:\n\n%s",
				len(leaked), timeout, runtime.NumGoroutine(), b.n, bytes.Join(leaked, []byte("\n\n")), stacks)
		}
		// A goroutine that has been joined is usually gone within a few
		// scheduling rounds; back off so a real leak does not burn a core.
		runtime.Gosched()
		time.Sleep(wait)
		if wait < 10*time.Millisecond {
			wait *= 2
		}
	}
}

type goroutine struct {
	id    uint64
	stack []byte
}

// goroutines splits a runtime.Stack(all) dump into goroutines. Each block
// starts with a header such as "goroutine 7 [chan receive]:" and blocks
// are separated by a blank line.
func goroutines(dump []byte) []goroutine {
	var out []goroutine
	for _, block := range bytes.Split(dump, []byte("\n\n")) {
		block = bytes.TrimSpace(block)
		rest, ok := bytes.CutPrefix(block, []byte("goroutine "))
		if !ok {
			continue
		}
		end := bytes.IndexByte(rest, ' ')
		if end < 0 {
			continue
		}
		id, err := strconv.ParseUint(string(rest[:end]), 10, 64)
		if err != nil {
			continue
		}
		out = append(out, goroutine{id: id, stack: block})
	}
	return out
}

func allStacks() []byte {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}
