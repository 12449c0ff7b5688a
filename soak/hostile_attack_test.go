//go:build slow

package soak

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	// maxBodyBytes is the largest body the node accepts (docs/decisions.md, "Bodies and hostile input").
	maxBodyBytes = 10 << 20
	// slowBodyLength is the Content-Length a slow body announces; it sends
	// one byte every slowByteEvery, at most slowBodyMaxBytes of them.
	slowBodyLength   = 200_000
	slowByteEvery    = 2 * time.Second
	slowBodyMaxBytes = 100
	// maxAttackRequests bounds each attacker connection's loop.
	maxAttackRequests = 1_000_000
)

// attackKinds are the floods; attacker connection w runs attackKinds[w % len].
var attackKinds = []string{"download", "unknown host", "wrong key", "slow body", "max-size body", "deep JSON"}

// attacker floods a node without a valid key, one connection per worker.
type attacker struct {
	t         *testing.T
	n         *node
	hosts     []string // the tenants' hosts
	bigBody   []byte   // {"people":[1,1,...]} of exactly maxBodyBytes
	deepBody  []byte   // {"people":[[[...]]]}, a million levels deep
	requests  atomic.Int64
	transport atomic.Int64 // requests that got no answer (the node may close on big bodies)

	serverErrors atomic.Int64
	slowStarted  atomic.Int64
	slowCut      atomic.Int64
	slowNotCut   atomic.Int64
	slowLongest  atomic.Int64 // longest time from a slow body's start to its cut

	mu       sync.Mutex
	statuses map[string]map[int]int // by kind, status (0: no answer)
}

// newAttacker prepares the attacker's bodies.
func newAttacker(t *testing.T, n *node, hosts []string) *attacker {
	big := make([]byte, 0, maxBodyBytes)
	big = append(big, `{"people":[`...)
	for len(big) < maxBodyBytes-len(`1]}`) {
		big = append(big, '1', ',')
	}
	big = append(big, `1]}`...)
	const depth = 1 << 20
	deep := `{"people":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + "}"
	return &attacker{t: t, n: n, hosts: hosts, bigBody: big, deepBody: []byte(deep), statuses: map[string]map[int]int{}}
}

// worker returns the attacker's worker for startLoad: it runs until stop
// is set, ctx ends or maxAttackRequests, whichever comes first.
func (a *attacker) worker(ctx context.Context, stop *atomic.Bool) func(w int) {
	return func(w int) {
		kind := attackKinds[w%len(attackKinds)]
		tr := &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1, IdleConnTimeout: 10 * time.Second}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr}
		rnd := rand.New(rand.NewPCG(uint64(w), 66))
		for i := 0; i < maxAttackRequests && !stop.Load() && ctx.Err() == nil; i++ {
			host := a.hosts[rnd.IntN(len(a.hosts))]
			key := "" // even rounds of the body floods carry no key, odd ones a wrong one
			if i%2 == 1 {
				key = garbage(rnd, 43)
			}
			switch kind {
			case "download":
				a.send(ctx, client, kind, http.MethodGet, host, "/papi/certificates/download/"+garbage(rnd, 64), "", nil)
			case "unknown host":
				// Well-formed names, so that each could name a tenant and is looked up.
				if i%2 == 0 {
					host = label(rnd, 12) + "." + baseDomain
				} else {
					host = "learning." + label(rnd, 10) + []string{".com", ".co.nz", ".example.org"}[rnd.IntN(3)]
				}
				a.send(ctx, client, kind, http.MethodGet, host, "/papi/users", "", nil)
			case "wrong key":
				switch i % 3 {
				case 0:
					a.send(ctx, client, kind, http.MethodGet, host, "/papi/users", garbage(rnd, 43), nil)
				case 1:
					a.send(ctx, client, kind, http.MethodGet, host, "/papi/users", "Bearer "+garbage(rnd, 43), nil)
				default:
					a.send(ctx, client, kind, http.MethodGet, host, "/papi/users?api_key="+garbage(rnd, 43), "", nil)
				}
			case "slow body":
				a.slowBody(ctx, host, key)
			case "max-size body":
				a.send(ctx, client, kind, http.MethodPost, host, "/papi/users/batch_save", key, a.bigBody)
			case "deep JSON":
				a.send(ctx, client, kind, http.MethodPost, host, "/papi/users/batch_save", key, a.deepBody)
			}
		}
	}
}

// send makes one request and tallies its answer.
func (a *attacker) send(ctx context.Context, client *http.Client, kind, method, host, path, key string, body []byte) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	var rd io.Reader = http.NoBody
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+a.n.public+path, rd)
	if err != nil {
		a.t.Errorf("attacker request %s %s: %v", method, path, err)
		return
	}
	req.Host = host
	if key != "" {
		req.Header.Set("Authorization", key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	a.requests.Add(1)
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			a.transport.Add(1)
			a.tally(kind, 0)
		}
		return
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	a.tally(kind, resp.StatusCode)
	if resp.StatusCode >= 500 && a.serverErrors.Add(1) <= 5 {
		a.t.Logf("attacker %s: %s %s on %s: %d %s", kind, method, path, host, resp.StatusCode, bytes.TrimSpace(b))
	}
}

// slowBody opens a connection, sends the headers of a batch save that
// announces slowBodyLength bytes, then one byte every slowByteEvery until
// the node closes the connection, ctx ends or slowBodyMaxBytes are sent.
// A body still open hostileReadTimeout+slowCutSlack after it began counts
// as not cut off.
func (a *attacker) slowBody(ctx context.Context, host, key string) {
	d := net.Dialer{Timeout: 5 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", a.n.public)
	if err != nil {
		if ctx.Err() == nil {
			a.transport.Add(1)
			a.tally("slow body", 0)
			time.Sleep(100 * time.Millisecond)
		}
		return
	}
	defer conn.Close()
	a.requests.Add(1)
	a.slowStarted.Add(1)
	began := time.Now()
	closed := make(chan struct{})
	go func() {
		// Whatever the node answers, the connection is cut when it closes it.
		defer close(closed)
		_, _ = io.Copy(io.Discard, conn)
	}()
	defer func() { conn.Close(); <-closed }()
	auth := ""
	if key != "" {
		auth = "Authorization: " + key + "\r\n"
	}
	head := fmt.Sprintf("POST /papi/users/batch_save HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		host, auth, slowBodyLength)
	_, err = conn.Write([]byte(head))
	for sent := 0; err == nil && sent < slowBodyMaxBytes; sent++ {
		select {
		case <-closed:
			err = io.EOF
		case <-ctx.Done():
			if lived := time.Since(began); lived > hostileReadTimeout+slowCutSlack {
				a.slowNotCut.Add(1)
			}
			return
		case <-time.After(slowByteEvery):
			_, err = conn.Write([]byte{'['})
		}
	}
	lived := time.Since(began)
	if err == nil || lived > hostileReadTimeout+slowCutSlack {
		a.slowNotCut.Add(1)
		return
	}
	a.slowCut.Add(1)
	storeMax(&a.slowLongest, lived)
}

// tally counts one answer of kind (status 0: none).
func (a *attacker) tally(kind string, status int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.statuses[kind] == nil {
		a.statuses[kind] = map[int]int{}
	}
	a.statuses[kind][status]++
}

// summary describes what the attacker sent and got.
func (a *attacker) summary() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var parts []string
	for _, kind := range attackKinds {
		var st []string
		for status, count := range a.statuses[kind] {
			label := fmt.Sprint(status)
			if status == 0 {
				label = "no answer"
			}
			st = append(st, fmt.Sprintf("%s ×%d", label, count))
		}
		if len(st) == 0 {
			continue
		}
		sort.Strings(st)
		parts = append(parts, kind+": "+strings.Join(st, ", "))
	}
	return fmt.Sprintf("%d requests, %d without an answer; %s; slow bodies: %d started, %d cut off (the slowest after %v), %d not cut",
		a.requests.Load(), a.transport.Load(), strings.Join(parts, "; "), a.slowStarted.Load(), a.slowCut.Load(),
		time.Duration(a.slowLongest.Load()).Round(time.Millisecond), a.slowNotCut.Load())
}

// garbage returns n random characters of a URL-safe alphabet.
func garbage(rnd *rand.Rand, n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rnd.IntN(len(alphabet))]
	}
	return string(b)
}

// label returns a random DNS label of n lower-case letters and digits,
// starting with a letter.
func label(rnd *rand.Rand, n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rnd.IntN(len(alphabet))]
	}
	b[0] = alphabet[rnd.IntN(26)]
	return string(b)
}
