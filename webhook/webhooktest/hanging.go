package webhooktest

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Hanging is a peer on 127.0.0.1 that accepts connections, counts them and
// never answers: an identity provider or receiver that hangs.
type Hanging struct {
	ln net.Listener
	// Accepted counts the connections accepted.
	Accepted atomic.Int64
}

// Addr is the peer's host:port.
func (h *Hanging) Addr() string { return h.ln.Addr().String() }

// NewHanging starts a hanging peer until tb ends, when it closes the
// listener and every connection it holds.
func NewHanging(tb testing.TB) *Hanging {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	h := &Hanging{ln: ln}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.Accepted.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	tb.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return h
}
