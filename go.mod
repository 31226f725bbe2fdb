module github.com/forkjoin-go/forkjoin

go 1.26.0

require (
	github.com/klauspost/cpuid/v2 v2.3.0
	golang.org/x/exp v0.0.0-20261113113407-e3970619a1a4
	pgregory.net/rapid v1.3.0
)

require golang.org/x/sys v0.30.0 // indirect
