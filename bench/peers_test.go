package main

import (
	"runtime"
	"testing"
)

// Go benchmarks over the same registry and workload definitions as the
// program, for `go test -bench . ./bench/` and benchstat. Strategies that
// deadlock on nested forks are left out of the nested workloads (a benchmark
// cannot time out and go on).

func benchStrategies(b *testing.B, nested bool, has func(*Strategy) bool, run func(b *testing.B, s *Strategy, env *Env)) {
	p := runtime.GOMAXPROCS(0)
	for _, s := range strategies() {
		if !has(s) || nested && s.DeadlockProne {
			continue
		}
		b.Run(s.Name, func(b *testing.B) {
			env := &Env{P: p, Cutoff: 8}
			if s.Open != nil {
				var closeFn func()
				env.State, closeFn = s.Open(p)
				defer closeFn()
			}
			b.ReportAllocs()
			run(b, s, env)
		})
	}
}

func BenchmarkTreeSum16(b *testing.B) {
	root, want := BuildTree(16)
	benchStrategies(b, true, func(s *Strategy) bool { return s.TreeSum != nil }, func(b *testing.B, s *Strategy, env *Env) {
		for i := 0; i < b.N; i++ {
			if s.TreeSum(env, root) != want {
				b.Fatal("wrong sum")
			}
		}
	})
}

func BenchmarkFib20(b *testing.B) {
	want := fibIter(20)
	benchStrategies(b, true, func(s *Strategy) bool { return s.Fib != nil }, func(b *testing.B, s *Strategy, env *Env) {
		for i := 0; i < b.N; i++ {
			if s.Fib(env, 20) != want {
				b.Fatal("wrong fib")
			}
		}
	})
}

func BenchmarkTinyRun10(b *testing.B) {
	p := &FoldProblem{Shape: ShapeBalanced, N: 10, BF: 2}
	want := foldIter(p)
	benchStrategies(b, true, func(s *Strategy) bool { return s.Fold != nil }, func(b *testing.B, s *Strategy, env *Env) {
		for i := 0; i < b.N; i++ {
			if s.Fold(env, p) != want {
				b.Fatal("wrong fold")
			}
		}
	})
}

func BenchmarkManySmallTasks(b *testing.B) {
	ts := &TaskSet{Count: 2000, Base: 2000, Seed: 1}
	want := tasksSeq(ts)
	benchStrategies(b, false, func(s *Strategy) bool { return s.Tasks != nil }, func(b *testing.B, s *Strategy, env *Env) {
		for i := 0; i < b.N; i++ {
			if s.Tasks(env, ts) != want {
				b.Fatal("wrong tasks")
			}
		}
	})
}

// BenchmarkBlock1000: the blocking workload, 1000 tasks, on every strategy
// that is not a bounded pool (those deadlock on it).
func BenchmarkBlock1000(b *testing.B) {
	bp := &BlockProblem{N: 1000}
	benchStrategies(b, false, func(s *Strategy) bool { return s.Block != nil && !s.Bounded }, func(b *testing.B, s *Strategy, env *Env) {
		for i := 0; i < b.N; i++ {
			if s.Block(env, bp) != uint64(bp.N) {
				b.Fatal("wrong outcome")
			}
		}
	})
}
