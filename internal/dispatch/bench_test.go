package dispatch_test

import (
	"testing"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/dispatch"
)

// BenchmarkEventCountNotifyOne: a notify with nobody waiting, the common
// case for a busy pool. It should cost one atomic add.
func BenchmarkEventCountNotifyOne(b *testing.B) {
	var ec dispatch.EventCount
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ec.NotifyOne()
	}
}

func BenchmarkEventCountNotifyAll(b *testing.B) {
	var ec dispatch.EventCount
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ec.NotifyAll()
	}
}

// BenchmarkEventCountPrepareWait: a Prepare and a Wait whose token is
// already stale (a notify came between), which returns without sleeping.
func BenchmarkEventCountPrepareWait(b *testing.B) {
	var ec dispatch.EventCount
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		tok := ec.Prepare()
		ec.NotifyOne()
		ec.Wait(tok)
	}
}

// BenchmarkDispatcherNoWorkers: the lifecycle's own cost (publish, body,
// seal, latch) with no worker to wake.
func BenchmarkDispatcherNoWorkers(b *testing.B) {
	var d dispatch.Dispatcher
	job := &dispatch.Job{Call: func(unsafe.Pointer, int) {}}
	body := func() {}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d.Dispatch(job, nil, body)
	}
}
