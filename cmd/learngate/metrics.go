package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"learngate/handlers"
)

// poolDBName is the db_name label of the database pool's go_sql_* metrics.
const poolDBName = "learngate"

// registerPoolMetrics adds the database pool's statistics (sql.DBStats:
// open, in-use and idle connections, waits for a free one) to reg, as
// go_sql_* with db_name="learngate".
func registerPoolMetrics(reg prometheus.Registerer, a *app) {
	reg.MustRegister(collectors.NewDBStatsCollector(a.db.Pool().DB, poolDBName))
}

// workerRegistry is the metrics registry of `learngate worker`: the Go
// runtime, the process and the database pool; the worker adds its own.
func workerRegistry(a *app) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	registerPoolMetrics(reg, a)
	return reg
}

// serveWorkerMetrics serves handlers.MetricsRouter on
// LEARNGATE_WORKER_METRICS_ADDR until ctx ends. It returns once listening,
// or the error that prevents it.
func serveWorkerMetrics(ctx context.Context, a *app, reg *prometheus.Registry) error {
	if err := a.cfg.RequireOpsToken(); err != nil {
		return fmt.Errorf("LEARNGATE_WORKER_METRICS_ADDR is set: %w", err)
	}
	l, err := net.Listen("tcp", a.cfg.WorkerMetricsAddr)
	if err != nil {
		return fmt.Errorf("LEARNGATE_WORKER_METRICS_ADDR: %w", err)
	}
	s := newHTTPServer(a.cfg.WorkerMetricsAddr, handlers.MetricsRouter(reg, a.cfg.OpsToken), a.cfg)
	go func() {
		if err := s.Serve(l); !errors.Is(err, http.ErrServerClosed) {
			a.logger.Error("worker metrics listener failed", "addr", a.cfg.WorkerMetricsAddr, "err", err)
		}
	}()
	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(shutdownCtx)
	}()
	a.logger.Info("worker metrics", "addr", a.cfg.WorkerMetricsAddr)
	return nil
}
