package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var want Report
	for _, p := range []int{1, 2, 4} {
		rep, err := Run(p, 60)
		if err != nil {
			t.Fatalf("p=%d: %v", p, err)
		}
		if rep.Spawned != 58 || rep.Canceled != 1 || rep.Panicked != 1 {
			t.Fatalf("p=%d: %+v", p, rep)
		}
		if rep.ScopeTasks != 2*60-1 {
			t.Fatalf("p=%d: scope ran %d tasks, want %d", p, rep.ScopeTasks, 2*60-1)
		}
		if rep.GroupErr != "check 4 failed" {
			t.Fatalf("p=%d: the group returned %q, want its one failure", p, rep.GroupErr)
		}
		if !rep.GraphOrderOK {
			t.Fatalf("p=%d: link ran before its inputs", p)
		}
		if p == 1 {
			want = rep
		} else if rep != want {
			t.Fatalf("p=%d: %+v, want the same as at p=1: %+v", p, rep, want)
		}
	}
	var out bytes.Buffer
	Print(&out, want)
	if !strings.Contains(out.String(), "58 ok, 1 canceled before start, 1 panicked") {
		t.Fatalf("output:\n%s", out.String())
	}
}
