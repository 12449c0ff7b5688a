package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"learngate/config"
	"learngate/handlers"
	"learngate/handlers/httpx"
	"learngate/handlers/ops"
	"learngate/handlers/papi"
	"learngate/handlers/scimapi"
	"learngate/handlers/web"
	"learngate/ratelimit"
	"learngate/webhook"
)

func serveCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Serve the public API and the ops API (and run the worker unless LEARNGATE_WORKER=false)",
		Args:  cobra.NoArgs,
		RunE: withApp(func(ctx context.Context, a *app, _ []string) error {
			if err := a.cfg.RequireOpsToken(); err != nil {
				return err
			}
			if err := a.requireSecrets(); err != nil {
				return err
			}
			if a.cfg.MigrateOnStart {
				if err := a.db.MigrateAll(ctx, nil); err != nil {
					return fmt.Errorf("migrate: %w", err)
				}
			}
			return serve(ctx, a)
		}),
	}
}

// serve runs both listeners until ctx ends, then shuts down gracefully:
// stop accepting, finish in-flight requests within the grace period.
func serve(ctx context.Context, a *app) error {
	warnRandomSigningKey(a)
	blobs := a.blobs
	srv := newServer(a, blobs)
	public, err := srv.PublicRouter()
	if err != nil {
		return fmt.Errorf("LEARNGATE_TRUSTED_PROXIES: %w", err)
	}
	servers := []*http.Server{
		newHTTPServer(a.cfg.HTTPAddr, public, a.cfg),
		newHTTPServer(a.cfg.OpsAddr, srv.OpsRouter(), a.cfg),
	}
	if a.cfg.TLSAskAddr != "" {
		servers = append(servers, newHTTPServer(a.cfg.TLSAskAddr, srv.TLSAskRouter(), a.cfg))
	}
	listeners := make([]net.Listener, len(servers))
	for i, s := range servers {
		l, err := net.Listen("tcp", s.Addr)
		if err != nil {
			return fmt.Errorf("listen on %s: %w", s.Addr, err)
		}
		listeners[i] = l
	}

	background, cancelBackground := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); a.registry.Run(background) }()
	// The worker stops fetching at shutdown, while requests drain, and
	// finishes its running jobs.
	workerCtx, stopWorker := context.WithCancel(background)
	defer stopWorker()
	if a.cfg.Worker {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := runWorker(workerCtx, a, blobs, srv.Metrics.Registry); err != nil {
				a.logger.Error("worker failed; background jobs are not being worked", "err", err)
			}
		}()
	}

	errs := make(chan error, len(servers))
	for i, s := range servers {
		go func() {
			if err := s.Serve(listeners[i]); !errors.Is(err, http.ErrServerClosed) {
				errs <- fmt.Errorf("serve %s: %w", s.Addr, err)
			}
		}()
	}
	a.logger.Info("learngate serving", "public", a.cfg.HTTPAddr, "ops", a.cfg.OpsAddr, "tls_ask", a.cfg.TLSAskAddr,
		"worker", a.cfg.Worker)

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errs:
	}
	a.logger.Info("shutting down", "grace", a.cfg.ShutdownGrace)
	stopWorker()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownGrace)
	defer cancel()
	for _, s := range servers {
		if err := s.Shutdown(shutdownCtx); err != nil {
			a.logger.Warn("shutdown", "addr", s.Addr, "err", err)
		}
	}
	cancelBackground()
	wg.Wait()
	return serveErr
}

// newHTTPServer is one listener's server: the whole request, body
// included, must arrive within LEARNGATE_HTTP_READ_TIMEOUT, whatever the
// route and whether it carries a key, and idle keep-alive connections close
// after LEARNGATE_HTTP_IDLE_TIMEOUT (docs/decisions.md, "Bodies and hostile input"). Headers have
// at most 10 s of it.
func newHTTPServer(addr string, handler http.Handler, cfg config.Config) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           handler,
		ReadHeaderTimeout: min(10*time.Second, cfg.HTTPReadTimeout),
		ReadTimeout:       cfg.HTTPReadTimeout,
		IdleTimeout:       cfg.HTTPIdleTimeout,
	}
}

// newServer builds the handlers' dependencies from the app: the shared
// chain (httpx.Gate) and each application's own.
func newServer(a *app, blobs blobStores) *handlers.Server {
	metrics := httpx.NewMetrics()
	registerPoolMetrics(metrics.Registry, a)
	gate := &httpx.Gate{
		DB:                    a.db,
		Registry:              a.registry,
		Limiter:               newLimiter(a, metrics),
		Metrics:               metrics,
		Logger:                a.logger,
		Ready:                 a.ready,
		RedisReady:            a.redisReady(),
		NodesDown:             a.db.NodesDown,
		AuthFailuresPerMinute: a.cfg.AuthFailuresPerMinute,
		DownloadsPerMinute:    a.cfg.DownloadsPerMinute,
	}
	return &handlers.Server{
		Gate: gate,
		Ops:  ops.Deps{Tenants: a.registry, Token: a.cfg.OpsToken, Metrics: metrics.Registry},
		SCIM: scimapi.Deps{PublicScheme: a.cfg.PublicScheme},
		Papi: papi.Deps{
			WebhookPolicy: webhook.Policy{AllowPrivate: a.cfg.WebhookAllowPrivate},
			Blobs:         blobs.store,
			Downloads:     blobs.local,
			PublicScheme:  a.cfg.PublicScheme,
			CursorKey:     []byte(a.cfg.SigningKey),
		},
		Web: web.Deps{
			Sessions:     a.db,
			SAMLReplays:  a.db,
			Blobs:        blobs.store,
			PublicScheme: a.cfg.PublicScheme,
			CursorKey:    []byte(a.cfg.SigningKey),
		},
		TrustedProxies: a.cfg.TrustedProxies,
		PublicScheme:   a.cfg.PublicScheme,
	}
}

// newLimiter builds the rate limiter: Redis-backed when Redis is
// configured (one limit across nodes), in memory otherwise.
func newLimiter(a *app, metrics *httpx.Metrics) *ratelimit.Limiter {
	opts := ratelimit.Options{Window: time.Minute, Logger: a.logger, OnFailOpen: metrics.LimiterFailedOpen}
	if a.redis != nil {
		return ratelimit.New(ratelimit.NewRedisStore(a.redis, "learngate:rl:"), opts)
	}
	return ratelimit.New(ratelimit.NewMemoryStore(time.Now), opts)
}
