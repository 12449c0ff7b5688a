package certificate_test

import (
	"slices"
	"testing"
	"time"

	"learngate/certificate"
)

// BenchmarkRender renders the certificate of each script as the worker
// does (compressed) and reports, besides the mean, the median time of one
// render (p50-ms). docs/performance.md, "Certificate rendering":
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
			for b.Loop() {
				start := time.Now()
				if _, err := certificate.Render(d, certificate.Options{}); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
