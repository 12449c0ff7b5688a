package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"learngate/bench/load"
)

// concurrencySteps are the points of the concurrency curve.
var concurrencySteps = []int{1, 2, 4, 8, 16, 32}

// concPoint is one side at one concurrency, with the CPU the processes used.
type concPoint struct {
	path, side  string
	concurrency int
	res         load.Result
	// Cores used during the step (CPU seconds per second of wall time).
	lgCPU, blCPU, pgCPU float64
}

// concurrencyCurve measures the throughput of each path at each step of
// concurrencySteps on learngate, the same-SQL baseline and the physical
// baseline (skipped when its route answers 404), reading from /proc the CPU
// time of learngate, the baseline and every postgres process meanwhile.
func concurrencyCurve(ctx context.Context, o options, lg, bl target, lgPID, blPID int) []concPoint {
	phys := bl
	phys.base += "/physical"
	var out []concPoint
	for _, path := range []string{"/papi/users?per_page=100", "/papi/topic_assignments?per_page=100"} {
		sides := []struct {
			name string
			t    target
		}{{"learngate", lg}, {"same-SQL baseline", bl}}
		if st, _, err := fetch(load.NewClient(1), phys.get(path)); err == nil && st != 404 {
			sides = append(sides, struct {
				name string
				t    target
			}{"physical baseline", phys})
		}
		for _, c := range concurrencySteps {
			client := load.NewClient(c)
			for _, side := range sides {
				before := cpuNow(lgPID, blPID)
				began := time.Now()
				res := load.Run(ctx, client, load.Config{Concurrency: c, Warmup: o.warmup / 2, Duration: o.concDuration,
					Request: side.t.get(path)})
				wall := time.Since(began).Seconds()
				lgCPU, blCPU, pgCPU := cpuNow(lgPID, blPID).since(before)
				p := concPoint{path: path, side: side.name, concurrency: c, res: res,
					lgCPU: lgCPU / wall, blCPU: blCPU / wall, pgCPU: pgCPU / wall}
				progress("concurrency: %s %s ×%d: %.0f req/s p50 %s; cores: learngate %.2f baseline %.2f postgres %.2f",
					path, side.name, c, res.RPS(), ms(res.P50), p.lgCPU, p.blCPU, p.pgCPU)
				out = append(out, p)
			}
		}
	}
	return out
}

// saturation says what the step's CPU figures show.
func (p concPoint) saturation() string {
	cores := float64(runtime.NumCPU())
	total := p.lgCPU + p.blCPU + p.pgCPU
	if total < 0.9*cores {
		return fmt.Sprintf("CPU not saturated (%.1f of %.0f cores)", total, cores)
	}
	top, name := p.pgCPU, "postgres"
	if p.lgCPU > top {
		top, name = p.lgCPU, "learngate"
	}
	if p.blCPU > top {
		name = "baseline"
	}
	return fmt.Sprintf("CPU saturated (%.1f of %.0f cores), mostly %s", total, cores, name)
}

// clockTicks is the unit of /proc/<pid>/stat's times (USER_HZ, 100 on Linux).
const clockTicks = 100

// cpuSample is the CPU seconds used so far by learngate, the baseline and
// each postgres process.
type cpuSample struct {
	lg, bl float64
	pg     map[int]float64
}

// cpuNow samples the CPU time of process lgPID, process blPID and every
// postgres process.
func cpuNow(lgPID, blPID int) cpuSample {
	s := cpuSample{pg: map[int]float64{}}
	s.lg, _ = procCPU(lgPID)
	s.bl, _ = procCPU(blPID)
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		comm, err := os.ReadFile(filepath.Join(d, "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(d))
		if v, err := procCPU(pid); err == nil {
			s.pg[pid] = v
		}
	}
	return s
}

// since is the CPU seconds used between before and s: for postgres, the
// growth of every process alive at s (all of it for one started since; a
// backend that ended meanwhile is missed).
func (s cpuSample) since(before cpuSample) (lg, bl, pg float64) {
	for pid, v := range s.pg {
		pg += v - before.pg[pid]
	}
	return s.lg - before.lg, s.bl - before.bl, pg
}

// procCPU is the user and system CPU seconds of process pid (from /proc).
func procCPU(pid int) (float64, error) {
	if pid <= 0 {
		return 0, nil
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: fields count from its ')'.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / clockTicks, nil
}
