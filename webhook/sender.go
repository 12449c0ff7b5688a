package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DefaultTimeout bounds one delivery attempt, from dialing to the response
// headers (docs/decisions.md, "Webhooks").
const DefaultTimeout = 15 * time.Second

// maxRetryAfter caps a receiver's Retry-After.
const maxRetryAfter = 24 * time.Hour

// maxDrain is how much of a response body is read (and dropped) so that the
// connection can be reused.
const maxDrain = 64 << 10

// userAgent identifies learngate's deliveries.
const userAgent = "learngate-webhooks/1"

// Sender posts signed webhook messages. Its connections are made only to
// addresses the policy allows, checked after name resolution; it uses no
// proxy and follows no redirect.
type Sender struct {
	policy  Policy
	timeout time.Duration
	client  *http.Client
}

// NewSender returns a Sender for policy; timeout 0 means DefaultTimeout.
func NewSender(policy Policy, timeout time.Duration) *Sender {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	transport := policy.NewTransport(timeout)
	return &Sender{policy: policy, timeout: timeout, client: &http.Client{
		Transport:     transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Message is one delivery attempt's request.
type Message struct {
	URL string
	// ID is the event id: webhook-id, the same on every attempt.
	ID string
	// Timestamp is the attempt's time: webhook-timestamp, in Unix seconds.
	Timestamp time.Time
	Body      []byte
	// Secrets sign the message, current first (see SignatureHeader).
	Secrets []string
}

// Result is the outcome of one attempt.
type Result struct {
	// StatusCode is the response's status, 0 when there was none.
	StatusCode int
	Duration   time.Duration
	// RetryAfter is the response's Retry-After (seconds or an HTTP date),
	// capped at 24 hours; 0 when absent or invalid.
	RetryAfter time.Duration
	// Err says why the attempt failed, for the operators' log (it may name
	// addresses and the resolver); nil exactly when the status is 2xx.
	Err error
	// Reason says why the attempt failed, for the tenant: one of the Reason
	// texts or "HTTP <status>"; "" exactly when Err is nil.
	Reason string
}

// Reasons a failed attempt gives the tenant (docs/decisions.md, "Webhooks"):
// fixed texts that never name an address of the service's own network.
const (
	ReasonRefusedAddress = "refused address"        // the policy refused the address connected to
	ReasonDNS            = "could not resolve host" // the host name did not resolve
	ReasonRefused        = "connection refused"     // nothing listens at the address
	ReasonReset          = "connection reset"       // the receiver reset or closed the connection
	ReasonUnreachable    = "host unreachable"       // no route to the address
	ReasonTimeout        = "timed out"              // no response within the attempt's timeout
	ReasonTLS            = "TLS error"              // the TLS handshake or certificate failed
	ReasonInterrupted    = "interrupted"            // the worker stopped during the attempt
	ReasonInvalidURL     = "invalid url"            // the stored URL does not parse
	ReasonHTTPS          = "url must use https"     // an http URL without AllowPrivate
	ReasonFailed         = "delivery failed"        // any other failure
)

// Send posts m and reports the outcome. It never returns an error of its
// own: everything, including a refused address, is the Result's Err.
func (s *Sender) Send(ctx context.Context, m Message) Result {
	start := time.Now()
	res := s.send(ctx, m, start)
	res.Duration = time.Since(start)
	return res
}

// failed is a Result whose reason is also its error.
func failed(reason string) Result {
	return Result{Err: errors.New(reason), Reason: reason}
}

func (s *Sender) send(ctx context.Context, m Message, start time.Time) Result {
	u, err := url.Parse(m.URL)
	if err != nil {
		return failed(ReasonInvalidURL)
	}
	if strings.ToLower(u.Scheme) != "https" && !(s.policy.AllowPrivate && strings.ToLower(u.Scheme) == "http") {
		return failed(ReasonHTTPS)
	}
	ts := m.Timestamp.Unix()
	signature, err := SignatureHeader(m.Secrets, m.ID, ts, m.Body)
	if err != nil {
		return Result{Err: err, Reason: ReasonFailed}
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.URL, bytes.NewReader(m.Body))
	if err != nil {
		return failed(ReasonInvalidURL)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set(HeaderID, m.ID)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(HeaderSignature, signature)

	resp, err := s.client.Do(req)
	if err != nil {
		return Result{Err: s.describe(ctx, err), Reason: Reason(ctx, err)}
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	res := Result{StatusCode: resp.StatusCode}
	switch code := resp.StatusCode; {
	case code >= 200 && code <= 299:
		return res
	case code >= 300 && code <= 399:
		res.Err = fmt.Errorf("HTTP %d: redirects are not followed", code)
	default:
		res.Err = fmt.Errorf("HTTP %d", code)
	}
	res.Reason = res.Err.Error()
	res.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), start)
	return res
}

// describe turns a transport error into a short sentence without the URL.
func (s *Sender) describe(ctx context.Context, err error) error {
	var addrErr *AddressError
	var netErr net.Error
	switch {
	case errors.As(err, &addrErr):
		return addrErr
	// The attempt's deadline, the dialer's and the transport's header
	// timeout are the same length: whichever fires first, it is a timeout.
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Errorf("timed out after %s", s.timeout)
	case errors.Is(err, context.Canceled):
		return errors.New("interrupted")
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		return fmt.Errorf("%s: %w", opErr.Op, opErr.Err)
	}
	return err
}

// Reason classifies err, the error of an attempt made with ctx, by its
// type (never by its text) into one of the fixed Reason texts.
func Reason(ctx context.Context, err error) string {
	var (
		addrErr    *AddressError
		dnsErr     *net.DNSError
		netErr     net.Error
		recordErr  tls.RecordHeaderError
		verifyErr  *tls.CertificateVerificationError
		alertErr   tls.AlertError
		unknownCA  x509.UnknownAuthorityError
		hostErr    x509.HostnameError
		invalidErr x509.CertificateInvalidError
	)
	switch {
	case errors.As(err, &addrErr):
		return ReasonRefusedAddress
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return ReasonTimeout
	case errors.Is(err, context.Canceled):
		return ReasonInterrupted
	case errors.As(err, &dnsErr):
		return ReasonDNS
	case errors.Is(err, syscall.ECONNREFUSED):
		return ReasonRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return ReasonReset
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return ReasonUnreachable
	case errors.As(err, &recordErr), errors.As(err, &verifyErr), errors.As(err, &alertErr),
		errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &invalidErr):
		return ReasonTLS
	}
	return ReasonFailed
}

// retryAfter parses a Retry-After value (delay seconds or an HTTP date,
// relative to now) into a duration of at most maxRetryAfter; 0 when absent
// or invalid.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		d = time.Duration(min(secs, int64(maxRetryAfter/time.Second))) * time.Second
	} else if at, err := http.ParseTime(v); err == nil {
		d = at.Sub(now)
	}
	return max(0, min(d, maxRetryAfter))
}
