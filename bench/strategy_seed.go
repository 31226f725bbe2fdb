package main

// A pool with one global queue: one mutex-guarded FIFO queue and a fixed
// set of workers (gqPool: P-1 workers plus the waiting caller, who runs its
// own group's queued tasks while it waits). With "sequential" and "go-wg"
// it makes the three baselines of the task runtime the task suite comes
// from: single-threaded, a thread per task, a global queue.
func init() {
	register(&Strategy{
		Name:   "gq-pool",
		Family: "queue",
		Desc:   "one Mutex+Cond guarded FIFO queue, P-1 fixed workers, a waiter runs its own queued children",
		Open: func(p int) (any, func()) {
			pl := newGQPool(p - 1)
			return pl, pl.close
		},
		TreeSum: func(env *Env, root *Node) int64 { return treeSumPar(gqOf(env), root) },
		Fib:     func(env *Env, n int) int64 { return fibPar(gqOf(env), n) },
		Fold:    func(env *Env, p *FoldProblem) uint64 { return foldPar(gqOf(env), p, 0) },
		Sort:    func(env *Env, a []int64) { sortPar(gqOf(env), a) },
		Tasks:   func(env *Env, ts *TaskSet) uint64 { return tasksPar(gqOf(env).scope(), ts) },
		Spawn:   func(env *Env, sp *SpawnProblem) uint64 { return spawnPar(gqOf(env).scope(), sp) },
		Chain:   func(env *Env, cp *ChainProblem) uint64 { return chainPar(gqOf(env), cp) },
	})
}

func gqOf(env *Env) *gqPool { return env.State.(*gqPool) }
