package pool_test

import (
	"reflect"
	"testing"

	"github.com/forkjoin-go/forkjoin/pool"
)

// TestLayerPlumbingNotExported: what the layers built on a pool use of it
// (the methods of internal/poolcore.Pool, which pool.Pool is defined over)
// is not part of pool.Pool's method set.
func TestLayerPlumbingNotExported(t *testing.T) {
	typ := reflect.TypeFor[*pool.Pool]()
	for _, name := range []string{"Dispatch", "Pin", "Unpin", "CountRun", "WakeOne", "Attach", "LIFOSlot", "Counters", "Attachments", "ParkedWorkers", "TotalParks"} {
		if _, ok := typ.MethodByName(name); ok {
			t.Errorf("*pool.Pool exports %s, which only the layers above use (internal/poolcore)", name)
		}
	}
}
