module github.com/forkjoin-go/forkjoin

go 1.23

require (
	github.com/alitto/pond/v2 v2.7.1 // indirect
	github.com/klauspost/cpuid/v2 v2.3.0 // indirect
	github.com/panjf2000/ants/v2 v2.12.1 // indirect
	github.com/sourcegraph/conc v0.3.0 // indirect
	golang.org/x/sync v0.11.0 // indirect
	golang.org/x/sys v0.30.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)
