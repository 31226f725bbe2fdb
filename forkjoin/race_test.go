//go:build race

package forkjoin

// Sizes of the stress tests under the race detector: the same assertions
// as norace_test.go on less data, so that `go test -race ./forkjoin` stays
// within a few minutes on two cores.
const (
	raceEnabled = true

	concurrentCallers = 8
	runsPerCaller     = 400
	panicRounds       = 500
	cancelRounds      = 20
	bigDepth          = 16
	fibMax            = 18
	forMax            = 10_000
	chainLength       = 20_000
)
