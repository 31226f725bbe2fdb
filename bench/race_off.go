//go:build !race

package main

// raceEnabled is false in a build without the race detector (see race_on.go).
const raceEnabled = false
