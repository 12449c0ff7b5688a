package web

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/beevik/etree"
	"github.com/crewjam/saml"
	"github.com/crewjam/saml/xmlenc"
	"github.com/gin-gonic/gin"

	"learngate/handlers/httpx"
)

// What an anonymous POST /sso/saml/acs may cost (DECISIONS section 19;
// docs/decisions.md, "SAML responses bounded before they are parsed"): a
// form of at most maxSAMLForm bytes, a response whose shape passed
// checkSAMLShape (its encrypted assertion's plaintext too), and at most
// samlParseSlots library parses at once in the process.

const (
	// maxSAMLForm bounds the ACS form: a real response, even encrypted with
	// a hundred group values, is under 64 KiB.
	maxSAMLForm = 256 << 10
	// samlParseSlots is the most SAML parses running at once.
	samlParseSlots = 4
	// samlParseWait is how long a response waits for a parse slot before
	// the "try again" page; a parse takes at most about 50 ms, so a learner
	// waits only behind a flood, and waiting requests do not pile up.
	samlParseWait = 2 * time.Second
)

// errSAMLBusy is a response that found no parse slot within its wait.
var errSAMLBusy = errors.New("no SAML parse slot free")

// samlParseGate lets at most samlParseSlots SAML parses run at once in the
// process. Its zero value is ready to use.
type samlParseGate struct {
	once  sync.Once
	slots chan struct{}
	// wait replaces samlParseWait when set (tests).
	wait time.Duration
	// hold, when set (tests only), runs inside a slot before the parse.
	hold func()
}

// enter takes a parse slot, waiting until one is free, the request ends
// (its error) or the wait is over (errSAMLBusy). A client that leaves while
// it waits stops there.
func (g *samlParseGate) enter(ctx context.Context) error {
	g.once.Do(func() { g.slots = make(chan struct{}, samlParseSlots) })
	select { // a free slot is taken at once, even by a request that is ending
	case g.slots <- struct{}{}:
		return nil
	default:
	}
	wait := g.wait
	if wait == 0 {
		wait = samlParseWait
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case g.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return errSAMLBusy
	}
}

// leave gives the slot back.
func (g *samlParseGate) leave() { <-g.slots }

// samlFailKey names the refused-response count of the request's tenant
// and client address.
func samlFailKey(c *gin.Context) string {
	return "samlfail:" + strconv.FormatInt(httpx.CurrentTenant(c).ID, 10) + ":" + httpx.ClientBucket(c.ClientIP())
}

// samlThrottled answers the 429 page, before the body is read, when the
// client's address sent too many refused responses to this tenant within
// a minute (the failed-key limit's count, AuthFailuresPerMinute); it is
// counted, not logged, as it may come often. The server then drains the
// unread body (at most 256 KiB) and keeps the connection: closing it
// instead holds a file per refused post for the close's half second, which
// a fast client turns into hundreds of open files.
func (s *Pages) samlThrottled(c *gin.Context) bool {
	blocked, retryAfter := s.gate.Blocklist().Blocked(samlFailKey(c))
	if !blocked {
		return false
	}
	// The refusal waits before it answers (a tarpit), so that a throttled
	// client's next post comes a second later rather than at once: a flood
	// of posts answered 429 in microseconds still cost the node every
	// body it drained.
	s.samlTarpit.wait(c.Request.Context(), samlTarpitDelay, samlTarpitSlots)
	c.Header("Retry-After", strconv.FormatInt(max(retryAfter, 1), 10))
	s.signInMetric("refused_saml_throttled")
	data := s.newPageData(c, languageEnglish, "Sign in")
	data.Message = "Too many sign-in attempts from your network. Please try again in a minute."
	data.Link, data.LinkText = "/login", data.T("Sign in")
	s.renderPage(c, http.StatusTooManyRequests, "message", data)
	return true
}

// refuseSAML refuses a response that was read and found wanting, and
// counts it against the client's address for this tenant.
func (s *Pages) refuseSAML(c *gin.Context, status int, reason string, err error) {
	s.gate.ThrottleAuthFailure(c.Request.Context(), samlFailKey(c))
	s.refuse(c, status, reason, "Your sign-in could not be verified. Please sign in again.", 0, err)
}

// readSAMLResponse reads the ACS form, at most maxSAMLForm bytes, and
// returns its decoded SAMLResponse; it answers the refusal page itself and
// reports false.
func (s *Pages) readSAMLResponse(c *gin.Context) ([]byte, bool) {
	tooLarge := func(err error) { s.refuseSAML(c, http.StatusBadRequest, "saml_too_large", err) }
	if c.Request.ContentLength > maxSAMLForm {
		c.Header("Connection", "close") // the body is not read, nor drained
		tooLarge(errors.New("form larger than 256 KiB"))
		return nil, false
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, maxSAMLForm)
	if err := c.Request.ParseForm(); err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			tooLarge(errors.New("form larger than 256 KiB"))
		} else {
			s.refuseSAML(c, http.StatusBadRequest, "bad_assertion", err)
		}
		return nil, false
	}
	raw, err := base64.StdEncoding.DecodeString(c.Request.PostForm.Get("SAMLResponse"))
	if err != nil || len(raw) == 0 {
		s.refuseSAML(c, http.StatusBadRequest, "bad_assertion", errors.New("SAMLResponse missing or not base64"))
		return nil, false
	}
	return raw, true
}

// refuseSAMLShape answers the refusal of a response whose shape (or its
// plaintext's) is over the bounds, when err is one.
func (s *Pages) refuseSAMLShape(c *gin.Context, err error) bool {
	if err == nil {
		return false
	}
	reason := reasonSAMLMalformed
	var se *samlShapeError
	if errors.As(err, &se) {
		reason = se.Reason
	}
	s.refuseSAML(c, http.StatusBadRequest, reason, err)
	return true
}

// checkSAMLPlaintext decrypts the encrypted assertions shape found as the
// library will (sp's key; the EncryptedKey child, else the key itself)
// and checks the shape of each plaintext with the elements left of the
// budget. One that cannot be decrypted is left to the library, which
// refuses it too. The library decrypts it again: one RSA operation more
// per sign-in, where checking inside the library is not possible.
func checkSAMLPlaintext(sp *saml.ServiceProvider, shape samlShape) error {
	for _, enc := range shape.Encrypted {
		doc := etree.NewDocument()
		if err := doc.ReadFromBytes(enc); err != nil || doc.Root() == nil {
			continue
		}
		var data []*etree.Element
		for _, ch := range doc.Root().ChildElements() {
			if ch.Tag == "EncryptedData" {
				data = append(data, ch)
			}
		}
		if len(data) > 1 {
			return tooComplex("an encrypted assertion with more than one EncryptedData")
		}
		if len(data) == 0 {
			continue
		}
		var key any = sp.Key
		if keyEl := doc.Root().FindElement("./EncryptedKey"); keyEl != nil {
			k, err := xmlenc.Decrypt(sp.Key, keyEl)
			if err != nil {
				continue
			}
			key = k
		}
		plain, err := xmlenc.Decrypt(key, data[0])
		if err != nil {
			continue
		}
		if _, err := checkSAMLShape(plain, maxSAMLElements-shape.Elements); err != nil {
			return err
		}
	}
	return nil
}

// The tarpit of throttled ACS posts: each waits samlTarpitDelay before its
// 429 (the client's request ending cuts it short), at most samlTarpitSlots
// at once; beyond that a throttled post is answered at once, so the
// tarpit never holds more than that many connections open.
const (
	samlTarpitDelay = time.Second
	samlTarpitSlots = 64
)

// tarpit delays refusals; its zero value is ready to use.
type tarpit struct {
	once  sync.Once
	slots chan struct{}
}

// wait holds the caller for d, or until ctx ends, when fewer than slots
// callers are waiting; else it returns at once.
func (t *tarpit) wait(ctx context.Context, d time.Duration, slots int) {
	t.init(slots)
	select {
	case t.slots <- struct{}{}:
	default:
		return
	}
	defer func() { <-t.slots }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
}

// init makes the slots once, slots of them.
func (t *tarpit) init(slots int) { t.once.Do(func() { t.slots = make(chan struct{}, slots) }) }

// waiting is how many callers wait now (slots for a tarpit not yet used).
func (t *tarpit) waiting(slots int) int {
	t.init(slots)
	return len(t.slots)
}
