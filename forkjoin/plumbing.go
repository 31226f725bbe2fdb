package forkjoin

import "github.com/forkjoin-go/forkjoin/internal/core"

// The operations on a Worker that the packages built on the core use
// (internal/walk, fold) and users do not call: see package internal/core.
func init() {
	core.Register(core.Worker[Worker]{
		Wait:           (*Worker).wait,
		PollWord:       func(w *Worker) *uintptr { return &w.limit },
		Requested:      (*Worker).requested,
		RequestPending: (*Worker).requestPending,
		RecordPanic:    (*Worker).recordPanic,
		Local:          (*Worker).local,
	}, (*Worker).push)
}
