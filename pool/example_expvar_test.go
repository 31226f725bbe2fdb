package pool_test

import (
	"encoding/json"
	"expvar"
	"fmt"

	"github.com/forkjoin-go/forkjoin/pool"
)

// pools is where a service publishes its pools' counters with expvar: a
// map named "forkjoin" among the variables that expvar serves, as JSON,
// at /debug/vars of the program's HTTP server (importing expvar registers
// that handler on http.DefaultServeMux). Made once, at package level.
var pools = expvar.NewMap("forkjoin")

// A service exports its pool's counters with expvar: each request for
// /debug/vars reads a fresh Stats snapshot, without stopping the pool.
// Runs, Tasks and Steals count work; Parks, Wakeups, WorkersParked and
// ParkedTime idleness; CompensatorsStarted the goroutines added while
// tasks blocked.
func Example_expvar() {
	p := pool.New(4)
	defer p.Close()
	pools.Set("main", expvar.Func(func() any { return p.Stats() }))

	sumOfSquares(p, 1000)

	// What /debug/vars serves under "forkjoin", decoded again.
	var vars map[string]pool.Stats
	if err := json.Unmarshal([]byte(pools.String()), &vars); err != nil {
		panic(err)
	}
	st := vars["main"]
	fmt.Println("parallelism:", st.Parallelism)
	fmt.Println("runs:", st.Runs)
	fmt.Println("compensators started:", st.CompensatorsStarted)
	// Output:
	// parallelism: 4
	// runs: 1
	// compensators started: 0
}
