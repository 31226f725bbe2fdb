package forkjoin

// Families: which spawned tasks a waiting participant may run.
//
// A participant that waits (for the stolen half of a join, or in the Wait
// of a Scope, a Group, a Handle or a Graph) runs other tasks on its own
// stack meanwhile, and cannot go on until the task it picked returns. Go
// code blocks as a matter of course: a task may wait on a channel, a
// context or a WaitGroup for something that only the code after the
// waiter's wait will do. Run underneath that waiter, such a task never
// returns, and neither does the wait: no number of extra goroutines can
// break that hang, because the frame that would release the task lies
// under it on the same stack.
//
// So a waiter runs only work its own wait depends on:
//
//   - forks (the published halves of typed forks, Join, For, Reduce and
//     the folds) and the intrusive Tasks the walks push: computations of a
//     run, whose functions must not wait for code outside their run (the
//     contract of Fork and Join);
//   - the spawned tasks of its own family: for the Wait of a Scope or a
//     Group, that scope's tasks and the tasks of every scope or group made
//     inside them, transitively; for a Handle's Join, its task and what
//     that task spawns; for a Graph's Run, its nodes.
//
// Every other spawned task is left to the participants at their top level,
// with nothing of their own below it: the pool's workers and, when those
// are all held up, compensating goroutines (compensate.go). Close's drain
// waits at its top level and may run anything.
//
// A family is a node of a tree: each Scope, Group, Handle and Graph has
// one, whose parent is the family of the task that made it (the run of the
// Worker a Scope is made with; the Group found in the context a Group is
// made from). A spawned task belongs to its maker's family through its run
// (runState.fam), and so do the forks it makes, which run under the same
// run wherever they are stolen to. A family is set before any task of it
// is queued and does not change while one may be read (a Graph's is set
// again at each Run, after the last one is over), so the walk up a chain
// reads no field that anyone writes meanwhile.

import "context"

// family is a Scope's, Group's, Handle's or Graph's place in the tree of
// families (see the file comment).
type family struct {
	parent *family
	scope  *Spawner // the Scope's or Group's Spawner this family is of, nil for a Handle's or Graph's
	depth  int32    // parent's depth + 1; 0 for a family with no parent
}

// famAny, as the family a look may take from, lets it take every spawned
// task: for a participant at its top level (a pool worker, a compensating
// goroutine, Close's drain).
var famAny = &family{depth: -1}

// init makes f a child of parent (nil for a family with no parent).
func (f *family) init(parent *family) {
	f.parent, f.scope = parent, nil
	if parent != nil {
		f.depth = parent.depth + 1
	} else {
		f.depth = 0
	}
}

// within reports whether f is anc or one of its descendants. A nil f (a
// task of no family) is within no family but famAny.
func (f *family) within(anc *family) bool {
	if anc == famAny {
		return true
	}
	if anc == nil {
		return false
	}
	for ; f != nil && f.depth >= anc.depth; f = f.parent {
		if f == anc {
			return true
		}
	}
	return false
}

// familyIn returns the family of the Group whose context ctx is or is
// derived from, if that Group is on the scheduler s: the parent of a Group,
// Handle or Graph made with ctx. nil if there is none.
func familyIn(ctx context.Context, s *scheduler) *family {
	if ctx == nil {
		return nil
	}
	if g, ok := ctx.Value(groupKey{}).(*Group); ok && g.sp.sched == s {
		return &g.sp.fam
	}
	return nil
}

// familyOf returns the family of the task w runs now: the parent of a
// Scope made with w. nil for a Run's root and its forks.
func familyOf(w *Worker) *family {
	if w.run == nil {
		return nil
	}
	return w.run.fam
}

// mayRun reports whether a look that may take the spawned tasks of family
// fam (famAny, a family, or nil for none) may run t: a fork or a pushed
// intrusive Task always, a spawned task only if it is of fam's family.
// Spawned tasks are those with an after callback (spawn.go).
func mayRun(t *task, fam *family) bool {
	if t.after == nil || fam == famAny {
		return true
	}
	return (*spawnTask)(taskPointer(t)).rs.fam.within(fam)
}
