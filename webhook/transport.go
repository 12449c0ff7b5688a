package webhook

import (
	"net"
	"net/http"
	"time"
)

// NewTransport returns the HTTP transport of every outbound call that must
// stay off the service's own network: webhooks and, through the tenant
// package, identity providers (docs/decisions.md, "Outbound calls"). Its
// connections are made only to addresses the policy allows, checked after
// name resolution on the address about to be connected to (so DNS
// rebinding reaches nothing refused); it uses no proxy. timeout bounds
// dialing and the wait for response headers.
func (p Policy) NewTransport(timeout time.Duration) *http.Transport {
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: p.dialControl, Resolver: p.Resolver}
	return &http.Transport{
		Proxy:                 nil, // a proxy would be the address checked, not the target
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          200,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   min(timeout, 10*time.Second),
		ResponseHeaderTimeout: timeout,
	}
}
