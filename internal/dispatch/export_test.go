package dispatch

// Published reports the job that Serve would call now, or nil.
func Published(d *Dispatcher) *Job { return d.job.Load() }

// InJob reports how many workers are inside a job now (a snapshot).
func InJob(d *Dispatcher) int { return int(d.inJob.Load()) }
