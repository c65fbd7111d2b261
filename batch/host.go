package batch

import (
	"fmt"
	"os"
	"strconv"
)

// where names this process's machine, and its Slurm job and task if any.
func where() string {
	host, _ := os.Hostname()
	if id := os.Getenv("SLURM_ARRAY_JOB_ID"); id != "" {
		return fmt.Sprintf("%s, Slurm job %s task %s", host, id, os.Getenv("SLURM_ARRAY_TASK_ID"))
	}
	if id := os.Getenv("SLURM_JOB_ID"); id != "" {
		return fmt.Sprintf("%s, Slurm job %s", host, id)
	}
	return host
}

// allocatedCPUs is how many CPUs Slurm gave this task (which it does not
// enforce without cgroups), or 0: all of the machine's.
func allocatedCPUs() int {
	for _, v := range []string{"SLURM_CPUS_PER_TASK", "SLURM_CPUS_ON_NODE"} {
		if n, err := strconv.Atoi(os.Getenv(v)); err == nil && n > 0 {
			return n
		}
	}
	return 0
}
