package forkjoin_test

import (
	"context"
	"errors"
	"fmt"
	"io"

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

var sum = forkjoin.NewFork(func(f *forkjoin.Fork[*Node, int64], w *forkjoin.Worker, n *Node) int64 {
	if n == nil {
		return 0
	}
	l, r := f.Join(w, n.Left, n.Right)
	return n.Value + l + r
})

func ExampleNewFork() {
	root := tree(10)
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			fmt.Println(sum.Call(w, root))
		})
	})
	// Output: 2036
}

func ExampleFork_Start() {
	square := forkjoin.NewFork(func(_ *forkjoin.Fork[int, int], w *forkjoin.Worker, x int) int { return x * x })
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			var futures [4]forkjoin.Future[int, int]
			for i := range futures {
				futures[i] = square.Start(w, i+1)
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
// half is the recursion's own call. With a pointer argument, Start and
// Future.Join are inlined into it: the cheapest fork there is.
// It receives its own Fork as f, so it needs no package variable: NewFork
// can be called where the run starts.
func sumRec(f *forkjoin.Fork[*Node, int64], w *forkjoin.Worker, n *Node) int64 {
	if n == nil {
		return 0
	}
	right := f.Start(w, n.Right) // another worker may take it
	left := sumRec(f, w, n.Left)
	return n.Value + left + right.Join(w)
}

func ExampleFork_Start_recursion() {
	root := tree(10)
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			fmt.Println(forkjoin.NewFork(sumRec).Call(w, root))
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
	fib = forkjoin.NewFork(func(f *forkjoin.Fork[int, int], w *forkjoin.Worker, n int) int {
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
	double := forkjoin.NewFork(func(_ *forkjoin.Fork[int, int], w *forkjoin.Worker, x int) int { return 2 * x })
	pool.With(1, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			fmt.Println(double.Call(w, 21)) // a plain call: no fork
		})
	})
	// Output: 42
}

func ExampleFuture_Join() {
	length := forkjoin.NewFork(func(_ *forkjoin.Fork[string, int], w *forkjoin.Worker, s string) int { return len(s) })
	words := []string{"work", "stealing", "in", "Go"}
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			futures := make([]forkjoin.Future[string, int], len(words))
			for i, s := range words {
				futures[i] = length.Start(w, s)
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

func ExampleWorker_Canceled() {
	pool.With(2, func(p *pool.Pool) {
		ctx, cancel := context.WithCancel(context.Background())
		err := forkjoin.RunCtx(ctx, p, func(w *forkjoin.Worker) error {
			cancel()
			for !w.Canceled() { // a long callback polls and returns early
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
		fmt.Println(errors.Is(err, context.Canceled))    // a panic is never a cancellation
	})
	// Output:
	// true true
	// true
	// false
}

// IsPanic tells a failure by panic from an error a callback returned.
// fold's and tree's runs fail with the same *PanicError, so IsPanic answers
// for them too.
func ExampleIsPanic() {
	pool.With(2, func(p *pool.Pool) {
		grp, _ := forkjoin.NewGroup(context.Background(), p)
		grp.Go(func() error { return io.ErrUnexpectedEOF })
		fmt.Println(forkjoin.IsPanic(grp.Wait()))

		grp, _ = forkjoin.NewGroup(context.Background(), p)
		grp.Go(func() error { panic("bad input") })
		fmt.Println(forkjoin.IsPanic(grp.Wait()))
	})
	// Output:
	// false
	// true
}
