package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"learngate/webhook"
)

// receiverMaxBody bounds a delivery the receiver reads (learngate's events
// are far smaller).
const receiverMaxBody = 1 << 20

// webhookReceiverCommand is `learngate webhook-receiver`: a receiver for
// trying webhooks locally (docs/operations.md, the tour). It needs no
// database.
func webhookReceiverCommand() *cobra.Command {
	var addr, secret, secretEnv string
	var count int
	cmd := &cobra.Command{
		Use:   "webhook-receiver",
		Short: "Receive webhooks on a local address, verify their signature and print them (for trying webhooks)",
		Long: "Listens on --addr and prints each request it gets: the method, path, webhook-id, event type and\n" +
			"whether its Standard Webhooks signature verifies with --secret, then the body. It answers 204 to a\n" +
			"delivery that verifies (or to every one without a secret) and 401 to one that does not.\n" +
			"With --count N it stops after N requests.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if secretEnv != "" {
				if secret = os.Getenv(secretEnv); secret == "" {
					return fmt.Errorf("--secret-env %s: the variable is empty or not set", secretEnv)
				}
			}
			if count < 0 {
				return errors.New("--count must be 0 (no end) or more")
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return runWebhookReceiver(ctx, addr, secret, count, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:9999", "host:port to listen on")
	cmd.Flags().StringVar(&secret, "secret", "", "the webhook's signing secret (whsec_...), to verify signatures")
	cmd.Flags().StringVar(&secretEnv, "secret-env", "", "read the signing secret from this environment variable instead")
	cmd.Flags().IntVar(&count, "count", 0, "stop after this many requests (0: run until interrupted)")
	return cmd
}

// runWebhookReceiver serves until ctx ends or count requests were answered.
func runWebhookReceiver(ctx context.Context, addr, secret string, count int, out, errOut io.Writer) error {
	if secret != "" {
		// A malformed secret would refuse every delivery: say so now.
		if _, err := webhook.Sign(secret, "check", 0, nil); err != nil {
			return fmt.Errorf("--secret: %w", err)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(errOut, "webhook-receiver: listening on http://%s\n", ln.Addr())
	return serveWebhookReceiver(ctx, ln, secret, count, out)
}

// serveWebhookReceiver answers on ln until ctx ends or count requests were
// answered, then closes ln.
func serveWebhookReceiver(ctx context.Context, ln net.Listener, secret string, count int, out io.Writer) error {
	rc := &receiver{secret: secret, count: int64(count), out: out, now: time.Now, reached: make(chan struct{})}
	srv := &http.Server{Handler: rc, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case <-rc.reached:
	case <-ctx.Done():
	case err := <-served:
		return err
	}
	return shutdown(srv, served)
}

// shutdown lets the requests being answered finish (at most 5 s).
func shutdown(srv *http.Server, served chan error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(ctx)
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}

// receiver prints and answers each request.
type receiver struct {
	secret string
	// count closes reached once that many requests were answered (0: never).
	count   int64
	out     io.Writer
	now     func() time.Time
	mu      sync.Mutex
	seen    atomic.Int64
	reached chan struct{}
}

// ServeHTTP reads the body, verifies the signature when a secret is set,
// prints two lines (the request, then its body) and answers.
func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if rc.seen.Add(1) == rc.count {
			close(rc.reached)
		}
	}()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, receiverMaxBody))
	verdict, status := "signature not checked (no --secret)", http.StatusNoContent
	switch {
	case err != nil:
		verdict, status = "body not read: "+err.Error(), http.StatusRequestEntityTooLarge
	case rc.secret != "":
		if err := webhook.Verify(rc.secret, r.Header, body, rc.now(), webhook.DefaultTolerance); err != nil {
			verdict, status = "signature REFUSED: "+err.Error(), http.StatusUnauthorized
		} else {
			verdict = "signature verified"
		}
	}
	var event struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(body, &event) // the type is only printed
	if event.Type == "" {
		event.Type = "-"
	}
	rc.mu.Lock()
	fmt.Fprintf(rc.out, "%s %s webhook-id=%s type=%s: %s\n%s\n", r.Method, r.URL.RequestURI(),
		r.Header.Get(webhook.HeaderID), event.Type, verdict, body)
	rc.mu.Unlock()
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	http.Error(w, verdict, status)
}
