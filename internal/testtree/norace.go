//go:build !race

package testtree

// Race reports whether the race detector is on.
const Race = false

// BigBinary is the size of the big binary tree of the test suites: smaller
// under the race detector, which slows the walk by an order of magnitude.
const BigBinary = 10_000_000
