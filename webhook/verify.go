package webhook

import (
	"crypto/hmac"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultTolerance is how far a delivery's webhook-timestamp may be from
// the receiver's clock (Standard Webhooks recommends 5 minutes): older
// deliveries are refused as replays.
const DefaultTolerance = 5 * time.Minute

// Verify checks a delivery the way a Standard Webhooks receiver does: a
// webhook-id, a webhook-timestamp within tolerance of now, and among the
// space-separated signatures of webhook-signature one equal (compared in
// constant time) to Sign(secret, id, timestamp, body). Signatures of other
// versions than v1 are skipped, as the standard asks. It returns nil when
// the delivery verifies, else an error that says why not.
func Verify(secret string, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	id, ts, sigs := h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature)
	if id == "" || ts == "" || sigs == "" {
		return errors.New("missing webhook-id, webhook-timestamp or webhook-signature header")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("webhook-timestamp %q is not a Unix time in seconds", ts)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("webhook-timestamp %d is %s away from now (more than %s)", sec, d.Round(time.Second).Abs(), tolerance)
	}
	want, err := Sign(secret, id, sec, body)
	if err != nil {
		return err
	}
	for _, sig := range strings.Fields(sigs) {
		if strings.HasPrefix(sig, "v1,") && hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return errors.New("no signature of webhook-signature matches the secret")
}
