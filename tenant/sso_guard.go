package tenant

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"learngate"
	"learngate/webhook"
)

// Calls to identity providers (docs/decisions.md, "Calls to identity
// providers"): discovery, key sets, token, userinfo and SAML metadata
// requests all go through one IdPGuard. Its connections use the webhooks'
// dialer (package webhook: special-purpose addresses refused at connect
// time); it follows no redirect to another origin, times out after 5 s,
// reads at most 1 MiB of an answer, and its callers pass the learner's (or
// the operator's) request context, so a call ends when that request ends.

// SSOAllowPrivateVar is the setting that lets identity providers on
// private or loopback addresses through; refusals name it.
const SSOAllowPrivateVar = "LEARNGATE_SSO_ALLOW_PRIVATE"

// Bounds of one call to an identity provider.
const (
	// IdPTimeout bounds one call, from dialing to the last byte read.
	IdPTimeout = 5 * time.Second
	// MaxIdPResponse is the most of one answer that is read.
	MaxIdPResponse = 1 << 20
	// maxIdPRedirects bounds redirects within one origin.
	maxIdPRedirects = 3
	// maxIdPConnsPerHost bounds the connections to one provider host.
	maxIdPConnsPerHost = 16
)

// ErrIdPResponseTooLarge is the read error of an answer longer than
// MaxIdPResponse.
var ErrIdPResponseTooLarge = errors.New("identity provider answer larger than 1 MiB")

// IdPGuardOptions configures an IdPGuard.
type IdPGuardOptions struct {
	// AllowPrivate (LEARNGATE_SSO_ALLOW_PRIVATE) lets providers on private
	// and loopback addresses through, and plain http for loopback only.
	AllowPrivate bool
	// Base sends the requests the guard lets through; nil is the
	// address-guarded transport of package webhook. Tests give one that
	// serves a stand-in for a provider on a public address.
	Base http.RoundTripper
}

// IdPGuard is the one way learngate calls identity providers.
type IdPGuard struct {
	allowPrivate bool
	policy       webhook.Policy
	client       *http.Client
}

// NewIdPGuard returns the guard of opts.
func NewIdPGuard(opts IdPGuardOptions) *IdPGuard {
	g := &IdPGuard{allowPrivate: opts.AllowPrivate, policy: webhook.Policy{AllowPrivate: opts.AllowPrivate}}
	base := opts.Base
	if base == nil {
		t := g.policy.NewTransport(IdPTimeout)
		// Token and userinfo calls are one per sign-in, not shared: a
		// provider that hangs holds at most this many connections (and open
		// files); the calls beyond wait for one, within their 5 s.
		t.MaxConnsPerHost = maxIdPConnsPerHost
		base = t
	}
	g.client = &http.Client{Transport: guardedTransport{g: g, base: base}, Timeout: IdPTimeout, CheckRedirect: sameOrigin}
	return g
}

// Client returns the guarded HTTP client. Pass the request's context with
// every call (http.NewRequestWithContext, oidc.ClientContext).
func (g *IdPGuard) Client() *http.Client { return g.client }

// AllowPrivate reports whether LEARNGATE_SSO_ALLOW_PRIVATE is set.
func (g *IdPGuard) AllowPrivate() bool { return g.allowPrivate }

// CheckURL returns an Invalid error, naming the URL as what (e.g.
// "issuer"), unless raw is an absolute https URL without user information
// whose host is a DNS name or an IP address the guard allows. Plain http
// passes only for a loopback host with AllowPrivate. Host names are not
// resolved here: the dialer checks every address it connects to.
func (g *IdPGuard) CheckURL(what, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Hostname() == "" || u.User != nil || len(raw) > 2048 {
		return learngate.Errorf(learngate.Invalid, "%s must be an absolute https URL of at most 2048 characters, without user name or password", what)
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	addr, ipErr := netip.ParseAddr(host)
	localName := host == "localhost" || strings.HasSuffix(host, ".localhost")
	loopback := localName || (ipErr == nil && addr.Unmap().IsLoopback())
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if g.allowPrivate && loopback {
			break
		}
		return learngate.Errorf(learngate.Invalid, "%s must use https; plain http is allowed only for a loopback address, with %s=true", what, SSOAllowPrivateVar)
	default:
		return learngate.Errorf(learngate.Invalid, "%s must use https", what)
	}
	switch {
	case ipErr == nil:
		if err := g.policy.CheckAddr(addr); err != nil {
			return learngate.Errorf(learngate.Invalid, "%s must not point to %s", what, g.refusal(err))
		}
	case numericHost(host):
		return learngate.Errorf(learngate.Invalid, "%s must name its host by a DNS name or a dotted IP address", what)
	case localName && !g.allowPrivate:
		return learngate.Errorf(learngate.Invalid, "%s must not point to localhost; %s=true lets an identity provider on a private or loopback address through", what, SSOAllowPrivateVar)
	}
	return nil
}

// refusal says which address an AddressError refused and, unless no
// setting allows it (cloud metadata), which setting would.
func (g *IdPGuard) refusal(err error) string {
	var ae *webhook.AddressError
	if !errors.As(err, &ae) {
		return err.Error()
	}
	s := fmt.Sprintf("%s address (%s)", ae.What, ae.Addr)
	if ae.What != "a cloud metadata" {
		s += fmt.Sprintf("; %s=true lets an identity provider on a private or loopback address through", SSOAllowPrivateVar)
	}
	return s
}

// numericHost reports a host that is no IP address in standard form yet
// reads as a number to some resolvers (2130706433, 0x7f000001, 127.1):
// a DNS name's last label never starts with a digit.
func numericHost(host string) bool {
	last := host[strings.LastIndex(host, ".")+1:]
	return last != "" && last[0] >= '0' && last[0] <= '9'
}

// guardedTransport checks each request's URL (redirects included) before
// its base sends it, names the setting in a connect-time refusal, and
// bounds what is read of each answer.
type guardedTransport struct {
	g    *IdPGuard
	base http.RoundTripper
}

// RoundTrip sends req when the guard allows its URL.
func (t guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.g.CheckURL("identity provider URL", req.URL.String()); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, &IdPRefusedError{Msg: err.Error()}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		var ae *webhook.AddressError
		if errors.As(err, &ae) {
			return nil, &IdPRefusedError{Msg: "identity provider URL must not point to " + t.g.refusal(ae)}
		}
		return nil, err
	}
	resp.Body = &boundedBody{rc: resp.Body, left: MaxIdPResponse}
	return resp, nil
}

// sameOrigin follows a redirect only within the origin (scheme, host and
// port) of the request that answered it, at most maxIdPRedirects times.
func sameOrigin(req *http.Request, via []*http.Request) error {
	prev := via[len(via)-1].URL
	if len(via) > maxIdPRedirects {
		return &IdPRefusedError{Msg: "identity provider redirected too many times"}
	}
	if !strings.EqualFold(req.URL.Scheme, prev.Scheme) || !strings.EqualFold(req.URL.Host, prev.Host) {
		return &IdPRefusedError{Msg: "identity provider redirected to another host: not followed"}
	}
	return nil
}

// IdPRefusedError is a call the guard refused to make: an address, scheme
// or redirect it does not allow. Its message names no address of the
// service's own network other than the one refused, and says which
// setting would allow it.
type IdPRefusedError struct{ Msg string }

func (e *IdPRefusedError) Error() string { return e.Msg }

// idpCallError is a failed call's error as ops may see it: a refusal of
// the guard whole, any other failure by its kind only (timed out, could
// not resolve host, TLS error...), never the network's own text.
func idpCallError(ctx context.Context, err error) error {
	var refused *IdPRefusedError
	if errors.As(err, &refused) {
		return refused
	}
	if errors.Is(err, ErrIdPResponseTooLarge) {
		return ErrIdPResponseTooLarge
	}
	return errors.New(webhook.Reason(ctx, err))
}

// boundedBody reads at most left bytes, then fails with
// ErrIdPResponseTooLarge if more follow.
type boundedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		if n, err := b.rc.Read(one[:]); n > 0 {
			return 0, ErrIdPResponseTooLarge
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }
