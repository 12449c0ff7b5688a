// Package config loads learngate's settings from the environment
// (docs/decisions.md, "Processes and configuration"). Nothing here is global: Load returns a value
// that the caller injects where it is needed.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"learngate/secrets"
)

// Config is every setting of the service. Field tags name the variables.
type Config struct {
	DatabaseURL string `env:"LEARNGATE_DATABASE_URL,required,notEmpty"`
	// DatabaseDirectURL is where migrations (and their lock) connect:
	// PostgreSQL itself when LEARNGATE_DATABASE_URL goes through a pooler.
	// Defaults to DatabaseURL.
	DatabaseDirectURL string `env:"LEARNGATE_DATABASE_DIRECT_URL"`
	RedisURL          string `env:"LEARNGATE_REDIS_URL"`
	HTTPAddr          string `env:"LEARNGATE_HTTP_ADDR" envDefault:":8080"`
	OpsAddr           string `env:"LEARNGATE_OPS_ADDR" envDefault:"127.0.0.1:8081"`
	// TLSAskAddr is the listener answering only Caddy's on-demand TLS
	// question, GET /tls/ask, without the ops token; empty: none.
	TLSAskAddr   string   `env:"LEARNGATE_TLS_ASK_ADDR"`
	OpsToken     string   `env:"LEARNGATE_OPS_TOKEN"`
	BaseDomains  []string `env:"LEARNGATE_BASE_DOMAINS" envDefault:"learngate.localhost"`
	PublicScheme string   `env:"LEARNGATE_PUBLIC_SCHEME" envDefault:"https"`
	// PublicPort is the port learners' links name (invitation emails) when
	// it is not the scheme's default: a local node or a proxy on another
	// port; 0, the default, names none.
	PublicPort     int           `env:"LEARNGATE_PUBLIC_PORT" envDefault:"0"`
	TrustedProxies []string      `env:"LEARNGATE_TRUSTED_PROXIES"`
	Worker         bool          `env:"LEARNGATE_WORKER" envDefault:"true"`
	MigrateOnStart bool          `env:"LEARNGATE_MIGRATE_ON_START" envDefault:"true"`
	ShutdownGrace  time.Duration `env:"LEARNGATE_SHUTDOWN_GRACE" envDefault:"25s"`

	// WorkerMetricsAddr, when set, is where `learngate worker` serves
	// /healthz and, behind the ops token, /metrics (host:port).
	WorkerMetricsAddr string `env:"LEARNGATE_WORKER_METRICS_ADDR"`

	// HTTPReadTimeout is how long a whole request, body included, may take
	// to arrive on either listener; a slower sender is cut off.
	HTTPReadTimeout time.Duration `env:"LEARNGATE_HTTP_READ_TIMEOUT" envDefault:"30s"`
	// HTTPIdleTimeout closes a keep-alive connection idle for that long.
	HTTPIdleTimeout time.Duration `env:"LEARNGATE_HTTP_IDLE_TIMEOUT" envDefault:"120s"`

	// DatabaseReadTimeout fails a query when PostgreSQL sends nothing for
	// that long (a hung server); 0 waits for ever.
	DatabaseReadTimeout time.Duration `env:"LEARNGATE_DATABASE_READ_TIMEOUT" envDefault:"30s"`
	// DatabaseConnMaxLifetime closes a pooled connection this long after it
	// opened (when next returned to the pool), so that its PostgreSQL backend
	// and what it cached go; 0 keeps connections for ever.
	DatabaseConnMaxLifetime time.Duration `env:"LEARNGATE_DATABASE_CONN_MAX_LIFETIME" envDefault:"5m"`
	// DatabaseConnMaxSchemas closes a pooled connection once it has served
	// that many distinct tenant schemas: its backend caches the catalog of
	// each (about 250-300 KiB a schema); 0 means no limit.
	DatabaseConnMaxSchemas int `env:"LEARNGATE_DATABASE_CONN_MAX_SCHEMAS" envDefault:"200"`

	// AuthFailuresPerMinute limits failed API-key attempts per client IP.
	AuthFailuresPerMinute int64 `env:"LEARNGATE_AUTH_FAILURES_PER_MINUTE" envDefault:"20"`
	// DownloadsPerMinute limits certificate downloads (which carry no API
	// key and so never use a tenant's quota) per client IP and tenant.
	DownloadsPerMinute int64 `env:"LEARNGATE_DOWNLOADS_PER_MINUTE" envDefault:"60"`

	BlobDir     string `env:"LEARNGATE_BLOB_DIR" envDefault:".data/blobs"`
	S3Endpoint  string `env:"LEARNGATE_S3_ENDPOINT"`
	S3Bucket    string `env:"LEARNGATE_S3_BUCKET"`
	S3AccessKey string `env:"LEARNGATE_S3_ACCESS_KEY"`
	S3SecretKey string `env:"LEARNGATE_S3_SECRET_KEY"`
	S3Region    string `env:"LEARNGATE_S3_REGION"`
	SMTPURL     string `env:"LEARNGATE_SMTP_URL"`
	SigningKey  string `env:"LEARNGATE_SIGNING_KEY"`

	// SecretsKey encrypts secrets at rest (webhook signing secrets):
	// comma-separated base64 keys of 32+ bytes, the first encrypts (see
	// Keyring). InsecureDev allows running without it, on a public
	// development key (make run, tests).
	SecretsKey  string `env:"LEARNGATE_SECRETS_KEY"`
	InsecureDev bool   `env:"LEARNGATE_INSECURE_DEV" envDefault:"false"`

	WebhookAllowPrivate bool `env:"LEARNGATE_WEBHOOK_ALLOW_PRIVATE" envDefault:"false"`
	// SSOAllowPrivate lets an identity provider (OIDC issuer, SAML
	// metadata_url, and the endpoints a discovery document names) on a
	// private or loopback address through, and plain http for loopback
	// only (make run, tests).
	SSOAllowPrivate bool   `env:"LEARNGATE_SSO_ALLOW_PRIVATE" envDefault:"false"`
	LogFormat       string `env:"LEARNGATE_LOG_FORMAT" envDefault:"json"`
	LogLevel        string `env:"LEARNGATE_LOG_LEVEL" envDefault:"info"`
}

// Load reads the configuration from environ (as os.Environ returns it) and
// validates it. The error is one line naming the offending variable.
func Load(environ []string) (Config, error) {
	vars := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	var cfg Config
	if err := env.ParseWithOptions(&cfg, env.Options{Environment: vars}); err != nil {
		return Config{}, explain(err)
	}
	if err := cfg.validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// RequireOpsToken reports a missing or too short LEARNGATE_OPS_TOKEN; only
// the processes that serve the ops API need one.
func (c Config) RequireOpsToken() error {
	if len(c.OpsToken) < 12 {
		return errors.New("LEARNGATE_OPS_TOKEN is required for the ops API and must be at least 12 characters")
	}
	return nil
}

func (c *Config) validate() error {
	u, err := url.Parse(c.DatabaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return errors.New("LEARNGATE_DATABASE_URL must be a postgres:// URL")
	}
	if c.DatabaseDirectURL == "" {
		c.DatabaseDirectURL = c.DatabaseURL
	}
	if u, err := url.Parse(c.DatabaseDirectURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return errors.New("LEARNGATE_DATABASE_DIRECT_URL must be a postgres:// URL")
	}
	if c.RedisURL != "" {
		if _, err := ParseRedisURL(c.RedisURL); err != nil {
			return err
		}
	}
	for name, addr := range map[string]string{"LEARNGATE_HTTP_ADDR": c.HTTPAddr, "LEARNGATE_OPS_ADDR": c.OpsAddr,
		"LEARNGATE_TLS_ASK_ADDR": c.TLSAskAddr} {
		if name == "LEARNGATE_TLS_ASK_ADDR" && addr == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return fmt.Errorf("%s must be host:port, got %q", name, addr)
		}
	}
	domains := c.BaseDomains[:0]
	for _, d := range c.BaseDomains {
		d = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
		if d == "" {
			continue
		}
		if strings.ContainsAny(d, " /:@") {
			return fmt.Errorf("LEARNGATE_BASE_DOMAINS holds an invalid domain %q", d)
		}
		domains = append(domains, d)
	}
	if len(domains) == 0 {
		return errors.New("LEARNGATE_BASE_DOMAINS must name at least one domain")
	}
	c.BaseDomains = domains
	if c.PublicPort < 0 || c.PublicPort > 65535 {
		return fmt.Errorf("LEARNGATE_PUBLIC_PORT must be a port (0 for the scheme's default), got %d", c.PublicPort)
	}
	if c.PublicScheme != "https" && c.PublicScheme != "http" {
		return fmt.Errorf("LEARNGATE_PUBLIC_SCHEME must be https or http, got %q", c.PublicScheme)
	}
	for _, p := range c.TrustedProxies {
		if _, _, err := net.ParseCIDR(p); err != nil && net.ParseIP(p) == nil {
			return fmt.Errorf("LEARNGATE_TRUSTED_PROXIES holds an invalid address %q", p)
		}
	}
	if c.SMTPURL != "" {
		if _, err := ParseSMTPURL(c.SMTPURL); err != nil {
			return fmt.Errorf("LEARNGATE_SMTP_URL %w", err)
		}
	}
	if err := c.validateBlobs(); err != nil {
		return err
	}
	if c.SecretsKey != "" {
		if _, err := secrets.ParseKeyring(c.SecretsKey); err != nil {
			return fmt.Errorf("LEARNGATE_SECRETS_KEY: %w", err)
		}
	}
	if c.AuthFailuresPerMinute < 1 {
		return errors.New("LEARNGATE_AUTH_FAILURES_PER_MINUTE must be at least 1")
	}
	if c.DownloadsPerMinute < 1 {
		return errors.New("LEARNGATE_DOWNLOADS_PER_MINUTE must be at least 1")
	}
	if c.DatabaseReadTimeout < 0 {
		return errors.New("LEARNGATE_DATABASE_READ_TIMEOUT must be a duration such as 30s, or 0 for none")
	}
	if c.DatabaseConnMaxLifetime < 0 {
		return errors.New("LEARNGATE_DATABASE_CONN_MAX_LIFETIME must be a duration such as 5m, or 0 for none")
	}
	if c.DatabaseConnMaxSchemas < 0 {
		return errors.New("LEARNGATE_DATABASE_CONN_MAX_SCHEMAS must be a number of schemas, or 0 for no limit")
	}
	if c.ShutdownGrace <= 0 {
		return errors.New("LEARNGATE_SHUTDOWN_GRACE must be a positive duration such as 25s")
	}
	if c.HTTPReadTimeout <= 0 {
		return errors.New("LEARNGATE_HTTP_READ_TIMEOUT must be a positive duration such as 30s")
	}
	if c.HTTPIdleTimeout <= 0 {
		return errors.New("LEARNGATE_HTTP_IDLE_TIMEOUT must be a positive duration such as 120s")
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		return fmt.Errorf("LEARNGATE_LOG_FORMAT must be json or text, got %q", c.LogFormat)
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("LEARNGATE_LOG_LEVEL must be debug, info, warn or error, got %q", c.LogLevel)
	}
	return nil
}

// MinSigningKeyLength is the shortest LEARNGATE_SIGNING_KEY accepted.
const MinSigningKeyLength = 32

// S3Enabled reports whether certificates are stored in S3 rather than LEARNGATE_BLOB_DIR.
func (c Config) S3Enabled() bool { return c.S3Endpoint != "" }

// validateBlobs checks the certificate storage settings: S3 needs endpoint,
// bucket and both keys, or none of them. Values are never shown: they may be secrets.
func (c Config) validateBlobs() error {
	if c.SigningKey != "" && len(c.SigningKey) < MinSigningKeyLength {
		return fmt.Errorf("LEARNGATE_SIGNING_KEY must be at least %d characters", MinSigningKeyLength)
	}
	s3 := []struct{ name, value string }{
		{"LEARNGATE_S3_ENDPOINT", c.S3Endpoint}, {"LEARNGATE_S3_BUCKET", c.S3Bucket},
		{"LEARNGATE_S3_ACCESS_KEY", c.S3AccessKey}, {"LEARNGATE_S3_SECRET_KEY", c.S3SecretKey},
	}
	var set string
	var missing []string
	for _, v := range s3 {
		if v.value == "" {
			missing = append(missing, v.name)
		} else if set == "" {
			set = v.name
		}
	}
	if set != "" && len(missing) > 0 {
		return fmt.Errorf("%s is set, so %s must be set too (S3 storage needs all four)", set, strings.Join(missing, ", "))
	}
	if c.S3Endpoint != "" {
		u, err := url.Parse(c.S3Endpoint)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") ||
			u.User != nil || u.RawQuery != "" {
			return errors.New("LEARNGATE_S3_ENDPOINT must be an http:// or https:// URL of a host, without a path")
		}
	}
	return nil
}

// explain turns the env library's error into one line naming the variable.
func explain(err error) error {
	var agg env.AggregateError
	if !errors.As(err, &agg) || len(agg.Errors) == 0 {
		return err
	}
	switch e := agg.Errors[0].(type) {
	case env.VarIsNotSetError:
		return fmt.Errorf("%s is required", e.Key)
	case env.EmptyVarError:
		return fmt.Errorf("%s is required", e.Key)
	case env.ParseError:
		field, _ := reflect.TypeOf(Config{}).FieldByName(e.Name)
		name, _, _ := strings.Cut(field.Tag.Get("env"), ",")
		cause := errors.Unwrap(e.Err) // strconv's *NumError → "invalid syntax"
		var pv env.ParseValueError    // the library's own parsers (durations, URLs) do not unwrap
		if errors.As(e.Err, &pv) {
			cause = pv.Err
		}
		if cause == nil {
			cause = e.Err
		}
		return fmt.Errorf("%s has an invalid value for a %s: %v", name, e.Type, cause)
	}
	return agg.Errors[0]
}
