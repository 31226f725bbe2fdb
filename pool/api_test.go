package pool_test

import (
	"reflect"
	"testing"

	"github.com/forkjoin-go/forkjoin/pool"
)

// TestLayerPlumbingNotExported: what the layers built on a pool use of it
// (internal/poolcore) is not part of Pool's method set.
func TestLayerPlumbingNotExported(t *testing.T) {
	typ := reflect.TypeFor[*pool.Pool]()
	for _, name := range []string{"Dispatch", "Pin", "Unpin", "CountRun", "WakeOne", "Attach"} {
		if _, ok := typ.MethodByName(name); ok {
			t.Errorf("*pool.Pool exports %s, which only the layers above use (internal/poolcore)", name)
		}
	}
}
