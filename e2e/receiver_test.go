//go:build e2e || e2e_citus

package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// receiver is a local webhook endpoint: it checks each delivery's
// signature and counts deliveries by webhook-id.
type receiver struct {
	mu      sync.Mutex
	secret  []byte
	byID    map[string]int
	types   map[string]int
	users   map[string]bool // user_name of each user.created
	badSigs int
	srv     *http.Server
	url     string
}

func startReceiver(t *testing.T) *receiver {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rc := &receiver{byID: map[string]int{}, types: map[string]int{}, users: map[string]bool{},
		url: "http://" + l.Addr().String() + "/hooks"}
	rc.srv = &http.Server{Handler: http.HandlerFunc(rc.serve), ReadHeaderTimeout: 5 * time.Second}
	go rc.srv.Serve(l)
	t.Cleanup(func() { rc.srv.Close() })
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	id, ts := req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp")
	var ev struct {
		Type string `json:"type"`
		Data struct {
			UserName string `json:"user_name"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &ev)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	mac := hmac.New(sha256.New, rc.secret)
	fmt.Fprintf(mac, "%s.%s.", id, ts)
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if !strings.Contains(" "+req.Header.Get("webhook-signature")+" ", " "+want+" ") {
		rc.badSigs++
	}
	rc.byID[id]++
	rc.types[ev.Type]++
	if ev.Type == "user.created" {
		rc.users[ev.Data.UserName] = true
	}
	w.WriteHeader(http.StatusNoContent)
}
