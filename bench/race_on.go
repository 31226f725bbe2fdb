//go:build race

package main

// raceEnabled is true in a build with the race detector, where every memory
// access is instrumented; the "tiny" mode of the tests shrinks its heaviest
// shapes then (see tinyTreeLevels). Assertions are never skipped.
const raceEnabled = true
