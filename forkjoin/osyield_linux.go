package forkjoin

import "syscall"

// osYield gives up the thread's processor to another runnable thread, if
// one is queued there (sched_yield). See keepLooking for why.
func osYield() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
