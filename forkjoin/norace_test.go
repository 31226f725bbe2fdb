//go:build !race

package forkjoin

// Sizes of the stress tests without the race detector. race_test.go has
// the smaller ones used under -race, which slows this code ~10-20×; the
// assertions are the same.
const (
	raceEnabled = false

	concurrentCallers = 8     // goroutines calling Run at once on one pool
	runsPerCaller     = 1_000 // Runs per goroutine
	panicRounds       = 1_000 // runs with injected panics, reusing one pool
	cancelRounds      = 40    // runs canceled at a random moment
	bigDepth          = 18    // depth of the big tree of the stats test
	fibMax            = 22    // largest n of the fib property
	forMax            = 50_000
	chainLength       = 200_000 // nodes of the chain test
)
