package forkjoin_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

// crashEnv makes the test binary, run again as a child, crash the way a
// user's program would: a panic in a task that nobody recovers.
const crashEnv = "FORKJOIN_TEST_CRASH"

// crashChild, called first by TestMain, is the child's program.
func crashChild() {
	if os.Getenv(crashEnv) == "nil-map" {
		pool.With(2, func(p *pool.Pool) {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Join(w, func(*forkjoin.Worker) {}, crashingTaskWritesNilMap)
			})
		})
		os.Exit(0) // not reached: Run re-raises the panic
	}
}

var crashMap map[string]int

func crashingTaskWritesNilMap(*forkjoin.Worker) {
	crashMap["x"]++ // a nil map
}

// TestCrashReportShowsOrigin runs a program whose task panics, unrecovered,
// and reads its crash report: the original message once, no doubled
// "panic: panic:", and the frame of the function that panicked.
func TestCrashReportShowsOrigin(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashEnv+"=nil-map")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child did not crash:\n%s", out)
	}
	report := string(out)
	if n := strings.Count(report, "assignment to entry in nil map"); n != 1 {
		t.Errorf("the original message appears %d times, want once:\n%s", n, report)
	}
	if strings.Contains(report, "panic: panic:") {
		t.Errorf("the report doubles \"panic:\":\n%s", report)
	}
	if !strings.Contains(report, "crashingTaskWritesNilMap") {
		t.Errorf("the report does not show the frame that panicked:\n%s", report)
	}
}
