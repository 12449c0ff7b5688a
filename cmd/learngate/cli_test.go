package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers"
	"learngate/handlers/httpx"
	"learngate/handlers/web"
	"learngate/store/storetest"
)

func TestMain(m *testing.M) {
	gin.SetMode(gin.TestMode)
	os.Exit(m.Run())
}

// cliEnv clears the service's variables (not the tests' own
// LEARNGATE_TEST_*), points LEARNGATE_DATABASE_URL at a fresh empty
// database and returns its URL.
func cliEnv(t *testing.T) string {
	t.Helper()
	return cliEnvOver(t, storetest.NewDatabase(t))
}

// migratedCLIEnv is cliEnv over a fresh migrated database (a copy of the
// migrated template, storetest.NewDB), for the tests whose `migrate` only
// sets up: it then finds nothing to do. The tests of migrate itself start
// from an empty database (cliEnv).
func migratedCLIEnv(t *testing.T) string {
	t.Helper()
	_, dbURL := storetest.NewDB(t)
	return cliEnvOver(t, dbURL)
}

// cliEnvOver is cliEnv over the database at dbURL.
func cliEnvOver(t *testing.T, dbURL string) string {
	t.Helper()
	clearServiceEnv(t)
	t.Setenv("LEARNGATE_DATABASE_URL", dbURL)
	t.Setenv("LEARNGATE_LOG_LEVEL", "error")
	t.Setenv("LEARNGATE_BLOB_DIR", t.TempDir())
	t.Setenv("LEARNGATE_INSECURE_DEV", "true")
	return dbURL
}

// clearServiceEnv unsets every LEARNGATE_ variable but the tests' own, for
// the duration of the test.
func clearServiceEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "LEARNGATE_") && !strings.HasPrefix(k, "LEARNGATE_TEST_") {
			t.Setenv(k, "") // restores the value after the test
			os.Unsetenv(k)
		}
	}
}

// run executes `learngate args...` in this process and returns what it
// printed on standard output and its error.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, _, err := runStreams(t, args...)
	return out, err
}

// runStreams is run that also returns what the command wrote to its
// standard error (which is not a terminal here).
func runStreams(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatalf("pipe: %v", err)
	}
	stdout := os.Stdout
	os.Stdout = w
	printed := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		printed <- string(b)
	}()
	cmd := rootCommand()
	cmd.SetArgs(args)
	var stderr strings.Builder
	cmd.SetErr(&stderr)
	runErr := cmd.ExecuteContext(context.Background())
	os.Stdout = stdout
	w.Close()
	out := <-printed
	r.Close()
	return out, stderr.String(), runErr
}

// mustRun is run for commands that must succeed.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, err := run(t, args...)
	if err != nil {
		t.Fatalf("learngate %s: %v (output %q)", strings.Join(args, " "), err, out)
	}
	return out
}

// message is the text main prints for err: a learngate.Error's message,
// any other error's text.
func message(err error) string {
	var e *learngate.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// mustFail runs a command that must fail with the given message and print nothing.
func mustFail(t *testing.T, want string, args ...string) {
	t.Helper()
	out, err := run(t, args...)
	if err == nil {
		t.Fatalf("learngate %s succeeded, printing %q", strings.Join(args, " "), out)
	}
	if got := message(err); got != want {
		t.Fatalf("learngate %s: error %q, want %q", strings.Join(args, " "), got, want)
	}
	if out != "" {
		t.Fatalf("learngate %s printed %q on failure", strings.Join(args, " "), out)
	}
}

// ping sends GET /papi/ping with key to host through a public router built
// like `serve` builds it, on a freshly opened app (so no cache is stale).
func ping(t *testing.T, host, key string) *httptest.ResponseRecorder {
	t.Helper()
	a, err := openApp(context.Background())
	if err != nil {
		t.Fatalf("open app: %v", err)
	}
	defer a.close()
	metrics := httpx.NewMetrics()
	gate := &httpx.Gate{DB: a.db, Registry: a.registry, Limiter: newLimiter(a, metrics), Metrics: metrics,
		Logger: a.logger, Ready: a.ready, AuthFailuresPerMinute: a.cfg.AuthFailuresPerMinute}
	srv := &handlers.Server{Gate: gate, Web: web.Deps{Sessions: a.db, SAMLReplays: a.db}}
	public, err := srv.PublicRouter()
	if err != nil {
		t.Fatalf("public router: %v", err)
	}
	req := httptest.NewRequest(http.MethodGet, "/papi/ping", nil)
	req.Host = host
	req.Header.Set("Authorization", key)
	w := httptest.NewRecorder()
	public.ServeHTTP(w, req)
	return w
}

// assertPing checks a ping's status and exact body.
func assertPing(t *testing.T, host, key string, status int, body string) {
	t.Helper()
	w := ping(t, host, key)
	if w.Code != status || w.Body.String() != body {
		t.Fatalf("ping %s: %d %s, want %d %s", host, w.Code, w.Body.String(), status, body)
	}
}

// cliTenant is a tenant as the CLI prints it.
type cliTenant struct {
	Slug               string    `json:"slug"`
	Name               string    `json:"name"`
	Schema             string    `json:"schema"`
	Timezone           string    `json:"timezone"`
	Status             string    `json:"status"`
	APIEnabled         bool      `json:"api_enabled"`
	RateLimitPerMinute int64     `json:"rate_limit_per_minute"`
	Domains            []string  `json:"domains"`
	CreatedAt          time.Time `json:"created_at"`
	UpdatedAt          time.Time `json:"updated_at"`
}

// cliKey is an API key record as the CLI prints it.
type cliKey struct {
	ID         int64      `json:"id"`
	Prefix     string     `json:"prefix"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

// decodeStrict unmarshals printed JSON, refusing fields v does not name.
func decodeStrict(t *testing.T, out string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode %q: %v", out, err)
	}
}

// checkTenant compares a printed tenant with want, field by field; the
// timestamps must be recent.
func checkTenant(t *testing.T, out string, want cliTenant) cliTenant {
	t.Helper()
	var got cliTenant
	decodeStrict(t, out, &got)
	for name, at := range map[string]time.Time{"created_at": got.CreatedAt, "updated_at": got.UpdatedAt} {
		if time.Since(at) > time.Minute || time.Until(at) > time.Second {
			t.Fatalf("%s = %v, not recent", name, at)
		}
	}
	cmp := got
	cmp.CreatedAt, cmp.UpdatedAt = time.Time{}, time.Time{}
	if want.Schema == "" {
		if !strings.HasPrefix(got.Schema, "tenant_") {
			t.Fatalf("schema = %q, want tenant_<id>", got.Schema)
		}
		cmp.Schema = ""
	}
	if !reflect.DeepEqual(cmp, want) {
		t.Fatalf("tenant = %+v, want %+v (output %s)", cmp, want, out)
	}
	return got
}

var (
	createdPattern = regexp.MustCompile(`^created tenant ([a-z0-9-]+) \(schema (tenant_[0-9]+)\)\napi key \(shown once\): (lg_[A-Za-z0-9_-]{43})\n$`)
	keyPattern     = regexp.MustCompile(`^created key ([0-9]+) \((lg_[A-Za-z0-9_-]{8})\) for ([a-z0-9-]+)\napi key \(shown once\): (lg_[A-Za-z0-9_-]{43})\n$`)
)

// readKeyFile returns the key written to path, checking its mode is 0600.
func readKeyFile(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("key file: %v", err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Fatalf("key file mode = %v, want 0600", mode)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read key file: %v", err)
	}
	return string(b)
}

func TestMigrate(t *testing.T) {
	cliEnv(t)
	t.Run("first run", func(t *testing.T) {
		if out := mustRun(t, "migrate"); out != "migrations applied\n" {
			t.Fatalf("output = %q", out)
		}
	})
	t.Run("second run", func(t *testing.T) {
		if out := mustRun(t, "migrate", "--quiet"); out != "migrations applied\n" {
			t.Fatalf("output = %q", out)
		}
	})
	t.Run("with a tenant schema", func(t *testing.T) {
		mustRun(t, "tenant", "create", "acme")
		if out := mustRun(t, "migrate", "-q"); out != "migrations applied\n" {
			t.Fatalf("output = %q", out)
		}
		if out := mustRun(t, "tenant", "list"); !strings.Contains(out, `"slug": "acme"`) {
			t.Fatalf("tenant list = %q", out)
		}
	})
}

func TestTenantCommands(t *testing.T) {
	migratedCLIEnv(t)
	mustRun(t, "migrate", "-q")
	dir := t.TempDir()

	t.Run("list empty", func(t *testing.T) {
		if out := mustRun(t, "tenant", "list"); out != "[]\n" {
			t.Fatalf("output = %q, want []", out)
		}
	})

	var schema, key string
	t.Run("create", func(t *testing.T) {
		keyFile := filepath.Join(dir, "acme.key")
		out := mustRun(t, "tenant", "create", "acme", "--name", "Acme", "--key-out", keyFile)
		m := createdPattern.FindStringSubmatch(out)
		if m == nil || m[1] != "acme" {
			t.Fatalf("output = %q", out)
		}
		schema, key = m[2], m[3]
		if got := readKeyFile(t, keyFile); got != key+"\n" {
			t.Fatalf("key file = %q, printed key %q", got, key)
		}
		assertPing(t, "acme.learngate.localhost", key, http.StatusOK, `{"organisation":"acme"}`)
		assertPing(t, "globex.learngate.localhost", key, http.StatusNotFound, `{"error":"unknown organisation"}`)
	})

	t.Run("create with every flag", func(t *testing.T) {
		out := mustRun(t, "tenant", "create", "globex", "--timezone", "Europe/Berlin", "--rate-limit", "10",
			"--api-enabled=false", "--domain", "Learn.Globex.Test", "--domain", "academy.globex.test")
		m := createdPattern.FindStringSubmatch(out)
		if m == nil || m[1] != "globex" {
			t.Fatalf("output = %q", out)
		}
		checkTenant(t, mustRun(t, "tenant", "show", "globex"), cliTenant{Slug: "globex", Name: "globex",
			Timezone: "Europe/Berlin", Status: "active", APIEnabled: false, RateLimitPerMinute: 10,
			Domains: []string{"academy.globex.test", "learn.globex.test"}})
		assertPing(t, "learn.globex.test", m[3], http.StatusUnauthorized, `{"error":"unauthorized"}`)
	})

	t.Run("create refused", func(t *testing.T) {
		mustFail(t, "slug already taken", "tenant", "create", "acme")
		mustFail(t, "domain already taken", "tenant", "create", "initech", "--domain", "learn.globex.test")
		mustFail(t, `slug "admin" is reserved`, "tenant", "create", "admin")
		mustFail(t, `invalid timezone "Mars/Olympus"`, "tenant", "create", "initech", "--timezone", "Mars/Olympus")
		mustFail(t, "rate_limit_per_minute must be between 1 and 1000000", "tenant", "create", "initech", "--rate-limit", "0")
		mustFail(t, `accepts 1 arg(s), received 0`, "tenant", "create")
		mustFail(t, "tenant initech not found", "tenant", "show", "initech")
	})

	acme := cliTenant{Slug: "acme", Name: "Acme", Schema: "", Timezone: "UTC", Status: "active",
		APIEnabled: true, RateLimitPerMinute: 300, Domains: []string{}}
	t.Run("show", func(t *testing.T) {
		want := acme
		want.Schema = schema
		checkTenant(t, mustRun(t, "tenant", "show", "acme"), want)
	})

	t.Run("show unknown", func(t *testing.T) {
		mustFail(t, "tenant nope not found", "tenant", "show", "nope")
		_, err := run(t, "tenant", "show", "nope")
		if !learngate.IsCode(err, learngate.NotFound) {
			t.Fatalf("error code = %q, want not_found", learngate.ErrorCode(err))
		}
	})

	t.Run("list", func(t *testing.T) {
		var ts []cliTenant
		decodeStrict(t, mustRun(t, "tenant", "list"), &ts)
		if len(ts) != 2 || ts[0].Slug != "acme" || ts[1].Slug != "globex" {
			t.Fatalf("tenants = %+v, want acme and globex", ts)
		}
	})

	t.Run("update status", func(t *testing.T) {
		want := acme
		want.Status = "suspended"
		checkTenant(t, mustRun(t, "tenant", "update", "acme", "--status", "suspended"), want)
		assertPing(t, "acme.learngate.localhost", key, http.StatusUnauthorized, `{"error":"unauthorized"}`)
		checkTenant(t, mustRun(t, "tenant", "update", "acme", "--status", "active"), acme)
		assertPing(t, "acme.learngate.localhost", key, http.StatusOK, `{"organisation":"acme"}`)
	})

	t.Run("update every field", func(t *testing.T) {
		acme.Name, acme.Timezone, acme.RateLimitPerMinute = "Acme Inc", "Europe/Paris", 50
		checkTenant(t, mustRun(t, "tenant", "update", "acme", "--name", "Acme Inc", "--timezone", "Europe/Paris",
			"--rate-limit", "50", "--api-enabled=true", "--status", "active"), acme)
		w := ping(t, "acme.learngate.localhost", key)
		if w.Code != http.StatusOK || w.Header().Get("X-RateLimit-Limit") != "50" {
			t.Fatalf("ping: %d, X-RateLimit-Limit %q", w.Code, w.Header().Get("X-RateLimit-Limit"))
		}
		acme.APIEnabled = false
		checkTenant(t, mustRun(t, "tenant", "update", "acme", "--api-enabled=false"), acme)
		assertPing(t, "acme.learngate.localhost", key, http.StatusUnauthorized, `{"error":"unauthorized"}`)
		acme.APIEnabled = true
		checkTenant(t, mustRun(t, "tenant", "update", "acme", "--api-enabled"), acme)
		// Flags not given stay as they are.
		checkTenant(t, mustRun(t, "tenant", "update", "acme"), acme)
	})

	t.Run("update refused", func(t *testing.T) {
		mustFail(t, "status must be active or suspended", "tenant", "update", "acme", "--status", "gone")
		mustFail(t, "rate_limit_per_minute must be between 1 and 1000000", "tenant", "update", "acme", "--rate-limit", "0")
		mustFail(t, "tenant nope not found", "tenant", "update", "nope", "--name", "Nope")
		checkTenant(t, mustRun(t, "tenant", "show", "acme"), acme)
	})

	t.Run("domain add and remove", func(t *testing.T) {
		want := acme
		want.Domains = []string{"learn.acme.test"}
		checkTenant(t, mustRun(t, "domain", "add", "acme", "Learn.Acme.Test."), want)
		assertPing(t, "learn.acme.test", key, http.StatusOK, `{"organisation":"acme"}`)
		mustFail(t, "domain already taken", "domain", "add", "globex", "learn.acme.test")
		mustFail(t, `invalid domain "bad domain"`, "domain", "add", "acme", "bad domain")
		mustFail(t, "tenant nope not found", "domain", "add", "nope", "nope.test")

		if out := mustRun(t, "domain", "remove", "acme", "learn.acme.test"); out != "removed learn.acme.test from acme\n" {
			t.Fatalf("output = %q", out)
		}
		assertPing(t, "learn.acme.test", key, http.StatusNotFound, `{"error":"unknown organisation"}`)
		mustFail(t, "domain learn.acme.test not found", "domain", "remove", "acme", "learn.acme.test")
		mustFail(t, "domain learn.globex.test not found", "domain", "remove", "acme", "learn.globex.test")
		checkTenant(t, mustRun(t, "tenant", "show", "acme"), acme)
	})

	t.Run("keys", func(t *testing.T) {
		keyFile := filepath.Join(dir, "acme2.key")
		out := mustRun(t, "key", "create", "acme", "--key-out", keyFile)
		m := keyPattern.FindStringSubmatch(out)
		if m == nil || m[3] != "acme" || !strings.HasPrefix(m[4], m[2]) {
			t.Fatalf("output = %q", out)
		}
		newID, newKey := m[1], m[4]
		if got := readKeyFile(t, keyFile); got != newKey+"\n" || newKey == key {
			t.Fatalf("key file = %q, printed key %q, first key %q", got, newKey, key)
		}
		assertPing(t, "acme.learngate.localhost", key, http.StatusOK, `{"organisation":"acme"}`)
		assertPing(t, "acme.learngate.localhost", newKey, http.StatusOK, `{"organisation":"acme"}`)

		var keys []cliKey
		listed := mustRun(t, "key", "list", "acme")
		decodeStrict(t, listed, &keys)
		if len(keys) != 2 || keys[0].Prefix != key[:11] || keys[1].Prefix != newKey[:11] ||
			keys[0].RevokedAt != nil || keys[1].RevokedAt != nil || strings.Contains(listed, key) || strings.Contains(listed, newKey) {
			t.Fatalf("key list = %s", listed)
		}
		if got := strconv.FormatInt(keys[1].ID, 10); got != newID {
			t.Fatalf("listed id %s, created id %s", got, newID)
		}
		firstID := strconv.FormatInt(keys[0].ID, 10)

		if out := mustRun(t, "key", "revoke", "acme", firstID); out != "revoked key "+firstID+" of acme\n" {
			t.Fatalf("output = %q", out)
		}
		assertPing(t, "acme.learngate.localhost", key, http.StatusUnauthorized, `{"error":"unauthorized"}`)
		assertPing(t, "acme.learngate.localhost", newKey, http.StatusOK, `{"organisation":"acme"}`)
		decodeStrict(t, mustRun(t, "key", "list", "acme"), &keys)
		if len(keys) != 2 || keys[0].RevokedAt == nil || keys[1].RevokedAt != nil {
			t.Fatalf("keys after revoke = %+v", keys)
		}

		mustFail(t, "api key "+firstID+" not found", "key", "revoke", "acme", firstID)
		mustFail(t, `KEY_ID must be a number, got "abc"`, "key", "revoke", "acme", "abc")
		mustFail(t, "tenant nope not found", "key", "create", "nope")
		mustFail(t, "tenant nope not found", "key", "list", "nope")
		key = newKey
	})

	t.Run("delete", func(t *testing.T) {
		mustFail(t, `--confirm must repeat the slug "acme"`, "tenant", "delete", "acme")
		mustFail(t, `--confirm must repeat the slug "acme"`, "tenant", "delete", "acme", "--confirm", "globex")
		assertPing(t, "acme.learngate.localhost", key, http.StatusOK, `{"organisation":"acme"}`)
		if out := mustRun(t, "tenant", "delete", "acme", "--confirm", "acme"); out != "deleted tenant acme\n" {
			t.Fatalf("output = %q", out)
		}
		mustFail(t, "tenant acme not found", "tenant", "show", "acme")
		assertPing(t, "acme.learngate.localhost", key, http.StatusNotFound, `{"error":"unknown organisation"}`)
		mustFail(t, "tenant acme not found", "tenant", "delete", "acme", "--confirm", "acme")
		var ts []cliTenant
		decodeStrict(t, mustRun(t, "tenant", "list"), &ts)
		if len(ts) != 1 || ts[0].Slug != "globex" {
			t.Fatalf("tenants = %+v, want only globex", ts)
		}
	})
}

func TestConfigErrors(t *testing.T) {
	t.Run("database url unset", func(t *testing.T) {
		clearServiceEnv(t)
		for _, args := range [][]string{{"serve"}, {"worker"}, {"migrate"}, {"tenant", "list"}, {"key", "list", "acme"}} {
			_, err := run(t, args...)
			if err == nil || err.Error() != "LEARNGATE_DATABASE_URL is required" {
				t.Fatalf("learngate %s: error %v, want LEARNGATE_DATABASE_URL is required", strings.Join(args, " "), err)
			}
		}
	})

	t.Run("malformed setting", func(t *testing.T) {
		clearServiceEnv(t)
		t.Setenv("LEARNGATE_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
		t.Setenv("LEARNGATE_LOG_FORMAT", "xml")
		_, err := run(t, "serve")
		if err == nil || err.Error() != `LEARNGATE_LOG_FORMAT must be json or text, got "xml"` {
			t.Fatalf("error = %v", err)
		}
	})

	t.Run("serve without ops token", func(t *testing.T) {
		cliEnv(t)
		_, err := run(t, "serve")
		if err == nil || err.Error() != "LEARNGATE_OPS_TOKEN is required for the ops API and must be at least 12 characters" {
			t.Fatalf("error = %v", err)
		}
	})
}
