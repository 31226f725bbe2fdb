package forkjoin

import (
	"context"
	"errors"
	"fmt"
	"github.com/forkjoin-go/forkjoin/internal/core"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// smallTree is a perfect tree of 2^10-1 nodes and its sum, shared by the
// tests that run many small computations.
var smallTree, smallSum = func() (*tnode, int64) {
	var c int64
	root := buildTree(10, &c)
	return root, seqSum(root)
}()

// checkSum runs one tree-sum on p and reports a wrong answer.
func checkSum(p *pool.Pool, root *tnode, want int64) error {
	var got int64
	Run(p, func(w *Worker) { got = sumFork.Call(w, root) })
	if got != want {
		return fmt.Errorf("tree-sum gave %d, want %d", got, want)
	}
	return nil
}

// TestConcurrentRuns: several goroutines run fork-join computations on one
// pool at the same time, each checking its answers.
func TestConcurrentRuns(t *testing.T) {
	leakcheck.Check(t)
	for _, par := range []int{1, 4} {
		p := pool.New(par)
		concurrentRuns(t, p)
		p.Close()
	}
}

func concurrentRuns(t *testing.T, p *pool.Pool) {
	const n = 1000
	items := make([]int64, n)
	var itemsSum int64
	for i := range items {
		items[i] = int64(i * i)
		itemsSum += items[i]
	}
	var bad errOnce
	var wg sync.WaitGroup
	for g := 0; g < concurrentCallers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < runsPerCaller && bad.get() == ""; i++ {
				switch (g + i) % 4 {
				case 0:
					if err := checkSum(p, smallTree, smallSum); err != nil {
						bad.set("caller %d, run %d: %v", g, i, err)
					}
				case 1:
					var got int64
					Run(p, func(w *Worker) { got = joinSum(w, smallTree) })
					if got != smallSum {
						bad.set("caller %d, run %d: Join tree-sum gave %d, want %d", g, i, got, smallSum)
					}
				case 2:
					out := make([]int64, n)
					Run(p, func(w *Worker) {
						For(w, n, 0, func(_ *Worker, lo, hi int) {
							for k := lo; k < hi; k++ {
								out[k] = items[k]
							}
						})
					})
					for k := range out {
						if out[k] != items[k] {
							bad.set("caller %d, run %d: For left index %d at %d", g, i, k, out[k])
							break
						}
					}
				case 3:
					var got int64
					err := RunCtx(context.Background(), p, func(w *Worker) error {
						got = Reduce(w, n, 7, func(_ *Worker, lo, hi int) int64 {
							var s int64
							for _, v := range items[lo:hi] {
								s += v
							}
							return s
						}, func(a, b int64) int64 { return a + b })
						return nil
					})
					if err != nil || got != itemsSum {
						bad.set("caller %d, run %d: Reduce gave %d, %v; want %d", g, i, got, err, itemsSum)
					}
				}
			}
		}()
	}
	wg.Wait()
	if msg := bad.get(); msg != "" {
		t.Fatal(msg)
	}
	st := p.Stats()
	if want := int64(concurrentCallers * runsPerCaller); st.Runs != want {
		t.Errorf("Stats.Runs = %d, want %d", st.Runs, want)
	}
	t.Logf("parallelism %d, %d concurrent runs: tasks %d, steal attempts %d, steals %d, parks %d",
		st.Parallelism, st.Runs, st.Tasks, st.StealAttempts, st.Steals, st.Parks)
}

// nestedSum runs a Run inside the tasks of a Run inside the tasks of a
// Run…, level deep, on the same pool: each level forks two tasks that each
// start a run of the next level, and the innermost runs sum smallTree.
func nestedSum(p *pool.Pool, level int) int64 {
	var total int64
	Run(p, func(w *Worker) {
		if level == 0 {
			total = sumFork.Call(w, smallTree)
			return
		}
		var a, b int64
		Join(w,
			func(*Worker) { a = nestedSum(p, level-1) },
			func(*Worker) { b = nestedSum(p, level-1) })
		total = a + b
	})
	return total
}

func TestNestedRuns(t *testing.T) {
	leakcheck.Check(t)
	for _, par := range []int{1, 2, 3} {
		p := pool.New(par)
		const levels = 4
		want := smallSum << levels
		var wg sync.WaitGroup
		var bad errOnce
		for g := 0; g < 3; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 10; i++ {
					if got := nestedSum(p, levels); got != want {
						bad.set("parallelism %d: nested runs gave %d, want %d", par, got, want)
					}
				}
			}()
		}
		wg.Wait()
		p.Close()
		if msg := bad.get(); msg != "" {
			t.Fatal(msg)
		}
	}
}

// A bomb goes off (panics with a boom) when a computation reaches the
// node, index or call it names; at 0 it never does.
type boom struct{ round, at int }

type bombArg struct {
	n    *tnode
	bomb *boom
}

// bombStep is tree-sum that panics at the node whose value is bomb.at
// (values are pre-order numbers, 1 to 2^depth-1).
func bombStep(f *Fork[bombArg, int64], w *Worker, a bombArg) int64 {
	if a.n == nil {
		return 0
	}
	if a.n.val == int64(a.bomb.at) {
		panic(*a.bomb)
	}
	l, r := f.Join(w, bombArg{a.n.left, a.bomb}, bombArg{a.n.right, a.bomb})
	return a.n.val + l + r
}

var bombFork = NewFork(bombStep)

// bombJoin is bombStep with closures.
func bombJoin(w *Worker, n *tnode, b *boom) int64 {
	if n == nil {
		return 0
	}
	if n.val == int64(b.at) {
		panic(*b)
	}
	var l, r int64
	Join(w, func(w *Worker) { l = bombJoin(w, n.left, b) }, func(w *Worker) { r = bombJoin(w, n.right, b) })
	return n.val + l + r
}

// TestPanicInjection injects panics at random places of random kinds of
// computation and reuses one pool for every round: a round without a bomb
// must give the right answer, a round with one must report exactly that
// panic, with its stack, re-panicked by Run or returned by RunCtx.
func TestPanicInjection(t *testing.T) {
	leakcheck.Check(t)
	var c int64
	const depth = 12
	root := buildTree(depth, &c)
	want := seqSum(root)
	nodes := 1<<depth - 1
	const forN = 5000
	r := rand.New(rand.NewPCG(1, 2))
	for _, par := range []int{1, 3} {
		p := pool.New(par)
		for round := 0; round < panicRounds; round++ {
			b := &boom{round: round}
			if r.IntN(4) != 0 {
				b.at = 1 + r.IntN(nodes)
			}
			kind := r.IntN(4)
			var got int64
			body := func(w *Worker) {
				switch kind {
				case 0:
					got = bombFork.Call(w, bombArg{root, b})
				case 1:
					got = bombJoin(w, root, b)
				case 2: // For, the bomb at an index
					var sum atomic.Int64
					For(w, forN, 0, func(_ *Worker, lo, hi int) {
						for i := lo; i < hi; i++ {
							if i+1 == b.at {
								panic(*b)
							}
							sum.Add(int64(i))
						}
					})
					got = sum.Load()
				case 3: // Reduce, the bomb in a leaf
					got = Reduce(w, forN, 3, func(_ *Worker, lo, hi int) int64 {
						var s int64
						for i := lo; i < hi; i++ {
							if i+1 == b.at {
								panic(*b)
							}
							s += int64(i)
						}
						return s
					}, func(x, y int64) int64 { return x + y })
				}
			}
			wantGot := want
			exploded := b.at != 0
			if kind >= 2 {
				wantGot = forN * (forN - 1) / 2
				exploded = b.at != 0 && b.at <= forN
			}
			var err error
			if round%2 == 0 {
				err = RunCtx(context.Background(), p, func(w *Worker) error { body(w); return nil })
			} else {
				err = func() (err error) {
					defer func() {
						if v := recover(); v != nil {
							var ok bool
							if err, ok = v.(error); !ok {
								err = fmt.Errorf("Run re-panicked with %T %v, not an error", v, v)
							}
						}
					}()
					Run(p, body)
					return nil
				}()
			}
			if !exploded {
				if err != nil || got != wantGot {
					t.Fatalf("parallelism %d, round %d, kind %d, no bomb: got %d, %v; want %d", par, round, kind, got, err, wantGot)
				}
				continue
			}
			var pe *PanicError
			if !errors.As(err, &pe) {
				t.Fatalf("parallelism %d, round %d, kind %d: bomb at %d gave %T %v, want a *PanicError", par, round, kind, b.at, err, err)
			}
			if pe.Value != *b {
				t.Fatalf("parallelism %d, round %d: the panic value is %#v, want %#v", par, round, pe.Value, *b)
			}
			if len(pe.Stack) == 0 {
				t.Fatalf("round %d: the PanicError has no stack", round)
			}
			if kind == 0 && !strings.Contains(string(pe.Stack), "bombStep") {
				t.Fatalf("round %d: the stack does not show where the panic happened:\n%s", round, pe.Stack)
			}
		}
		// The pool is still sound.
		for i := 0; i < 20; i++ {
			if err := checkSum(p, root, want); err != nil {
				t.Fatalf("parallelism %d, after the panics: %v", par, err)
			}
		}
		p.Close()
	}
}

// TestPanicWhileSiblingStolen: a task panics while its sibling, stolen by
// another participant, is still running, and other runs keep the pool
// busy. The sibling runs exactly once, and no other run is disturbed.
// (It guards against a worker that abandons the panicked frames publishing
// the stolen sibling again when a task it helps with forks.)
func TestPanicWhileSiblingStolen(t *testing.T) {
	leakcheck.Check(t)
	var c int64
	depth := 14
	if raceEnabled {
		depth = 11
	}
	root := buildTree(depth, &c)
	want := seqSum(root)
	var siblingRuns atomic.Int32
	pair := NewFork(func(f *Fork[int, int64], w *Worker, which int) int64 {
		if which == 0 {
			deadline := time.Now().Add(time.Second)
			for siblingRuns.Load() == 0 && time.Now().Before(deadline) {
				runtime.Gosched()
			}
			panic("left")
		}
		siblingRuns.Add(1)
		var s int64
		for i := 0; i < 3; i++ {
			s += sumFork.Call(w, root)
		}
		return s
	})
	p := pool.New(3)
	defer p.Close()
	var stop atomic.Bool
	var bad errOnce
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if err := checkSum(p, root, want); err != nil {
					bad.set("a concurrent run: %v", err)
				}
			}
		}()
	}
	rounds := 200
	if raceEnabled {
		rounds = 60
	}
	for i := 0; i < rounds; i++ {
		siblingRuns.Store(0)
		err := RunCtx(context.Background(), p, func(w *Worker) error {
			pair.Join(w, 0, 1)
			return nil
		})
		if !isPanicWith(err, "left") {
			t.Errorf("round %d: got %v, want the panic", i, err)
		}
		if n := siblingRuns.Load(); n > 1 {
			t.Errorf("round %d: the stolen sibling ran %d times", i, n)
		}
	}
	stop.Store(true)
	wg.Wait()
	if msg := bad.get(); msg != "" {
		t.Fatal(msg)
	}
}

func isPanicWith(err error, value any) bool {
	var pe *PanicError
	return errors.As(err, &pe) && pe.Value == value
}

// endless sums the tree over and over: only cancellation ends it.
func endless(w *Worker, root *tnode) error {
	for {
		sumFork.Call(w, root)
	}
}

// promptLimit bounds how long a canceled run may take to return. Every
// callback in these tests takes microseconds, so a run that notices
// cancellation at its next fork returns in far less; the limit only
// leaves room for a loaded machine.
const promptLimit = 2 * time.Second

func TestCancellation(t *testing.T) {
	leakcheck.Check(t)
	var c int64
	root := buildTree(14, &c)
	want := seqSum(root)
	r := rand.New(rand.NewPCG(3, 4))
	for _, par := range []int{1, 2, 4} {
		p := pool.New(par)
		for round := 0; round < cancelRounds; round++ {
			ctx, cancel := context.WithCancel(context.Background())
			delay := time.Duration(r.IntN(3000)) * time.Microsecond
			if round == 0 {
				delay = 0
			}
			var canceledAt atomic.Int64
			go func() {
				time.Sleep(delay)
				canceledAt.Store(time.Now().UnixNano())
				cancel()
			}()
			err := RunCtx(ctx, p, func(w *Worker) error { return endless(w, root) })
			returned := time.Now().UnixNano()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("parallelism %d, round %d: RunCtx returned %v, want context.Canceled", par, round, err)
			}
			if took := time.Duration(returned - canceledAt.Load()); took > promptLimit {
				t.Fatalf("parallelism %d, round %d: RunCtx returned %v after the cancellation", par, round, took)
			}
			if err := checkSum(p, root, want); err != nil {
				t.Fatalf("parallelism %d, after canceled round %d: %v", par, round, err)
			}
		}
		// A deadline, and a context already done before the run.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		if err := RunCtx(ctx, p, func(w *Worker) error { return endless(w, root) }); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("parallelism %d: with a deadline RunCtx returned %v", par, err)
		}
		cancel()
		ran := false
		if err := RunCtx(ctx, p, func(*Worker) error { ran = true; return nil }); !errors.Is(err, context.DeadlineExceeded) || ran {
			t.Fatalf("parallelism %d: with a done context RunCtx returned %v and ran fn: %v", par, err, ran)
		}
		p.Close()
	}
}

// TestCanceledFor: cancellation also reaches a For loop.
func TestCanceledFor(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(5*time.Millisecond, cancel)
	start := time.Now()
	err := RunCtx(ctx, p, func(w *Worker) error {
		for {
			For(w, 1<<20, 0, func(_ *Worker, lo, hi int) {})
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RunCtx returned %v", err)
	}
	if took := time.Since(start); took > promptLimit {
		t.Fatalf("the canceled For took %v", took)
	}
}

var errStop = errors.New("stop")

func TestRunCtxError(t *testing.T) {
	leakcheck.Check(t)
	for _, par := range []int{1, 2} {
		p := pool.New(par)
		// fn's error, after work that forked and joined.
		err := RunCtx(context.Background(), p, func(w *Worker) error {
			if got := sumFork.Call(w, smallTree); got != smallSum {
				t.Errorf("sum %d", got)
			}
			return fmt.Errorf("wrapped: %w", errStop)
		})
		if !errors.Is(err, errStop) {
			t.Fatalf("parallelism %d: RunCtx returned %v, want errStop", par, err)
		}
		// No error.
		if err := RunCtx(context.Background(), p, func(*Worker) error { return nil }); err != nil {
			t.Fatalf("RunCtx returned %v", err)
		}
		// The error cancels what is still running: the run ends.
		err = RunCtx(context.Background(), p, func(w *Worker) error {
			var e error
			Join(w, func(*Worker) { e = errStop }, func(w *Worker) { sumFork.Call(w, smallTree) })
			return e
		})
		if !errors.Is(err, errStop) {
			t.Fatalf("parallelism %d: RunCtx returned %v, want errStop", par, err)
		}
		if err := checkSum(p, smallTree, smallSum); err != nil {
			t.Fatal(err)
		}
		p.Close()
	}
}

// mustPanic calls f and checks that it panics with a message containing
// want.
func mustPanic(t *testing.T, what, want string, f func()) {
	t.Helper()
	msg := func() (msg string) {
		defer func() {
			v := recover()
			if v == nil {
				msg = "<no panic>"
				return
			}
			var pe *PanicError
			if err, ok := v.(error); ok && errors.As(err, &pe) {
				v = pe.Value // a misuse inside a run reaches Run's caller wrapped
			}
			msg = fmt.Sprint(v)
		}()
		f()
		return ""
	}()
	if !strings.Contains(msg, want) {
		t.Errorf("%s: panicked with %q, want a message containing %q", what, msg, want)
	}
}

func TestBadInput(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	noop := func(*Worker) {}

	mustPanic(t, "Run on a nil pool", "nil *pool.Pool", func() { Run(nil, noop) })
	mustPanic(t, "RunCtx on a nil pool", "nil *pool.Pool", func() {
		_ = RunCtx(context.Background(), nil, func(*Worker) error { return nil })
	})
	mustPanic(t, "Run with a nil function", "nil function", func() { Run(p, nil) })
	mustPanic(t, "RunCtx with a nil function", "nil function", func() { _ = RunCtx(context.Background(), p, nil) })
	mustPanic(t, "RunCtx with a nil context", "nil context", func() {
		_ = RunCtx(nil, p, func(*Worker) error { return nil })
	})
	mustPanic(t, "NewFork(nil)", "nil function", func() { NewFork[int, int](nil) })
	mustPanic(t, "Task.Init(nil)", "nil function", func() { new(Task).Init(nil) })

	inRun := func(what, want string, f func(w *Worker)) {
		t.Helper()
		mustPanic(t, what, want, func() { Run(p, f) })
	}
	inRun("Join with a nil function", "nil function", func(w *Worker) { Join(w, nil, noop) })
	inRun("For with n < 0", "negative", func(w *Worker) { For(w, -1, 0, func(*Worker, int, int) {}) })
	inRun("For with grain < 0", "negative", func(w *Worker) { For(w, 1, -1, func(*Worker, int, int) {}) })
	inRun("For with a nil body", "nil body", func(w *Worker) { For(w, 1, 0, nil) })
	inRun("Reduce with n < 0", "negative", func(w *Worker) {
		Reduce(w, -1, 0, func(*Worker, int, int) int { return 0 }, func(a, b int) int { return a })
	})
	inRun("Reduce with a nil combine", "nil combine", func(w *Worker) {
		Reduce(w, 1, 0, func(*Worker, int, int) int { return 0 }, nil)
	})
	inRun("Push of a Task without Init", "without Init", func(w *Worker) { core.Push(w, new(Task)) })
	inRun("Push of a nil Task", "nil *Task", func(w *Worker) { core.Push(w, (*Task)(nil)) })
	inRun("Wait for a nil Completion", "nil *Completion", func(w *Worker) { core.Wait(w, nil) })
	inRun("ScopeCtx with a nil context", "nil context", func(w *Worker) {
		_ = ScopeCtx(nil, w, func(*Spawner) {})
	})
	mustPanic(t, "Submit of a nil Task", "nil *Task", func() { Submit(p, nil) })
	mustPanic(t, "SubmitBatch of a nil Batch", "nil *Batch", func() { SubmitBatch(p, nil) })
	mustPanic(t, "Batch.Push of a nil Task", "nil *Task", func() { new(Batch).Push(nil) })
	mustPanic(t, "AddNode to a nil Graph", "nil *Graph", func() {
		AddNode(nil, func(*Worker) (int, error) { return 0, nil }, nil)
	})
	mustPanic(t, "Graph.RunCtx with a nil context", "nil context", func() { _ = NewGraph().RunCtx(nil, p) })
	square := NewFork(func(_ *Fork[int, int], _ *Worker, x int) int { return x * x })
	inRun("Future joined out of order", "not joined yet", func(w *Worker) {
		a := square.Start(w, 2)
		b := square.Start(w, 3)
		a.Join(w)
		b.Join(w)
	})
	inRun("Future joined twice", "already joined", func(w *Worker) {
		a := square.Start(w, 2)
		a.Join(w)
		a.Join(w)
	})
	inRun("zero Future", "zero Future", func(w *Worker) { Future[int, int]{}.Join(w) })
	inRun("Future not joined", "not joined", func(w *Worker) { square.Start(w, 2) })
	inRun("Future not joined in a stolen task", "not joined", func(w *Worker) {
		Join(w, noop, func(w *Worker) { square.Start(w, 2) })
	})
	// The same with a pointer argument, whose Start and Join have a fast
	// path of their own (startFuture, joinFuture).
	two, three := 2, 3
	deref := NewFork(func(_ *Fork[*int, int], _ *Worker, x *int) int { return *x * *x })
	inRun("pointer Future joined out of order", "not joined yet", func(w *Worker) {
		a := deref.Start(w, &two)
		b := deref.Start(w, &three)
		a.Join(w)
		b.Join(w)
	})
	inRun("pointer Future joined twice", "already joined", func(w *Worker) {
		a := deref.Start(w, &two)
		a.Join(w)
		a.Join(w)
	})
	inRun("pointer Future of another Fork joined in its place", "already joined", func(w *Worker) {
		other := NewFork(func(_ *Fork[*int, int], _ *Worker, x *int) int { return *x })
		a := deref.Start(w, &two)
		a.Join(w)
		b := other.Start(w, &three)
		a.Join(w) // matches b's place, and is caught at b's Join
		b.Join(w)
	})
	// And with an argument of two words, which goes into a slab slot.
	type pair struct{ a, b int }
	add := NewFork(func(_ *Fork[pair, int], _ *Worker, x pair) int { return x.a + x.b })
	inRun("slab Future joined out of order", "not joined yet", func(w *Worker) {
		a := add.Start(w, pair{1, 2})
		b := add.Start(w, pair{3, 4})
		a.Join(w)
		b.Join(w)
	})
	inRun("slab Future joined twice", "already joined", func(w *Worker) {
		a := add.Start(w, pair{1, 2})
		a.Join(w)
		a.Join(w)
	})
	inRun("zero pointer Future", "zero Future", func(w *Worker) { Future[*int, int]{}.Join(w) })
	inRun("pointer Future not joined", "not joined", func(w *Worker) { deref.Start(w, &two) })
	inRun("pointer Future not joined in a stolen task", "not joined", func(w *Worker) {
		Join(w, noop, func(w *Worker) { deref.Start(w, &two) })
	})

	// A *Worker kept after its Run returned.
	var kept *Worker
	var keptFuture Future[int, int]
	var keptPtrFuture Future[*int, int]
	Run(p, func(w *Worker) {
		kept = w
		keptFuture = square.Start(w, 4)
		keptFuture.Join(w)
		keptPtrFuture = deref.Start(w, &two)
		keptPtrFuture.Join(w)
	})
	const stale = "outside the task"
	mustPanic(t, "Fork.Join with a stale Worker", stale, func() { sumFork.Join(kept, smallTree, smallTree) })
	mustPanic(t, "Fork.Join with a stale Worker, again", stale, func() { sumFork.Join(kept, smallTree, smallTree) })
	mustPanic(t, "Fork.Start with a stale Worker", stale, func() { square.Start(kept, 1) })
	mustPanic(t, "Future.Join with a stale Worker", stale, func() { keptFuture.Join(kept) })
	mustPanic(t, "pointer Fork.Start with a stale Worker", stale, func() { deref.Start(kept, &two) })
	mustPanic(t, "pointer Future.Join with a stale Worker", stale, func() { keptPtrFuture.Join(kept) })
	mustPanic(t, "Join with a stale Worker", stale, func() { Join(kept, noop, noop) })
	mustPanic(t, "For with a stale Worker", stale, func() { For(kept, 1, 1, func(*Worker, int, int) {}) })
	mustPanic(t, "Reduce with a stale Worker", stale, func() {
		Reduce(kept, 1, 1, func(*Worker, int, int) int { return 0 }, func(a, b int) int { return a })
	})
	var task Task
	task.Init(func(*Worker, *Task) {})
	mustPanic(t, "Push with a stale Worker", stale, func() { core.Push(kept, &task) })
	mustPanic(t, "Wait with a stale Worker", stale, func() { core.Wait(kept, new(core.Completion)) })
	if kept.Canceled() {
		t.Errorf("a stale Worker reports its finished run as canceled")
	}
	// The misuse left the pool sound (and, under -race, race-free).
	for i := 0; i < 100; i++ {
		if err := checkSum(p, smallTree, smallSum); err != nil {
			t.Fatalf("after the misuse: %v", err)
		}
	}

	p.Close()
	mustPanic(t, "Run on a closed pool", "closed pool", func() { Run(p, noop) })
	mustPanic(t, "RunCtx on a closed pool", "closed pool", func() {
		_ = RunCtx(context.Background(), p, func(*Worker) error { return nil })
	})
}

// TestPushWait: intrusive Tasks pushed and waited for, at every
// parallelism including 1, where the pusher must run them itself.
func TestPushWait(t *testing.T) {
	leakcheck.Check(t)
	type job struct {
		task Task
		in   int
		out  *int
		done *core.Completion
		left *atomic.Int32
	}
	for _, par := range []int{1, 2, 4} {
		p := pool.New(par)
		for round := 0; round < 50; round++ {
			const n = 100
			out := make([]int, n)
			jobs := make([]job, n)
			var done core.Completion
			var left atomic.Int32
			left.Store(n)
			Run(p, func(w *Worker) {
				for i := range jobs {
					j := &jobs[i]
					j.in, j.out, j.done, j.left = i, &out[i], &done, &left
					j.task.Init(func(w *Worker, t *Task) {
						*j.out = fibFork.Call(w, j.in%15)
						if j.left.Add(-1) == 0 {
							j.done.Complete()
						}
					})
					core.Push(w, &j.task)
				}
				core.Wait(w, &done)
			})
			for i := range out {
				if out[i] != seqFib(i%15) {
					t.Fatalf("parallelism %d: task %d gave %d", par, i, out[i])
				}
			}
		}
		p.Close()
	}
}

// TestCompletionWaiters: several participants wait for one Completion; the
// one that Complete wakes need not be the one it was registered last.
// (Regression: a waiter parked before another one registered slept on.)
func TestCompletionWaiters(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(1)
	defer p.Close()
	for round := 0; round < 3; round++ {
		var c core.Completion
		done := make(chan struct{}, 2)
		go Run(p, func(w *Worker) { core.Wait(w, &c); done <- struct{}{} })
		if !testcheck.PollUntil(func() bool { return schedulerOf(p).joinWake.Waiters() == 1 }) {
			t.Fatal("the first waiter never parked")
		}
		started := make(chan struct{})
		go Run(p, func(w *Worker) { close(started); core.Wait(w, &c); done <- struct{}{} })
		<-started
		c.Complete() // the second may still be spinning
		for i := 0; i < 2; i++ {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: a waiter never returned from Wait", round)
			}
		}
		if !c.Done() {
			t.Fatal("Done is false after Complete")
		}
		c.Reset()
		if c.Done() {
			t.Fatal("Done is true after Reset")
		}
	}
}

// TestCompletionWaitersOfTwoPools: a Completion waited for from two pools
// wakes both. (Regression: Complete woke only the pool of the last waiter
// to register, and the other one, parked with nothing else to do on its
// pool, slept for ever.)
func TestCompletionWaitersOfTwoPools(t *testing.T) {
	leakcheck.Check(t)
	p1, p2 := pool.New(1), pool.New(1)
	defer p1.Close()
	defer p2.Close()
	for round := 0; round < 3; round++ {
		var c core.Completion
		done := make(chan struct{}, 2)
		for _, p := range []*pool.Pool{p1, p2} { // p1's waiter parks first
			go Run(p, func(w *Worker) { core.Wait(w, &c); done <- struct{}{} })
			if !testcheck.PollUntil(func() bool { return schedulerOf(p).joinWake.Waiters() == 1 }) {
				t.Fatalf("round %d: a waiter never parked", round)
			}
		}
		c.Complete()
		for i := 0; i < 2; i++ {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: a waiter never returned from Wait", round)
			}
		}
		c.Reset()
	}
}

// TestIdle: once the runs are over, the workers park and stay parked: the
// pool's park and wake-up counts stop changing and no worker is left in
// the scheduler, searching.
func TestIdle(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(4)
	defer p.Close()
	for i := 0; i < 50; i++ {
		if err := checkSum(p, smallTree, smallSum); err != nil {
			t.Fatal(err)
		}
	}
	s := schedulerOf(p)
	settled := func() (pool.Stats, bool) {
		a := p.Stats()
		time.Sleep(20 * time.Millisecond)
		b := p.Stats()
		return b, a.Parks == b.Parks && a.Wakeups == b.Wakeups && active(s.state.Load()) == 0
	}
	deadline := time.Now().Add(10 * time.Second)
	var before pool.Stats
	for {
		var ok bool
		if before, ok = settled(); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pool did not settle within 10 s: state %#x, stats %+v", s.state.Load(), before)
		}
	}
	cpu0 := processCPU()
	time.Sleep(300 * time.Millisecond)
	cpu := processCPU()
	if cpu0 >= 0 {
		cpu -= cpu0
	}
	after := p.Stats()
	if after.Parks != before.Parks || after.Wakeups != before.Wakeups {
		t.Errorf("an idle pool keeps waking up: parks %d → %d, wake-ups %d → %d", before.Parks, after.Parks, before.Wakeups, after.Wakeups)
	}
	if st := s.state.Load(); active(st) != 0 || searching(st) != 0 {
		t.Errorf("an idle pool has workers in the scheduler: active %d, searching %d", active(st), searching(st))
	}
	if cpu >= 0 && cpu > 100*time.Millisecond {
		t.Errorf("the process used %v of CPU in 300 ms of idleness", cpu)
	}
	t.Logf("idle for 300 ms: %v CPU; %d workers started, %d parks", cpu, after.WorkersStarted, after.Parks)
}

// TestStats: a run at parallelism 2 on a big tree moves work.
func TestStats(t *testing.T) {
	leakcheck.Check(t)
	var c int64
	root := buildTree(bigDepth, &c)
	want := seqSum(root)
	p := pool.New(2)
	for i := 0; i < 50; i++ {
		if err := checkSum(p, root, want); err != nil {
			t.Fatal(err)
		}
		if st := p.Stats(); st.Steals > 0 && i >= 2 {
			break
		}
	}
	// Tasks are counted in batches (they may lag while tasks run): the
	// counters agree once the pool is idle, as after Close.
	p.Close()
	st := p.Stats()
	if st.Steals == 0 || st.Tasks == 0 {
		t.Fatalf("no work moved: %+v", st)
	}
	if st.StealAttempts < st.Steals || st.Tasks < st.Steals {
		t.Errorf("inconsistent counters: %d tasks, %d steal attempts, %d steals", st.Tasks, st.StealAttempts, st.Steals)
	}
	var tasks, steals int64
	for _, ws := range st.Workers {
		tasks += ws.Tasks
		steals += ws.Steals
	}
	tasks += st.Callers.Tasks
	steals += st.Callers.Steals
	if tasks != st.Tasks || steals != st.Steals {
		t.Errorf("per-participant counters (%d tasks, %d steals) do not add up to the totals (%d, %d)", tasks, steals, st.Tasks, st.Steals)
	}
	t.Logf("%d runs: %d tasks, %d steal attempts, %d steals", st.Runs, st.Tasks, st.StealAttempts, st.Steals)
}

// TestStatsTasksExactWhenIdle: every task a participant runs is in
// Stats.Tasks once the pool is idle, though each participant counts in
// batches: submitted Tasks, each run once from a queue, in numbers that are
// rarely a multiple of the batch, counted at parallelism 1 (the closing
// goroutine runs them), 2 and 4.
func TestStatsTasksExactWhenIdle(t *testing.T) {
	leakcheck.Check(t)
	for _, par := range []int{1, 2, 4} {
		p := pool.New(par)
		var ran atomic.Int64
		var total int64
		for round := 0; round < 10; round++ {
			n := 1 + round*37
			tasks := make([]Task, n)
			var b Batch
			for i := range tasks {
				tasks[i].Init(func(*Worker, *Task) { ran.Add(1) })
				b.Push(&tasks[i])
			}
			SubmitBatch(p, &b)
			total += int64(n)
		}
		p.Close()
		st := p.Stats()
		if ran.Load() != total || st.Tasks != total {
			t.Fatalf("p%d: %d tasks submitted, %d ran, Stats.Tasks %d", par, total, ran.Load(), st.Tasks)
		}
		var sum int64
		for _, ws := range append(st.Workers, st.Callers) {
			sum += ws.Tasks
		}
		if sum != st.Tasks {
			t.Fatalf("p%d: the participants' Tasks add up to %d, the total is %d", par, sum, st.Tasks)
		}
	}
}

// TestForkAllocations: the typed fork allocates nothing in steady state; a
// whole run of 2^16-1 forks may allocate a few objects for the run itself.
func TestForkAllocations(t *testing.T) {
	leakcheck.Check(t)
	var c int64
	const depth = 16
	root := buildTree(depth, &c)
	want := seqSum(root)
	forks := 1<<depth - 1
	sums := []struct {
		name string
		sum  func(w *Worker, n *tnode) int64
	}{{"Fork.Join", sumFork.Call}, {"Fork.Start/Future.Join", futureSumFork.Call}}
	for _, s := range sums {
		for _, par := range []int{1, 2} {
			p := pool.New(par)
			var got int64
			run := func() { Run(p, func(w *Worker) { got = s.sum(w, root) }) }
			for i := 0; i < 10; i++ { // warm: slabs, stacks, deques grown
				run()
			}
			allocs := testing.AllocsPerRun(20, run)
			p.Close()
			if got != want {
				t.Fatalf("%s, parallelism %d: sum %d, want %d", s.name, par, got, want)
			}
			if limit := float64(forks) / 1000; allocs > limit {
				t.Errorf("%s, parallelism %d: %.1f allocations per run of %d forks, want at most %.0f", s.name, par, allocs, forks, limit)
			}
			t.Logf("%s, parallelism %d: %.1f allocations per run of %d forks", s.name, par, allocs, forks)
		}
	}
}

// gcNode is a node of a tree made while it is walked: a word fork's
// argument that nothing but the fork references.
type gcNode struct {
	depth int
	id    uint64
	check uint64 // mix(id): wrong if the node was freed and reused
}

func gcMix(x uint64) uint64 {
	x ^= x >> 31
	x *= 0x9e3779b97f4a7c15
	return x ^ x>>29
}

func newGCNode(depth int, id uint64) *gcNode {
	return &gcNode{depth: depth, id: id, check: gcMix(id)}
}

// growStack uses enough stack to make a goroutine's stack grow (and, after
// a collection shrank it, grow again): the stack moves.
//
//go:noinline
func growStack(n int) byte {
	var buf [512]byte
	buf[n%len(buf)] = byte(n)
	if n == 0 {
		return buf[0]
	}
	return growStack(n-1) + buf[n%len(buf)]
}

var gcFork = NewFork(func(f *Fork[*gcNode, uint64], w *Worker, n *gcNode) uint64 {
	if n.check != gcMix(n.id) {
		panic(fmt.Sprintf("node %d corrupted: the collector freed a forked argument", n.id))
	}
	if n.depth == 0 {
		if n.id%64 == 0 {
			runtime.GC() // may shrink, and so move, the stacks of every goroutine
		}
		return n.check + uint64(growStack(int(n.id%32)))
	}
	a, b := f.Join(w, newGCNode(n.depth-1, 2*n.id), newGCNode(n.depth-1, 2*n.id+1))
	return n.check + a + b
})

// TestWordForksUnderGC: a word fork keeps a pointer argument in its entry
// (see forkEntry), where the collector must see it: trees whose nodes are
// made as they are forked, so that only the forks hold them, walked while
// collections run and stacks grow and shrink, with thieves publishing and
// taking forks. Every node must arrive intact and the result must equal
// the sequential one.
func TestWordForksUnderGC(t *testing.T) {
	leakcheck.Check(t)
	depth := 12
	if raceEnabled {
		depth = 9
	}
	var seq func(n *gcNode) uint64
	seq = func(n *gcNode) uint64 {
		if n.depth == 0 {
			return n.check + uint64(growStack(int(n.id%32)))
		}
		return n.check + seq(newGCNode(n.depth-1, 2*n.id)) + seq(newGCNode(n.depth-1, 2*n.id+1))
	}
	want := seq(newGCNode(depth, 1))
	for _, par := range []int{1, 2, 4} {
		p := pool.New(par)
		for round := 0; round < 3; round++ {
			var got uint64
			Run(p, func(w *Worker) { got = gcFork.Call(w, newGCNode(depth, 1)) })
			if got != want {
				p.Close()
				t.Fatalf("parallelism %d: got %d, want %d", par, got, want)
			}
		}
		p.Close()
	}
}

// TestWorkerHandle: what a task learns from its *Worker.
func TestWorkerHandle(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(3)
	defer p.Close()
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "v")
	err := RunCtx(ctx, p, func(w *Worker) error {
		if w.Parallelism() != 3 {
			t.Errorf("Parallelism() = %d", w.Parallelism())
		}
		if w.Context().Value(key{}) != "v" {
			t.Errorf("Context() is not the run's context")
		}
		if w.Canceled() {
			t.Errorf("Canceled() in a live run")
		}
		var seen sync.Map
		For(w, 1000, 1, func(w *Worker, lo, hi int) {
			if w.Index() < 0 {
				t.Errorf("Index() = %d", w.Index())
			}
			seen.Store(w.Index(), true)
			if w.Context().Value(key{}) != "v" {
				t.Errorf("a stolen task sees another context")
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	Run(p, func(w *Worker) {
		if w.Context() != context.Background() {
			t.Errorf("Run's context is not context.Background()")
		}
	})
}

// TestChains: trees that are long chains (to the left, to the right) fork
// at every node, chainLength deep: the private fork stacks, the slabs and
// the deques grow far past their first chunks, and work moves along them.
func TestChains(t *testing.T) {
	leakcheck.Check(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, shape := range []int{shapeLeftChain, shapeRightChain, shapeCaterpillar} {
		root := randTree(r, chainLength, shape)
		want := seqSum(root)
		for _, par := range []int{1, 2, 4} {
			p := pool.New(par)
			for i := 0; i < 3; i++ {
				if err := checkSum(p, root, want); err != nil {
					t.Fatalf("shape %d, parallelism %d: %v", shape, par, err)
				}
				var got int64
				Run(p, func(w *Worker) { got = joinSum(w, root) })
				if got != want {
					t.Fatalf("shape %d, parallelism %d: Join gave %d, want %d", shape, par, got, want)
				}
			}
			p.Close()
		}
	}
}

// TestDroppedFutureUnderGC: a Future dropped without Join leaves its entry
// on the private stack, where the next answer to a request may publish it. Its
// argument here is a large object (a span of its own) that nothing else
// references, and collections run before and after the publication: if
// the entry hid the pointer from the collector (forkEntry keeps it in a
// pointer field), the object would be freed and the published slot would
// point into a freed span, which the next collection reports as a fatal
// "found bad pointer". The run itself must fail with the not-joined panic
// and the pool stay usable.
func TestDroppedFutureUnderGC(t *testing.T) {
	leakcheck.Check(t)
	type big [8192]int
	fork := NewFork(func(_ *Fork[*big, int], _ *Worker, b *big) int { return b[0] })
	p := pool.New(1)
	defer p.Close()
	for round := 0; round < 5; round++ {
		mustPanic(t, "dropped Future", "not joined", func() {
			Run(p, func(w *Worker) {
				func() {
					b := new(big)
					b[0] = round
					fork.Start(w, b) // dropped: only the entry holds b
				}()
				runtime.GC()
				runtime.GC()
				w.ask() // as a thief would: the next fork publishes the oldest private one
				keep := &big{1}
				fu := fork.Start(w, keep)
				if w.published != 1 {
					t.Errorf("round %d: the answer to the request published %d forks, want 1 (the dropped one)", round, w.published)
				}
				runtime.GC()
				runtime.GC()
				if got := fu.Join(w); got != 1 {
					t.Errorf("round %d: Join = %d, want 1", round, got)
				}
			})
		})
		var got int
		Run(p, func(w *Worker) { got = fork.Call(w, &big{7}) })
		if got != 7 {
			t.Fatalf("round %d: the pool after the failed run: got %d, want 7", round, got)
		}
	}
}
