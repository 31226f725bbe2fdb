module github.com/forkjoin-go/forkjoin

go 1.23

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/klauspost/cpuid/v2 v2.3.0
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/sourcegraph/conc v0.3.0
	golang.org/x/sync v0.11.0
	pgregory.net/rapid v1.3.0
)

require (
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	golang.org/x/sys v0.30.0 // indirect
)
