// Package leakcheck finds goroutines that a test left running.
//
// Register it first thing in a test:
//
//	func TestSomething(t *testing.T) {
//		leakcheck.Check(t)
//		...
//	}
//
// Check records which goroutines are running when it is called and, when
// the test (with its subtests) has finished, polls until every goroutine
// started since has finished. Goroutines that are on their way out — a
// worker that has been joined through a WaitGroup but has not yet returned
// from its function — are given up to Timeout to finish; the poll yields
// and waits a little between reads, and it stops as soon as they are gone,
// so a clean test pays nothing noticeable. If some are still running at the
// deadline, the test fails with their stacks and a dump of every
// goroutine. Goroutines are told apart by id rather than counted, so one
// that was already exiting when the test began cannot mask a leak.
//
// Every goroutine of the process is looked at, so Check must not be used
// in a test that runs in parallel with others (t.Parallel): their
// goroutines would be taken for leaks. Subtests of a checked test may be
// parallel, because cleanups run after the subtests have finished.
//
// Snapshot and Baseline.Verify do the same without a testing.TB, for code
// that wants the error itself.
package leakcheck
