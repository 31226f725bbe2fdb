//go:build !race

package forkjoin

// raceChecks: see misuse.go.
const raceChecks = false
