//go:build !race

package deque

// Sizes of the stress tests without the race detector; race_test.go has
// the smaller ones used under -race, which slows this code ~10-20×. The
// assertions are the same.
const (
	stressElements = 1_000_000 // elements pushed in each many-thieves test
	stressThieves  = 8
)
