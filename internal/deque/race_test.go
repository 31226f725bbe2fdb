//go:build race

package deque

// Sizes of the stress tests under the race detector: the same assertions
// as norace_test.go on less data.
const (
	stressElements = 200_000
	stressThieves  = 8
)
