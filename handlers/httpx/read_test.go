package httpx

import (
	"bytes"
	"io"
	"testing"
)

func TestReadAtMost(t *testing.T) {
	for _, tt := range []struct {
		name     string
		size     int
		declared int64
		maxCap   int
	}{
		{"empty", 0, 0, 512},
		{"small, undeclared", 100, -1, 512},
		{"10 MiB declared: one buffer of its size", MaxBodyBytes - 10, MaxBodyBytes - 10, MaxBodyBytes - 9},
		{"undeclared: doubling", 3000, -1, 4096},
		{"10 MiB declared, 1 KiB sent", 1024, MaxBodyBytes, 2048},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := bytes.Repeat([]byte("x"), tt.size)
			got, err := readAtMost(iotestHalfReader{bytes.NewReader(data)}, tt.declared)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("read %d bytes, err %v; want %d", len(got), err, tt.size)
			}
			if cap(got) > tt.maxCap {
				t.Fatalf("buffer of %d bytes for %d read, want at most %d", cap(got), tt.size, tt.maxCap)
			}
		})
	}
}

// iotestHalfReader reads at most 1000 bytes at a time, as a network does.
type iotestHalfReader struct{ r io.Reader }

func (h iotestHalfReader) Read(p []byte) (int, error) {
	return h.r.Read(p[:min(len(p), 1000)])
}
