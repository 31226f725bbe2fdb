package fold

import (
	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/tree"
)

// RunOn and RunErrOn are what Run, RunCtx and RunErr do inside their run,
// for the tests that need the run's Worker while the fold runs.
func RunOn[N, H, R any](w *forkjoin.Worker, f Fold[N, H, R], g tree.Treeish[N], root N) R {
	return runOn(w, f, g, root)
}

func RunErrOn[N, H, R any](w *forkjoin.Worker, f FoldErr[N, H, R], g tree.Treeish[N], root N) R {
	return runErrOn(w, f, g, root)
}
