package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// fleet is the learngate serve (without its in-process worker) and the one
// learngate worker of the many-tenants part, on loopback ports.
type fleet struct {
	serve, worker *process
	addr, opsAddr string
}

// startFleet starts serve and worker with env(addr, opsAddr) and waits
// until serve answers /healthz.
func startFleet(lgBin string, env func(addr, opsAddr string) []string) (*fleet, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	opsAddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	f := &fleet{addr: addr, opsAddr: opsAddr}
	if f.serve, err = start("learngate serve", lgBin, env(addr, opsAddr), "serve"); err != nil {
		return nil, err
	}
	// The worker's own listeners stay off: it reads only the database.
	if f.worker, err = start("learngate worker", lgBin, env(addr, opsAddr), "worker"); err != nil {
		f.stop()
		return nil, err
	}
	if err := f.serve.waitReady("http://"+addr+"/healthz", "localhost"); err != nil {
		f.stop()
		return nil, err
	}
	return f, nil
}

// stop ends serve and worker (nil-safe).
func (f *fleet) stop() {
	if f == nil {
		return
	}
	f.serve.stop()
	f.worker.stop()
}

// runMigrate runs `learngate migrate` with env and returns its wall time
// (at most 30 minutes); its summary line goes to the progress output.
func runMigrate(ctx context.Context, lgBin string, env []string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, lgBin, "migrate")
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	began := time.Now()
	err := cmd.Run()
	took := time.Since(began)
	if err != nil {
		return took, fmt.Errorf("learngate migrate: %w: %s", err, strings.TrimSpace(out.String()))
	}
	progress("many tenants: learngate migrate: %s (%s)", strings.ReplaceAll(strings.TrimSpace(out.String()), "\n", "; "),
		took.Round(time.Millisecond))
	return took, nil
}

// buildTenants creates tenants have+1..upTo through POST /ops/v1/tenants
// of the ops listener at opsBase, creators at a time, and records each
// one's key and creation time in bench_manytenants. Bounded: upTo-have
// requests of at most 2 minutes each, and the whole build at most 3 s a
// tenant (10 minutes at least).
func buildTenants(ctx context.Context, db *sql.DB, opsBase string, have, upTo, creators int) error {
	if upTo <= have {
		return nil
	}
	progress("many tenants: creating tenants %d..%d through the ops API, %d at a time", have+1, upTo, creators)
	ctx, cancel := context.WithTimeout(ctx, max(10*time.Minute, time.Duration(upTo-have)*3*time.Second))
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Minute}
	next := make(chan int)
	errs := make(chan error, creators)
	var wg sync.WaitGroup
	for range max(1, creators) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range next {
				if err := createTenant(ctx, client, db, opsBase, n); err != nil {
					errs <- err
					cancel()
					return
				}
			}
		}()
	}
	began, lastNote := time.Now(), time.Now()
feed:
	for n := have + 1; n <= upTo; n++ {
		select {
		case next <- n:
		case <-ctx.Done():
			break feed
		}
		if time.Since(lastNote) > 30*time.Second {
			progress("many tenants: %d of %d created", n-1, upTo)
			lastNote = time.Now()
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("creating tenants up to %d: %w", upTo, err)
	}
	progress("many tenants: %d tenants created in %s", upTo-have, time.Since(began).Round(time.Millisecond))
	return nil
}

// createTenant creates tenant n (slug tenantSlug(n)) through the ops API,
// timing the request, and records it.
func createTenant(ctx context.Context, client *http.Client, db *sql.DB, opsBase string, n int) error {
	slug := tenantSlug(n)
	body, _ := json.Marshal(map[string]string{"slug": slug, "name": "Many tenants " + slug})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, opsBase+"/ops/v1/tenants", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+benchOpsToken)
	req.Header.Set("Content-Type", "application/json")
	began := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("create tenant %s: %w", slug, err)
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	took := time.Since(began)
	if err != nil {
		return fmt.Errorf("create tenant %s: %w", slug, err)
	}
	var created struct {
		Key string `json:"api_key"`
	}
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(answer, &created) != nil || created.Key == "" {
		return fmt.Errorf("create tenant %s: %d %.300s", slug, resp.StatusCode, answer)
	}
	_, err = db.ExecContext(ctx, `INSERT INTO public.bench_manytenants (n, slug, api_key, created_at, create_ms)
		VALUES ($1, $2, $3, now(), $4)`, n, slug, created.Key, float64(took)/float64(time.Millisecond))
	if err != nil {
		return fmt.Errorf("record tenant %s: %w", slug, err)
	}
	return nil
}
