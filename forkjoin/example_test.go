package forkjoin_test

import (
	"context"
	"errors"
	"fmt"

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
