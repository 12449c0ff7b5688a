package certificate_test

import (
	"slices"
	"syscall"
	"testing"
	"time"

	"learngate/certificate"
)

// BenchmarkRender renders the certificate of each script as the worker
// does (compressed) and reports, besides the mean, the median time of one
// render (p50-ms) and the CPU time a render takes, garbage collection
// included (cpu-ms/op). docs/performance.md, "Certificate rendering":
//
//	go test ./certificate -run '^$' -bench BenchmarkRender -count 5
func BenchmarkRender(b *testing.B) {
	for _, name := range []string{"latin-english", "devanagari-hindi", "japanese", "thai", "hangul-korean"} {
		i := slices.IndexFunc(scripts, func(s script) bool { return s.name == name })
		s := scripts[i]
		d := sample(s.learner, s.lang)
		d.Title = s.title
		b.Run(name, func(b *testing.B) {
			if _, err := certificate.Render(d, certificate.Options{}); err != nil { // fonts parsed once per process
				b.Fatal(err)
			}
			took := make([]time.Duration, 0, b.N)
			cpu := cpuTime()
			for b.Loop() {
				start := time.Now()
				if _, err := certificate.Render(d, certificate.Options{}); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			cpu = cpuTime() - cpu
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(took)), "cpu-ms/op")
		})
	}
}

// cpuTime is the CPU time (user and system) the process has used so far:
// on a machine shared with other work it varies less than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru) // cannot fail for RUSAGE_SELF
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
