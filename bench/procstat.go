package bench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of the CPU times in /proc/PID/stat: 100
// on every Linux architecture Go supports.
const clockTicks = 100

// procSample is the CPU time of a set of processes (the given ones and
// their live descendants) at one instant, and their summed resident set.
type procSample struct {
	// cpu is the CPU time of each process, by process id.
	cpu map[int]procCPU
	// rss is the sum of VmRSS, in bytes. Pages shared between the
	// processes (nginx's shared memory zones) are counted once per
	// process, as VmRSS counts them.
	rss int64
}

// procCPU is one process's CPU time, in nanoseconds, two ways.
type procCPU struct {
	// ticks is utime+stime from /proc/PID/stat, counted in clock ticks
	// (10 ms), threads that exited included. A round of a benchmark
	// uses a few hundred milliseconds, so each sample's truncation alone
	// would move a ratio by several per cent.
	ticks int64
	// threads is the run time the scheduler keeps for each live thread
	// (/proc/PID/task/TID/schedstat), by thread id, to the nanosecond;
	// nil when it could not be read whole (a kernel without schedstat).
	threads map[int]int64
}

// procStat is the part of /proc/PID/stat the sampler reads.
type procStat struct {
	ppid int
	cpu  int64
}

// readProcStat parses the contents of /proc/PID/stat. The command name
// (field 2) may hold spaces and parentheses, so fields are counted from
// the last ')'.
func readProcStat(data []byte) (procStat, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("stat %q: no command name", firstN(string(data), 60))
	}
	f := strings.Fields(string(data[i+1:]))
	// f[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
	if len(f) < 13 {
		return procStat{}, fmt.Errorf("stat: %d fields after the command name", len(f))
	}
	ppid, err1 := strconv.Atoi(f[1])
	ut, err2 := strconv.ParseInt(f[11], 10, 64)
	st, err3 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, fmt.Errorf("stat: bad numbers in %q", firstN(string(data[i+1:]), 80))
	}
	return procStat{ppid: ppid, cpu: ut + st}, nil
}

// readVmRSS returns VmRSS, in bytes, from the contents of
// /proc/PID/status (0 when absent, as for a zombie).
func readVmRSS(data []byte) int64 {
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// sampleProcs reads the CPU time and RSS of pids and of all their live
// descendants from proc (normally "/proc"). It fails when one of pids does
// not exist: the server under test has died.
func sampleProcs(proc string, pids []int) (procSample, error) {
	s := procSample{cpu: map[int]procCPU{}}
	ents, err := os.ReadDir(proc)
	if err != nil {
		return s, err
	}
	all := map[int]procStat{}
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(proc + "/" + e.Name() + "/stat")
		if err != nil {
			continue // exited since the directory was read
		}
		st, err := readProcStat(data)
		if err != nil {
			continue
		}
		all[pid] = st
		children[st.ppid] = append(children[st.ppid], pid)
	}
	queue := make([]int, 0, len(pids))
	for _, pid := range pids {
		if _, ok := all[pid]; !ok {
			return s, fmt.Errorf("process %d: not running", pid)
		}
		queue = append(queue, pid)
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if _, seen := s.cpu[pid]; seen {
			continue
		}
		pc := procCPU{ticks: all[pid].cpu * int64(time.Second/clockTicks)}
		pc.threads, _ = readThreadCPU(proc, pid, pc.ticks)
		s.cpu[pid] = pc
		if data, err := os.ReadFile(proc + "/" + strconv.Itoa(pid) + "/status"); err == nil {
			s.rss += readVmRSS(data)
		}
		queue = append(queue, children[pid]...)
	}
	return s, nil
}

// readThreadCPU reads the run time of each thread of pid, in
// nanoseconds, by thread id. It fails when pid has no task directory, a
// thread's schedstat does not parse, or every thread reads zero while
// the process's ticks (in nanoseconds) do not: a kernel that keeps no
// schedstat prints zeros. Threads that exit while it reads are skipped.
func readThreadCPU(proc string, pid int, ticks int64) (map[int]int64, error) {
	dir := proc + "/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	threads := make(map[int]int64, len(tasks))
	var sum int64
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		ns, err := readSchedstat(data)
		if err != nil {
			return nil, err
		}
		threads[tid] = ns
		sum += ns
	}
	if len(threads) == 0 {
		return nil, fmt.Errorf("%s: no thread's schedstat", dir)
	}
	if sum == 0 && ticks > 0 {
		return nil, fmt.Errorf("%s: schedstat reads zero", dir)
	}
	return threads, nil
}

// readSchedstat parses /proc/PID/task/TID/schedstat: the thread's run
// time in nanoseconds, its wait time and its count of time slices.
func readSchedstat(data []byte) (int64, error) {
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return 0, fmt.Errorf("schedstat %q: want three fields", firstN(string(data), 60))
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || ns < 0 {
		return 0, fmt.Errorf("schedstat %q: bad run time", firstN(string(data), 60))
	}
	return ns, nil
}

// cpuSince is the CPU time the processes of s used since before: for a
// process seen in both, the growth of each of its threads seen in both
// plus all of the time of its threads started since, or, when either
// sample has no thread times for it, the growth of its ticks; all of
// the time of processes started since. Threads and processes that
// exited in between are lost (Go's runtime and nginx's workers keep
// their threads).
func (s procSample) cpuSince(before procSample) time.Duration {
	var ns int64
	for pid, a := range s.cpu {
		b, seen := before.cpu[pid]
		switch {
		case !seen && a.threads != nil:
			for _, t := range a.threads {
				ns += t
			}
		case !seen:
			ns += a.ticks
		case a.threads != nil && b.threads != nil:
			for tid, t := range a.threads {
				ns += t - b.threads[tid]
			}
		default:
			ns += a.ticks - b.ticks
		}
	}
	return time.Duration(ns)
}

// readMachineCPU parses the first line of /proc/stat: the CPU time of
// every CPU of the machine spent in user, nice, system, irq and softirq
// mode, in clock ticks. Idle, iowait and steal (time another guest of
// the host had) are left out; guest time is already inside user.
func readMachineCPU(data []byte) (int64, error) {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	f := strings.Fields(string(line))
	// cpu user nice system idle iowait irq softirq steal …
	if len(f) < 8 || f[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat: first line %q", firstN(string(line), 80))
	}
	var sum int64
	for _, i := range []int{1, 2, 3, 6, 7} {
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: field %d of %q", i, firstN(string(line), 80))
		}
		sum += v
	}
	return sum, nil
}

// machineCPU is the busy CPU time of the whole machine so far (see
// readMachineCPU).
func machineCPU() (time.Duration, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	t, err := readMachineCPU(data)
	return time.Duration(t) * time.Second / clockTicks, err
}

// selfCPU is this process's CPU time so far (user and system), to the
// microsecond getrusage gives.
func selfCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
