//go:build race

package dispatch_test

// raceEnabled scales stress loops down under the race detector, which
// slows synchronisation-heavy code by an order of magnitude or more.
const raceEnabled = true
