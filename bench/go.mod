module github.com/forkjoin-go/forkjoin/bench

go 1.26.0

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/forkjoin-go/forkjoin v0.0.0
	github.com/klauspost/cpuid/v2 v2.3.0
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/sourcegraph/conc v0.3.0
	golang.org/x/sync v0.24.0
)

require (
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	golang.org/x/exp v0.0.0-20261113113407-e3970619a1a4 // indirect
	golang.org/x/sys v0.30.0 // indirect
)

// The bench measures the library of this repository.
replace github.com/forkjoin-go/forkjoin => ../
