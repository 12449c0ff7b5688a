package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"learngate"
	"learngate/store"
	"learngate/store/list"
	"learngate/webhook"
	"learngate/webhook/webhooktest"
)

// LEARNGATE_WEBHOOK_ALLOW_PRIVATE reaches both the handlers (registration)
// and the worker (delivery).
func TestWebhookAllowPrivateFromTheEnvironment(t *testing.T) {
	for _, c := range []struct {
		name, allow string
		status      int
		delivered   bool
	}{
		{name: "unset", status: http.StatusBadRequest},
		{name: "true", allow: "true", status: http.StatusCreated, delivered: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			migratedCLIEnv(t)
			if c.allow != "" {
				t.Setenv("LEARNGATE_WEBHOOK_ALLOW_PRIVATE", c.allow)
			}
			mustRun(t, "migrate", "-q")
			m := createdPattern.FindStringSubmatch(mustRun(t, "tenant", "create", "acme"))
			if m == nil {
				t.Fatal("tenant create printed no key")
			}
			rc := webhooktest.NewReceiver(t, nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			a, err := openApp(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer a.close()

			// Registration through the router serve builds.
			public, err := newServer(a, blobStores{}).PublicRouter()
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodPost, "/papi/webhooks",
				strings.NewReader(`{"url":"`+rc.URL("/")+`","events":["*"]}`))
			req.Host = "acme.learngate.localhost"
			req.Header.Set("Authorization", m[3])
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			public.ServeHTTP(w, req)
			if w.Code != c.status {
				t.Fatalf("register %s: %d %s, want %d", rc.URL("/"), w.Code, w.Body.String(), c.status)
			}

			// Delivery by `learngate worker`, to an endpoint registered regardless.
			tn, err := a.db.TenantBySlug(ctx, "acme")
			if err != nil {
				t.Fatal(err)
			}
			tdb, _ := a.db.Tenant(tn.Schema)
			if !c.delivered {
				url := rc.URL("/")
				if _, err := store.CreateWebhook(ctx, tdb, learngate.WebhookInput{URL: &url, Events: []string{"*"}},
					webhook.Policy{AllowPrivate: true}, time.Now()); err != nil {
					t.Fatal(err)
				}
			}
			done := make(chan error, 1)
			go func() {
				cmd := rootCommand()
				cmd.SetArgs([]string{"worker"})
				done <- cmd.ExecuteContext(ctx)
			}()
			name := "ann"
			if _, err := store.CreateUser(ctx, tdb, learngate.UserInput{UserName: &name, FirstName: &name, LastName: &name,
				Email: ptrTo("ann@example.com"), Timezone: ptrTo("UTC")}, time.Now()); err != nil {
				t.Fatal(err)
			}
			var d learngate.Delivery
			deadline := time.Now().Add(30 * time.Second)
			for d.Attempt == 0 { // its first attempt, then a retry in 5 s on failure
				if time.Now().After(deadline) {
					t.Fatalf("delivery not attempted: %+v", d)
				}
				time.Sleep(50 * time.Millisecond)
				if ds, _, err := store.ListWebhookDeliveries(ctx, tdb, 1, list.Page{Number: 1, Size: 1}); err == nil && len(ds) == 1 {
					d = ds[0]
				}
			}
			if c.delivered {
				if d.Status != store.DeliverySucceeded || len(rc.Requests()) != 1 {
					t.Fatalf("delivery %+v, %d requests", d, len(rc.Requests()))
				}
			} else if len(rc.Requests()) != 0 || d.Error == nil || *d.Error != "url must use https" {
				t.Fatalf("delivery %+v (error %v), %d requests; want refused", d, d.Error, len(rc.Requests()))
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("learngate worker: %v", err)
			}
		})
	}
}
