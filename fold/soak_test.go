package fold_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// soakDuration is how long TestSoak runs, with and without -race.
const soakDuration = 20 * time.Second

// soak kinds: each goroutine of TestSoak picks one at random per round.
const (
	soakFold = iota
	soakDAG
	soakCancel
	soakPanic
	soakFork
	soakSpawn
	soakKinds
)

var soakNames = [soakKinds]string{"fold", "DAG fold", "cancellation", "panic", "fork", "spawn"}

var soakFib = forkjoin.NewFork(soakFibFn)

func soakFibFn(f *forkjoin.Fork[int, int], w *forkjoin.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := f.Join(w, n-1, n-2)
	return a + b
}

func soakSeqFib(n int) int {
	if n < 2 {
		return n
	}
	return soakSeqFib(n-1) + soakSeqFib(n-2)
}

// soakDAGOf is a DAG on 0..n-1 with heavy sharing: i's children are i+1
// and i+2.
func soakDAGOf(n int) tree.Treeish[int] {
	return tree.FromFunc(func(i int, yield func(int) bool) {
		for c := i + 1; c <= i+2 && c < n; c++ {
			if !yield(c) {
				return
			}
		}
	})
}

type soakPanicValue struct{ at int }

// TestSoak: 64 goroutines run a mix of folds, DAG folds, canceled folds,
// folds that panic, fork-join recursion and spawned tasks on one pool of
// parallelism 2 for soakDuration, checking every result against the
// sequential answer; every kind must have run, no result may be wrong, and
// no goroutine may be left.
func TestSoak(t *testing.T) {
	testcheck.Long(t)
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	sum := fold.New(func(i int) int64 { return int64(i) }, func(h *int64, c int64) { *h += c }, func(h *int64) int64 { return *h })
	const dagN = 300
	wantDAG, err := fold.SeqDAG(sum, soakDAGOf(dagN), 0, func(i int) int { return i })
	if err != nil {
		t.Fatal(err)
	}
	var ran [soakKinds]atomic.Int64
	var wrong atomic.Int64
	var firstWrong sync.Once
	bad := func(format string, args ...any) {
		wrong.Add(1)
		firstWrong.Do(func() { t.Errorf(format, args...) })
	}
	deadline := time.Now().Add(soakDuration)
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 26))
			for time.Now().Before(deadline) {
				k := r.IntN(soakKinds)
				n := 1 + r.IntN(2000)
				switch k {
				case soakFold:
					if got := fold.Run(p, sum, testtree.Binary(n), 0); got != testtree.SumTo(n) {
						bad("fold of %d nodes = %d, want %d", n, got, testtree.SumTo(n))
					}
				case soakDAG:
					got, err := fold.RunDAG(context.Background(), p, sum, soakDAGOf(dagN), 0, func(i int) int { return i })
					if err != nil || got != wantDAG {
						bad("DAG fold = %d, %v; want %d", got, err, wantDAG)
					}
				case soakCancel:
					ctx, cancel := context.WithCancel(context.Background())
					at := r.IntN(n)
					cf := fold.New(func(i int) int64 {
						if i == at {
							cancel()
						}
						return int64(i)
					}, func(h *int64, c int64) { *h += c }, func(h *int64) int64 { return *h })
					if _, err := fold.RunCtx(ctx, p, cf, testtree.Binary(n), 0); !errors.Is(err, context.Canceled) {
						bad("fold canceled at node %d of %d: err = %v, want context.Canceled", at, n, err)
					}
					cancel()
				case soakPanic:
					at := r.IntN(n)
					pf := fold.New(func(i int) int64 {
						if i == at {
							panic(soakPanicValue{at})
						}
						return int64(i)
					}, func(h *int64, c int64) { *h += c }, func(h *int64) int64 { return *h })
					v := func() (v any) {
						defer func() { v = recover() }()
						fold.Run(p, pf, testtree.Binary(n), 0)
						return nil
					}()
					var pe *forkjoin.PanicError
					if err, ok := v.(error); !ok || !errors.As(err, &pe) || pe.Value != (soakPanicValue{at}) {
						bad("fold panicking at node %d: recovered %v", at, v)
					}
				case soakFork:
					m := 10 + r.IntN(12)
					var got int
					forkjoin.Run(p, func(w *forkjoin.Worker) { got = soakFib.Call(w, m) })
					if want := soakSeqFib(m); got != want {
						bad("fib(%d) = %d, want %d", m, got, want)
					}
				case soakSpawn:
					var count atomic.Int64
					h := forkjoin.Spawn(p, func(w *forkjoin.Worker) (int, error) {
						forkjoin.Scope(w, func(s *forkjoin.Spawner) {
							for range n % 64 {
								s.Spawn(w, func(*forkjoin.Worker) { count.Add(1) })
							}
						})
						return int(count.Load()), nil
					})
					if got, err := h.Join(); err != nil || got != n%64 {
						bad("spawn of %d tasks: %d, %v", n%64, got, err)
					}
				}
				ran[k].Add(1)
			}
		}()
	}
	wg.Wait()
	var counts string
	for k := range soakKinds {
		counts += fmt.Sprintf(" %s %d", soakNames[k], ran[k].Load())
		if ran[k].Load() == 0 {
			t.Errorf("no %s ran", soakNames[k])
		}
	}
	t.Logf("ran:%s", counts)
	if w := wrong.Load(); w != 0 {
		t.Fatalf("%d wrong results", w)
	}
}
