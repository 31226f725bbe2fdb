package forkjoin

// GC stress of a user's fork mistakes.
//
// A mistake with forks — a Future dropped, joined twice or out of order, a
// panic that the task recovers after it unwound a fork, a Goexit in a forked
// function, a Worker kept past its task — must end in its documented panic
// or outcome, never in a fault. Each case commits its mistake with a Fork
// made for the occasion and an argument that nothing else references, then
// lets the collector free them while objects of the same size classes are
// allocated over the memory it frees (churn, with the collector running
// almost all the time: SetGCPercent(1)). Then the worker is asked for work,
// as a thief asks, so that its next fork publishes the oldest private fork,
// and it goes on forking while the pool's other participant steals. A
// pointer that the library kept where the collector does not see it shows
// up as a fault reading the junk the churn wrote (0xdead…), a jump to it, a
// nil dereference inside the library, or the runtime's "found bad
// pointer"; under -race, checkptr checks the unsafe conversions too.

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// gcArg is a fork's argument in the stress cases: a pointer-sized struct
// with a pointer in it, allocated per round and dropped.
type gcArg struct {
	val  int64
	next *gcArg
}

// gcPair is an argument of two words: its forks go through slab slots.
type gcPair struct{ a, b int64 }

// Objects of the small size classes (16 to 128 bytes) that Forks, their
// closures and the arguments live in: a pointer first, so that they take
// the same spans as those (objects with pointers and objects without are
// kept apart), then junk words that a freed object's pointer fields read
// as 0xdead… once reused.
type (
	junk16 struct {
		p *byte
		w [1]uintptr
	}
	junk32 struct {
		p *byte
		w [3]uintptr
	}
	junk48 struct {
		p *byte
		w [5]uintptr
	}
	junk64 struct {
		p *byte
		w [7]uintptr
	}
	junk80 struct {
		p *byte
		w [9]uintptr
	}
	junk96 struct {
		p *byte
		w [11]uintptr
	}
	junk112 struct {
		p *byte
		w [13]uintptr
	}
	junk128 struct {
		p *byte
		w [15]uintptr
	}
)

// churnRing keeps the latest churn objects alive for a while, so that
// the churn also fills spans rather than reusing its own last object.
var (
	churnRing [1024]any
	churnNext int
)

func fillJunk(w []uintptr) {
	for i := range w {
		w[i] = 0xdead0000 + uintptr(i+1)<<4
	}
}

// churn allocates n objects of each small size class, filled with junk.
func churn(n int) {
	keep := func(v any) {
		churnRing[churnNext%len(churnRing)] = v
		churnNext++
	}
	for range n {
		a, b, c, d := new(junk16), new(junk32), new(junk48), new(junk64)
		e, f, g, h := new(junk80), new(junk96), new(junk112), new(junk128)
		fillJunk(a.w[:])
		fillJunk(b.w[:])
		fillJunk(c.w[:])
		fillJunk(d.w[:])
		fillJunk(e.w[:])
		fillJunk(f.w[:])
		fillJunk(g.w[:])
		fillJunk(h.w[:])
		keep(a)
		keep(b)
		keep(c)
		keep(d)
		keep(e)
		keep(f)
		keep(g)
		keep(h)
	}
}

// gcStressRounds is the number of rounds of each of a case's parts (its
// argument shapes, its kinds of Fork): a case makes 2,400 rounds in all in
// the long run, 100 in a plain `go test`, a quarter of that under the race
// detector (which slows the collector and the churn several times). A round
// costs 3–6 ms, most of it the collection and the churn.
func gcStressRounds(parts int) int {
	n := 100
	if longTests() {
		n = 2400
	}
	if raceEnabled {
		n /= 4
	}
	return max(1, n/parts)
}

// longTests reports whether the long tests run (testcheck.Long would skip).
func longTests() bool {
	v := os.Getenv(testcheck.LongEnv)
	return v != "" && v != "0"
}

// beforeMistake takes the request for work that stands now, if any,
// without answering it, so that the mistake's forks stay private (a fork
// made while a request stands is published at once, and its slot then
// holds its Fork and argument) until afterMistake asks. The thief that
// asked waits, or parks, until then.
func beforeMistake(w *Worker) { w.clearAsked() }

// repeatMistake makes a mistake (mistake calls beforeMistake just before
// the fork it leaves) until one of its forks stayed private, at most 64
// times: the thief may ask again between beforeMistake and the fork (a
// slow path's window, longer under -race and on a loaded machine), and
// then that fork is published at once. Every try leaves its fork pending.
func repeatMistake(w *Worker, mistake func()) {
	for range 64 {
		mistake()
		if w.published < w.forkTop {
			return
		}
	}
}

// recovered runs f and recovers its panic, as a task that recovers a
// panic of its own code does.
func recovered(f func()) {
	defer func() { recover() }()
	f()
}

// afterMistake collects, churns over what it freed, and asks w for work:
// w's next fork publishes its oldest private fork, as a thief's request
// makes it do. It counts the rounds in which that fork was one the
// mistake left private.
func afterMistake(w *Worker) {
	if w.published < w.forkTop {
		exercised.Add(1)
	}
	runtime.GC()
	churn(1024)
	w.ask()
}

// exercised counts the rounds of a case in which afterMistake's request
// publishes a fork that the mistake left.
var exercised atomic.Int64

// keepForking forks on: tree-sums with Futures and with Fork.Join, which
// the other participant steals from, and which answer the request that
// afterMistake made. It checks their sums.
func keepForking(w *Worker) {
	if got := futureSumFork.Call(w, smallTree); got != smallSum {
		panic("keepForking: the Future tree-sum is wrong")
	}
	if got := sumFork.Call(w, smallTree); got != smallSum {
		panic("keepForking: the Join tree-sum is wrong")
	}
}

// A Fork made per call, with the function of each argument shape; each
// one is allocated afresh (NewFork), so that a mistake can drop the last
// reference to it.
func newPtrFork() *Fork[*gcArg, int64] {
	return NewFork(func(_ *Fork[*gcArg, int64], _ *Worker, a *gcArg) int64 {
		if a.val < 0 {
			panic("gcstress: the forked function panics")
		}
		if a.next != nil {
			return a.val + a.next.val
		}
		return a.val
	})
}

func newIntFork() *Fork[int, int64] {
	return NewFork(func(_ *Fork[int, int64], _ *Worker, a int) int64 {
		if a < 0 {
			panic("gcstress: the forked function panics")
		}
		return int64(a)
	})
}

func newPairFork() *Fork[gcPair, int64] {
	return NewFork(func(_ *Fork[gcPair, int64], _ *Worker, a gcPair) int64 {
		if a.a < 0 {
			panic("gcstress: the forked function panics")
		}
		return a.a + a.b
	})
}

// newGCArg returns an argument that nothing else references, with a
// second object behind it.
//
//go:noinline
func newGCArg(v int64) *gcArg { return &gcArg{val: v, next: &gcArg{val: 1}} }

// Long-lived Forks: made once, like the package-level Forks of the
// examples.
var (
	gcPtrFork  = newPtrFork()
	gcIntFork  = newIntFork()
	gcPairFork = newPairFork()
)

// dropFuture forks with a Future and drops it: after it returns, only the
// fork's entry refers to the Fork (if perCall) and to the argument.
func dropFuture(w *Worker, shape string, perCall bool, round int) {
	repeatMistake(w, func() { dropOne(w, shape, perCall, round) })
}

//go:noinline
func dropOne(w *Worker, shape string, perCall bool, round int) {
	switch shape {
	case "pointer":
		f, a := gcPtrFork, newGCArg(int64(round))
		if perCall {
			f = newPtrFork()
		}
		beforeMistake(w)
		f.Start(w, a)
	case "scalar":
		f := gcIntFork
		if perCall {
			f = newIntFork()
		}
		beforeMistake(w)
		f.Start(w, round)
	case "slab":
		f := gcPairFork
		if perCall {
			f = newPairFork()
		}
		beforeMistake(w)
		f.Start(w, gcPair{int64(round), 1})
	}
}

// joinPanics calls Fork.Join with a first call that panics, and recovers
// the panic: the panic unwinds the Join, whose entry holds the second
// argument and (if perCall) the only reference to the Fork.
func joinPanics(w *Worker, shape string, perCall bool, round int) {
	repeatMistake(w, func() { recovered(func() { joinPanicsOnce(w, shape, perCall, round) }) })
}

//go:noinline
func joinPanicsOnce(w *Worker, shape string, perCall bool, round int) {
	switch shape {
	case "pointer":
		f, a, b := gcPtrFork, newGCArg(-1), newGCArg(int64(round))
		if perCall {
			f = newPtrFork()
		}
		beforeMistake(w)
		f.Join(w, a, b)
	case "scalar":
		f := gcIntFork
		if perCall {
			f = newIntFork()
		}
		beforeMistake(w)
		f.Join(w, -1, round)
	case "slab":
		f := gcPairFork
		if perCall {
			f = newPairFork()
		}
		beforeMistake(w)
		f.Join(w, gcPair{-1, 0}, gcPair{int64(round), 1})
	}
}

// startThenPanic forks with a Future and panics before joining it.
//
//go:noinline
func startThenPanic(w *Worker, round int) {
	f, a := newPtrFork(), newGCArg(int64(round))
	beforeMistake(w)
	fu := f.Start(w, a)
	if round >= 0 {
		panic("gcstress: the task panics between Start and Join")
	}
	fu.Join(w)
}

// runMessage runs fn as a Run on p and returns the text of its panic
// (the value of a *PanicError), or "" if it returned.
func runMessage(p *pool.Pool, fn func(w *Worker)) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			if pe, ok := v.(*PanicError); ok {
				v = pe.Value
			}
			msg = panicText(v)
		}
	}()
	Run(p, fn)
	return ""
}

func panicText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case error:
		return v.Error()
	}
	return "<a panic of another type>"
}

// gcStress runs round n times on a pool of 2 with the collector
// running almost all the time, and checks after each that the pool still
// sums a tree right. round reports a problem as a non-empty string. If
// private, the rounds must have left a fork of the mistake
// private until afterMistake asked for it (see repeatMistake), in half
// the rounds at least.
func gcStress(t *testing.T, n int, private bool, round func(p *pool.Pool, i int) string) {
	t.Helper()
	leakcheck.Check(t)
	defer debug.SetGCPercent(debug.SetGCPercent(1))
	p := pool.New(2)
	defer p.Close()
	exercised.Store(0)
	for i := range n {
		if problem := round(p, i); problem != "" {
			t.Fatalf("round %d of %d: %s", i, n, problem)
		}
		if err := checkSum(p, smallTree, smallSum); err != nil {
			t.Fatalf("round %d of %d, the pool afterwards: %v", i, n, err)
		}
	}
	t.Logf("%d of %d rounds published a fork that the mistake left private", exercised.Load(), n)
	if private && exercised.Load() < int64(n/2) {
		t.Fatalf("only %d of %d rounds published a fork that the mistake left private", exercised.Load(), n)
	}
}

// wantMessage is "" if msg contains want, else the problem.
func wantMessage(msg, want string) string {
	if strings.Contains(msg, want) {
		return ""
	}
	if msg == "" {
		msg = "<no panic>"
	}
	return "the run panicked with " + msg + ", want a message containing " + want
}

var argShapes = []string{"pointer", "scalar", "slab"}

// forkKind names a case's Fork: made per call, or long-lived.
func forkKind(perCall bool) string {
	if perCall {
		return "/per-call Fork"
	}
	return "/long-lived Fork"
}

// TestGCStressDroppedFuture: a Future dropped without Join, of a Fork made
// for the call and of a long-lived one, with each argument shape. The
// task fails with the not-joined panic when it returns; meanwhile the
// dropped fork may be published and run by the thief.
func TestGCStressDroppedFuture(t *testing.T) {
	for _, shape := range argShapes {
		for _, perCall := range []bool{true, false} {
			t.Run(shape+forkKind(perCall), func(t *testing.T) {
				gcStress(t, gcStressRounds(3), true, func(p *pool.Pool, i int) string {
					msg := runMessage(p, func(w *Worker) {
						dropFuture(w, shape, perCall, i)
						afterMistake(w)
						keepForking(w)
					})
					return wantMessage(msg, "not joined")
				})
			})
		}
	}
}

// TestGCStressFutureJoinedTwice: a Future joined twice, with a Future of
// another Fork made per call forked in its place in between (the second
// Join takes that one's place and the mistake is caught at its Join), and
// Futures joined out of order.
func TestGCStressFutureJoinedTwice(t *testing.T) {
	t.Run("twice", func(t *testing.T) {
		gcStress(t, gcStressRounds(2), true, func(p *pool.Pool, i int) string {
			msg := runMessage(p, func(w *Worker) {
				a := newPtrFork().Start(w, newGCArg(int64(i)))
				a.Join(w)
				f, arg := newPtrFork(), newGCArg(2)
				beforeMistake(w)
				b := f.Start(w, arg)
				afterMistake(w)
				keepForking(w)
				a.Join(w)
				b.Join(w)
			})
			return wantMessage(msg, "already joined")
		})
	})
	t.Run("out of order", func(t *testing.T) {
		gcStress(t, gcStressRounds(2), true, func(p *pool.Pool, i int) string {
			msg := runMessage(p, func(w *Worker) {
				f, g, arg := newPtrFork(), newIntFork(), newGCArg(int64(i))
				beforeMistake(w)
				a := f.Start(w, arg)
				b := g.Start(w, i)
				afterMistake(w)
				keepForking(w)
				a.Join(w)
				b.Join(w)
			})
			return wantMessage(msg, "out of order")
		})
	})
}

// TestGCStressPanicRecoveredThenFork: a forked call panics, the panic
// unwinds a Join (or a Start not yet joined), and the task recovers it and
// goes on forking and joining. The unwound fork stays on the stack, and
// the task fails with the panic that says so when it returns.
func TestGCStressPanicRecoveredThenFork(t *testing.T) {
	for _, shape := range argShapes {
		for _, perCall := range []bool{true, false} {
			t.Run("Join/"+shape+forkKind(perCall), func(t *testing.T) {
				gcStress(t, gcStressRounds(8), true, func(p *pool.Pool, i int) string {
					msg := runMessage(p, func(w *Worker) {
						joinPanics(w, shape, perCall, i)
						afterMistake(w)
						keepForking(w)
					})
					return wantMessage(msg, "not joined")
				})
			})
		}
	}
	t.Run("Start", func(t *testing.T) {
		gcStress(t, gcStressRounds(8), true, func(p *pool.Pool, i int) string {
			msg := runMessage(p, func(w *Worker) {
				repeatMistake(w, func() { recovered(func() { startThenPanic(w, i) }) })
				afterMistake(w)
				keepForking(w)
			})
			return wantMessage(msg, "not joined")
		})
	})
	// Not recovered: a deferred cleanup forks while the panic unwinds,
	// and the run fails with the panic.
	t.Run("deferred fork", func(t *testing.T) {
		gcStress(t, gcStressRounds(8), true, func(p *pool.Pool, i int) string {
			msg := runMessage(p, func(w *Worker) {
				defer func() {
					afterMistake(w)
					keepForking(w)
				}()
				startThenPanic(w, i)
			})
			return wantMessage(msg, "between Start and Join")
		})
	})
}

// TestGCStressGoexitInFork: a forked function calls runtime.Goexit, with a
// Future dropped before and a deferred cleanup that forks. The goroutine
// in Run ends; the pool goes on working.
func TestGCStressGoexitInFork(t *testing.T) {
	gcStress(t, gcStressRounds(1), true, func(p *pool.Pool, i int) string {
		done := make(chan struct{})
		var returned atomic.Bool
		go func() {
			defer close(done)
			Run(p, func(w *Worker) {
				defer func() {
					afterMistake(w)
					keepForking(w)
				}()
				dropFuture(w, "pointer", true, i)
				exit := NewFork(func(_ *Fork[*gcArg, int64], _ *Worker, a *gcArg) int64 {
					if a.val < 0 {
						runtime.Goexit()
					}
					return a.val
				})
				exit.Join(w, newGCArg(-1), newGCArg(int64(i)))
			})
			returned.Store(true)
		}()
		<-done
		if returned.Load() {
			return "Run returned after its forked function called Goexit"
		}
		return ""
	})
}

// TestGCStressKeptWorker: a Worker kept past its Run, used with a Fork made
// per call: after the Run (it panics, saying so), and inside a later Run
// (it is that Run's Worker, or another participant's not in use, which
// panics).
func TestGCStressKeptWorker(t *testing.T) {
	gcStress(t, gcStressRounds(1), false, func(p *pool.Pool, i int) string {
		var kept *Worker
		Run(p, func(w *Worker) {
			kept = w
			keepForking(w)
		})
		afterMistake(kept)
		const stale = "outside the task"
		uses := []func(){
			func() { newPtrFork().Start(kept, newGCArg(int64(i))).Join(kept) },
			func() { newPtrFork().Join(kept, newGCArg(1), newGCArg(2)) },
			func() { newIntFork().Join(kept, 1, 2) },
			func() { newPairFork().Start(kept, gcPair{1, 2}).Join(kept) },
		}
		for _, use := range uses {
			if problem := wantMessage(callMessage(use), stale); problem != "" {
				return "after the Run: " + problem
			}
		}
		msg := runMessage(p, func(w *Worker) {
			fu := newPtrFork().Start(kept, newGCArg(int64(i)))
			afterMistake(w)
			keepForking(w)
			if got := fu.Join(kept); got != int64(i)+1 {
				panic("the kept Worker's Future gave a wrong result")
			}
		})
		if msg != "" && !strings.Contains(msg, stale) {
			return "inside a later Run: the run panicked with " + msg
		}
		return ""
	})
}

// callMessage calls f and returns the text of its panic, or "".
func callMessage(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = panicText(v)
		}
	}()
	f()
	return ""
}
