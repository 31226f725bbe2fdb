package forkjoin_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

type Node struct {
	Value       int64
	Left, Right *Node
}

func tree(depth int) *Node {
	if depth == 0 {
		return nil
	}
	return &Node{Value: int64(depth), Left: tree(depth - 1), Right: tree(depth - 1)}
}

var sum *forkjoin.Fork[*Node, int64]

func init() {
	sum = forkjoin.NewFork(func(w *forkjoin.Worker, n *Node) int64 {
		if n == nil {
			return 0
		}
		l, r := sum.Join(w, n.Left, n.Right)
		return n.Value + l + r
	})
}

func ExampleNewFork() {
	root := tree(10)
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			fmt.Println(sum.Call(w, root))
		})
	})
	// Output: 2036
}

func ExampleFork_Fork() {
	square := forkjoin.NewFork(func(w *forkjoin.Worker, x int) int { return x * x })
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			var futures [4]forkjoin.Future[int, int]
			for i := range futures {
				futures[i] = square.Fork(w, i+1)
			}
			total := 0
			for i := len(futures) - 1; i >= 0; i-- { // last forked, first joined
				total += futures[i].Join(w)
			}
			fmt.Println(total)
		})
	})
	// Output: 30
}

// sumRec is tree-sum with a Future: the right half is forked, the left
// half is the recursion's own call. With a pointer argument, Fork and
// Future.Join are inlined into it: the cheapest fork there is.
func sumRec(w *forkjoin.Worker, n *Node) int64 {
	if n == nil {
		return 0
	}
	right := sumFork.Fork(w, n.Right) // another worker may take it
	left := sumRec(w, n.Left)
	return n.Value + left + right.Join(w)
}

var sumFork *forkjoin.Fork[*Node, int64]

func init() { sumFork = forkjoin.NewFork(sumRec) }

func ExampleFork_Fork_recursion() {
	root := tree(10)
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			fmt.Println(sumRec(w, root))
		})
	})
	// Output: 2036
}

func ExampleJoin() {
	pool.With(2, func(p *pool.Pool) {
		var a, b int
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Join(w,
				func(*forkjoin.Worker) { a = 6 * 7 },
				func(*forkjoin.Worker) { b = 10 })
		})
		fmt.Println(a, b)
	})
	// Output: 42 10
}

func ExampleFor() {
	squares := make([]int, 8)
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.For(w, len(squares), 0, func(_ *forkjoin.Worker, lo, hi int) {
				for i := lo; i < hi; i++ {
					squares[i] = i * i
				}
			})
		})
	})
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49]
}

func ExampleReduce() {
	words := []string{"fork", "-", "join", " ", "in", " ", "Go"}
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			s := forkjoin.Reduce(w, len(words), 1,
				func(_ *forkjoin.Worker, lo, hi int) string {
					out := ""
					for _, s := range words[lo:hi] {
						out += s
					}
					return out
				},
				func(a, b string) string { return a + b }) // associative, not commutative
			fmt.Println(s)
		})
	})
	// Output: fork-join in Go
}

func ExampleRunCtx() {
	errStop := errors.New("stop")
	pool.With(2, func(p *pool.Pool) {
		err := forkjoin.RunCtx(context.Background(), p, func(w *forkjoin.Worker) error {
			return errStop
		})
		fmt.Println(err)
	})
	// Output: stop
}

func ExampleRun_panic() {
	pool.With(2, func(p *pool.Pool) {
		defer func() {
			var pe *forkjoin.PanicError
			if err, ok := recover().(error); ok && errors.As(err, &pe) {
				fmt.Println("recovered:", pe.Value)
			}
		}()
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Join(w, func(*forkjoin.Worker) {}, func(*forkjoin.Worker) { panic("boom") })
		})
	})
	// Output: recovered: boom
}

type countdown struct {
	task forkjoin.Task
	done *forkjoin.Completion
	n    *int
}

func ExampleTask() {
	pool.With(2, func(p *pool.Pool) {
		var done forkjoin.Completion
		n := 0
		c := &countdown{done: &done, n: &n}
		c.task.Init(func(w *forkjoin.Worker, t *forkjoin.Task) {
			*c.n = 99
			c.done.Complete()
		})
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			w.Push(&c.task)
			w.Wait(&done)
		})
		fmt.Println(n)
	})
	// Output: 99
}

func ExampleRun() {
	root := tree(16)
	pool.With(0, func(p *pool.Pool) { // 0: parallelism GOMAXPROCS
		var total int64
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			total = sum.Call(w, root)
		})
		fmt.Println(total)
	})
	// Output: 131054
}

func ExampleFork_Join() {
	var fib *forkjoin.Fork[int, int]
	fib = forkjoin.NewFork(func(w *forkjoin.Worker, n int) int {
		if n < 2 {
			return n
		}
		a, b := fib.Join(w, n-1, n-2) // fib(n-1) here, fib(n-2) wherever a participant is free
		return a + b
	})
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			fmt.Println(fib.Call(w, 30))
		})
	})
	// Output: 832040
}

func ExampleFork_Call() {
	double := forkjoin.NewFork(func(w *forkjoin.Worker, x int) int { return 2 * x })
	pool.With(1, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			fmt.Println(double.Call(w, 21)) // a plain call: no fork
		})
	})
	// Output: 42
}

func ExampleFuture_Join() {
	length := forkjoin.NewFork(func(w *forkjoin.Worker, s string) int { return len(s) })
	words := []string{"work", "stealing", "in", "Go"}
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			futures := make([]forkjoin.Future[string, int], len(words))
			for i, s := range words {
				futures[i] = length.Fork(w, s)
			}
			lengths := make([]int, len(words))
			for i := len(futures) - 1; i >= 0; i-- { // the last forked is joined first
				lengths[i] = futures[i].Join(w)
			}
			fmt.Println(lengths)
		})
	})
	// Output: [4 8 2 2]
}

type squareJob struct {
	task forkjoin.Task
	in   int
	out  int
	left *atomic.Int32
	done *forkjoin.Completion
}

func ExampleCompletion() {
	pool.With(2, func(p *pool.Pool) {
		jobs := make([]squareJob, 5)
		var done forkjoin.Completion
		var left atomic.Int32
		left.Store(int32(len(jobs)))
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			for i := range jobs {
				j := &jobs[i]
				j.in, j.left, j.done = i, &left, &done
				j.task.Init(func(w *forkjoin.Worker, t *forkjoin.Task) {
					j.out = j.in * j.in
					if j.left.Add(-1) == 0 { // the last one signals
						j.done.Complete()
					}
				})
				w.Push(&j.task)
			}
			w.Wait(&done) // runs pushed tasks (and others) until done
		})
		for i := range jobs {
			fmt.Print(jobs[i].out, " ")
		}
		fmt.Println(done.Done())
	})
	// Output: 0 1 4 9 16 true
}

func ExampleWorker_Parallelism() {
	pool.With(3, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			fmt.Println(w.Parallelism(), w.Index() >= 0)
		})
	})
	// Output: 3 true
}

func ExampleWorker_Context() {
	type requestID struct{}
	ctx := context.WithValue(context.Background(), requestID{}, "r-17")
	pool.With(2, func(p *pool.Pool) {
		_ = forkjoin.RunCtx(ctx, p, func(w *forkjoin.Worker) error {
			forkjoin.Join(w,
				func(w *forkjoin.Worker) { fmt.Println(w.Context().Value(requestID{})) },
				func(w *forkjoin.Worker) {})
			return nil
		})
	})
	// Output: r-17
}

func ExampleWorker_Cancelled() {
	pool.With(2, func(p *pool.Pool) {
		ctx, cancel := context.WithCancel(context.Background())
		err := forkjoin.RunCtx(ctx, p, func(w *forkjoin.Worker) error {
			cancel()
			for !w.Cancelled() { // a long callback polls and returns early
			}
			return nil
		})
		fmt.Println(err)
	})
	// Output: context canceled
}

func ExampleWorker_Cancel() {
	errEnough := errors.New("enough")
	pool.With(2, func(p *pool.Pool) {
		err := forkjoin.RunCtx(context.Background(), p, func(w *forkjoin.Worker) error {
			w.Cancel(errEnough) // the run's forks unwind from now on
			return nil
		})
		fmt.Println(err)
	})
	// Output: enough
}

func ExampleWorker_Abort() {
	errFound := errors.New("found a leaf") // ends the search: not a failure
	var find func(w *forkjoin.Worker, n *Node)
	find = func(w *forkjoin.Worker, n *Node) {
		if n == nil {
			return
		}
		if n.Left == nil && n.Right == nil {
			w.Abort(errFound) // unwinds this task's frames and stops the others
		}
		forkjoin.Join(w, func(w *forkjoin.Worker) { find(w, n.Left) }, func(w *forkjoin.Worker) { find(w, n.Right) })
	}
	pool.With(2, func(p *pool.Pool) {
		err := forkjoin.RunCtx(context.Background(), p, func(w *forkjoin.Worker) error {
			find(w, tree(8))
			return nil
		})
		fmt.Println(err, errors.Is(err, errFound))
	})
	// Output: found a leaf true
}

func ExampleWorker_RecordPanic() {
	pool.With(2, func(p *pool.Pool) {
		err := forkjoin.RunCtx(context.Background(), p, func(w *forkjoin.Worker) error {
			func() {
				defer func() {
					if v := recover(); v != nil {
						w.RecordPanic(v) // on record first …
						// … then clean up; the run fails with the panic
					}
				}()
				panic("bad input")
			}()
			return nil
		})
		fmt.Println(err)
	})
	// Output: panic: bad input
}

func ExampleWorker_WorkRequested() {
	const n = 1000
	type piece struct {
		task forkjoin.Task
		lo   int
	}
	var total atomic.Int64
	var done forkjoin.Completion
	var left atomic.Int32
	left.Store(n / 10)
	add := func(lo int) {
		for i := lo; i < lo+10; i++ {
			total.Add(int64(i))
		}
		if left.Add(-1) == 0 {
			done.Complete()
		}
	}
	pieces := make([]piece, n/10)
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			for k := range pieces {
				if w.WorkRequested() { // somebody is idle: hand this piece over
					pc := &pieces[k]
					pc.lo = 10 * k
					pc.task.Init(func(*forkjoin.Worker, *forkjoin.Task) { add(pc.lo) })
					w.Push(&pc.task)
					continue
				}
				add(10 * k)
			}
			w.Wait(&done)
		})
	})
	fmt.Println(total.Load())
	// Output: 499500
}

func ExampleWorker_RequestPending() {
	var x uint64 = 1
	var half atomic.Int64
	var done forkjoin.Completion
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			// First a chain of steps, each needing the one before: nothing
			// to hand over. After one search that found nothing while the
			// request still stands, skip the search until there is
			// something (here the search is trivial; in a walk it scans).
			searched := false
			for range 100_000 {
				if w.WorkRequested() && !searched {
					searched = w.RequestPending() // nothing found to give
				}
				x = x*6364136223846793005 + 1442695040888963407
			}
			// Then two independent halves: one can be handed over.
			other := func() {
				half.Store(int64(x % 1000))
				done.Complete()
			}
			var t forkjoin.Task
			t.Init(func(*forkjoin.Worker, *forkjoin.Task) { other() })
			if w.WorkRequested() {
				w.Push(&t) // a participant is still waiting for it
			} else {
				other()
			}
			mine := int64(x % 100)
			w.Wait(&done)
			fmt.Println(mine + half.Load())
		})
	})
	// Output: 422
}

func ExamplePanicError() {
	pool.With(2, func(p *pool.Pool) {
		err := forkjoin.RunCtx(context.Background(), p, func(w *forkjoin.Worker) error {
			forkjoin.Join(w, func(*forkjoin.Worker) {}, func(*forkjoin.Worker) {
				panic(fmt.Errorf("wrapped: %w", io.ErrUnexpectedEOF))
			})
			return nil
		})
		var pe *forkjoin.PanicError
		fmt.Println(errors.As(err, &pe), len(pe.Stack) > 0)
		fmt.Println(errors.Is(err, io.ErrUnexpectedEOF)) // Unwrap reaches an error value
	})
	// Output:
	// true true
	// true
}
