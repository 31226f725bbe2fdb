package dispatch_test

import (
	"reflect"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/dispatch"
)

// TestTestOnlyMethodsNotExported: the Dispatcher's snapshots that only
// tests read are not part of its method set.
func TestTestOnlyMethodsNotExported(t *testing.T) {
	typ := reflect.TypeFor[*dispatch.Dispatcher]()
	for _, name := range []string{"Published", "InJob"} {
		if _, ok := typ.MethodByName(name); ok {
			t.Errorf("*dispatch.Dispatcher exports %s, which only tests use (export_test.go)", name)
		}
	}
}
