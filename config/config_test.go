package config_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"learngate/config"
)

const testDatabaseURL = "postgres://postgres@127.0.0.1:5432/learngate?sslmode=disable"

// defaults is the configuration of an environment that sets only the database.
func defaults() config.Config {
	return config.Config{
		DatabaseURL:             testDatabaseURL,
		DatabaseDirectURL:       testDatabaseURL,
		HTTPAddr:                ":8080",
		OpsAddr:                 "127.0.0.1:8081",
		BaseDomains:             []string{"learngate.localhost"},
		PublicScheme:            "https",
		Worker:                  true,
		MigrateOnStart:          true,
		ShutdownGrace:           25 * time.Second,
		DatabaseReadTimeout:     30 * time.Second,
		DatabaseConnMaxLifetime: 5 * time.Minute,
		DatabaseConnMaxSchemas:  200,
		HTTPReadTimeout:         30 * time.Second,
		HTTPIdleTimeout:         120 * time.Second,
		AuthFailuresPerMinute:   20,
		DownloadsPerMinute:      60,
		BlobDir:                 ".data/blobs",
		LogFormat:               "json",
		LogLevel:                "info",
	}
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		environ []string
		want    func(c *config.Config)
	}{
		{
			name:    "defaults",
			environ: []string{"LEARNGATE_DATABASE_URL=" + testDatabaseURL},
			want:    func(*config.Config) {},
		},
		{
			name: "unrelated and malformed entries are ignored",
			environ: []string{"PATH=/usr/bin", "NOEQUALSSIGN", "LEARNGATE_DATABASE_URL=" + testDatabaseURL,
				"LEARNGATE_UNKNOWN=1"},
			want: func(*config.Config) {},
		},
		{
			name: "empty values take the defaults",
			environ: []string{"LEARNGATE_DATABASE_URL=" + testDatabaseURL, "LEARNGATE_HTTP_ADDR=",
				"LEARNGATE_BASE_DOMAINS=", "LEARNGATE_WORKER=", "LEARNGATE_LOG_FORMAT="},
			want: func(*config.Config) {},
		},
		{
			name: "every setting",
			environ: []string{
				"LEARNGATE_DATABASE_URL=postgresql://u:p@db:5432/lg?sslmode=require&x=a=b",
				"LEARNGATE_DATABASE_DIRECT_URL=postgres://u:p@db-primary:5432/lg",
				"LEARNGATE_REDIS_URL=rediss://cache:6380/2",
				"LEARNGATE_HTTP_ADDR=0.0.0.0:9000",
				"LEARNGATE_TLS_ASK_ADDR=127.0.0.1:8082",
				"LEARNGATE_OPS_ADDR=[::1]:9001",
				"LEARNGATE_OPS_TOKEN=secret-token-123",
				"LEARNGATE_BASE_DOMAINS=learn.example.com,learngate.localhost",
				"LEARNGATE_PUBLIC_SCHEME=http",
				"LEARNGATE_TRUSTED_PROXIES=10.0.0.0/8,192.0.2.7,::1",
				"LEARNGATE_WORKER=false",
				"LEARNGATE_MIGRATE_ON_START=0",
				"LEARNGATE_SHUTDOWN_GRACE=1m30s",
				"LEARNGATE_DATABASE_READ_TIMEOUT=0",
				"LEARNGATE_DATABASE_CONN_MAX_LIFETIME=90s",
				"LEARNGATE_DATABASE_CONN_MAX_SCHEMAS=50",
				"LEARNGATE_HTTP_READ_TIMEOUT=5s",
				"LEARNGATE_HTTP_IDLE_TIMEOUT=1m",
				"LEARNGATE_AUTH_FAILURES_PER_MINUTE=5",
				"LEARNGATE_DOWNLOADS_PER_MINUTE=120",
				"LEARNGATE_BLOB_DIR=/var/lib/learngate",
				"LEARNGATE_S3_ENDPOINT=https://s3.example.com",
				"LEARNGATE_S3_BUCKET=bucket",
				"LEARNGATE_S3_ACCESS_KEY=access",
				"LEARNGATE_S3_SECRET_KEY=secret",
				"LEARNGATE_S3_REGION=eu-west-1",
				"LEARNGATE_SMTP_URL=smtp://mail:25?from=noreply@example.com",
				"LEARNGATE_SIGNING_KEY=0123456789abcdef0123456789abcdef",
				"LEARNGATE_WEBHOOK_ALLOW_PRIVATE=true",
				"LEARNGATE_SSO_ALLOW_PRIVATE=true",
				"LEARNGATE_LOG_FORMAT=text",
				"LEARNGATE_LOG_LEVEL=debug",
			},
			want: func(c *config.Config) {
				*c = config.Config{
					DatabaseURL:             "postgresql://u:p@db:5432/lg?sslmode=require&x=a=b",
					DatabaseDirectURL:       "postgres://u:p@db-primary:5432/lg",
					RedisURL:                "rediss://cache:6380/2",
					HTTPAddr:                "0.0.0.0:9000",
					TLSAskAddr:              "127.0.0.1:8082",
					OpsAddr:                 "[::1]:9001",
					OpsToken:                "secret-token-123",
					BaseDomains:             []string{"learn.example.com", "learngate.localhost"},
					PublicScheme:            "http",
					TrustedProxies:          []string{"10.0.0.0/8", "192.0.2.7", "::1"},
					Worker:                  false,
					MigrateOnStart:          false,
					ShutdownGrace:           90 * time.Second,
					DatabaseConnMaxLifetime: 90 * time.Second,
					DatabaseConnMaxSchemas:  50,
					HTTPReadTimeout:         5 * time.Second,
					HTTPIdleTimeout:         time.Minute,
					AuthFailuresPerMinute:   5,
					DownloadsPerMinute:      120,
					BlobDir:                 "/var/lib/learngate",
					S3Endpoint:              "https://s3.example.com",
					S3Bucket:                "bucket",
					S3AccessKey:             "access",
					S3SecretKey:             "secret",
					S3Region:                "eu-west-1",
					SMTPURL:                 "smtp://mail:25?from=noreply@example.com",
					SigningKey:              "0123456789abcdef0123456789abcdef",
					WebhookAllowPrivate:     true,
					SSOAllowPrivate:         true,
					LogFormat:               "text",
					LogLevel:                "debug",
				}
			},
		},
		{
			name:    "base domains are lower-cased, trimmed and lose their trailing dot",
			environ: []string{"LEARNGATE_DATABASE_URL=" + testDatabaseURL, "LEARNGATE_BASE_DOMAINS= Learn.Example.COM. , LearnGate.Localhost,,"},
			want: func(c *config.Config) {
				c.BaseDomains = []string{"learn.example.com", "learngate.localhost"}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.Load(tt.environ)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			want := defaults()
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Load =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name     string
		variable string
		value    string // "-" leaves the variable unset
		want     string
	}{
		{"missing database url", "LEARNGATE_DATABASE_URL", "-", "LEARNGATE_DATABASE_URL is required"},
		{"empty database url", "LEARNGATE_DATABASE_URL", "", "LEARNGATE_DATABASE_URL is required"},
		{"mysql database url", "LEARNGATE_DATABASE_URL", "mysql://x", "LEARNGATE_DATABASE_URL must be a postgres:// URL"},
		{"mysql direct database url", "LEARNGATE_DATABASE_DIRECT_URL", "mysql://x", "LEARNGATE_DATABASE_DIRECT_URL must be a postgres:// URL"},
		{"http redis url", "LEARNGATE_REDIS_URL", "http://x", "LEARNGATE_REDIS_URL must be redis://, rediss://, unix://<socket path>, redis+cluster://host:port,host:port,... or rediss+cluster://host:port,..."},
		{"redis url without a scheme", "LEARNGATE_REDIS_URL", "cache:6379", "LEARNGATE_REDIS_URL must be redis://, rediss://, unix://<socket path>, redis+cluster://host:port,host:port,... or rediss+cluster://host:port,..."},
		{"unix redis url without a path", "LEARNGATE_REDIS_URL", "unix://", "LEARNGATE_REDIS_URL is not valid: redis: empty unix socket path"},
		{"cluster node without a port", "LEARNGATE_REDIS_URL", "redis+cluster://a:7000,b", `LEARNGATE_REDIS_URL is not valid: cluster node "b" must be host:port`},
		{"cluster without nodes", "LEARNGATE_REDIS_URL", "redis+cluster://", "LEARNGATE_REDIS_URL is not valid: the cluster form needs at least one host:port"},
		{"cluster database 2", "LEARNGATE_REDIS_URL", "redis+cluster://a:7000/2", `LEARNGATE_REDIS_URL is not valid: a Redis Cluster has only database 0, got "/2"`},
		{"cluster unknown option", "LEARNGATE_REDIS_URL", "redis+cluster://a:7000?colour=red", "LEARNGATE_REDIS_URL is not valid: redis: unexpected option: colour"},
		{"tls ask addr without port", "LEARNGATE_TLS_ASK_ADDR", "127.0.0.1", `LEARNGATE_TLS_ASK_ADDR must be host:port, got "127.0.0.1"`},
		{"http addr without host", "LEARNGATE_HTTP_ADDR", "8080", `LEARNGATE_HTTP_ADDR must be host:port, got "8080"`},
		{"ops addr without port", "LEARNGATE_OPS_ADDR", "localhost", `LEARNGATE_OPS_ADDR must be host:port, got "localhost"`},
		{"ftp public scheme", "LEARNGATE_PUBLIC_SCHEME", "ftp", `LEARNGATE_PUBLIC_SCHEME must be https or http, got "ftp"`},
		{"negative public port", "LEARNGATE_PUBLIC_PORT", "-1", `LEARNGATE_PUBLIC_PORT must be a port (0 for the scheme's default), got -1`},
		{"public port too high", "LEARNGATE_PUBLIC_PORT", "70000", `LEARNGATE_PUBLIC_PORT must be a port (0 for the scheme's default), got 70000`},
		{"worker maybe", "LEARNGATE_WORKER", "maybe", "LEARNGATE_WORKER has an invalid value for a bool: invalid syntax"},
		{"migrate on start maybe", "LEARNGATE_MIGRATE_ON_START", "maybe", "LEARNGATE_MIGRATE_ON_START has an invalid value for a bool: invalid syntax"},
		{"xml log format", "LEARNGATE_LOG_FORMAT", "xml", `LEARNGATE_LOG_FORMAT must be json or text, got "xml"`},
		{"loud log level", "LEARNGATE_LOG_LEVEL", "loud", `LEARNGATE_LOG_LEVEL must be debug, info, warn or error, got "loud"`},
		{"shutdown grace soon", "LEARNGATE_SHUTDOWN_GRACE", "soon", `LEARNGATE_SHUTDOWN_GRACE has an invalid value for a time.Duration: time: invalid duration "soon"`},
		{"shutdown grace zero", "LEARNGATE_SHUTDOWN_GRACE", "0s", "LEARNGATE_SHUTDOWN_GRACE must be a positive duration such as 25s"},
		{"negative database read timeout", "LEARNGATE_DATABASE_READ_TIMEOUT", "-1s", "LEARNGATE_DATABASE_READ_TIMEOUT must be a duration such as 30s, or 0 for none"},
		{"database read timeout soon", "LEARNGATE_DATABASE_READ_TIMEOUT", "soon", `LEARNGATE_DATABASE_READ_TIMEOUT has an invalid value for a time.Duration: time: invalid duration "soon"`},
		{"negative connection lifetime", "LEARNGATE_DATABASE_CONN_MAX_LIFETIME", "-1s", "LEARNGATE_DATABASE_CONN_MAX_LIFETIME must be a duration such as 5m, or 0 for none"},
		{"negative schemas per connection", "LEARNGATE_DATABASE_CONN_MAX_SCHEMAS", "-1", "LEARNGATE_DATABASE_CONN_MAX_SCHEMAS must be a number of schemas, or 0 for no limit"},
		{"http read timeout zero", "LEARNGATE_HTTP_READ_TIMEOUT", "0", "LEARNGATE_HTTP_READ_TIMEOUT must be a positive duration such as 30s"},
		{"http read timeout negative", "LEARNGATE_HTTP_READ_TIMEOUT", "-1s", "LEARNGATE_HTTP_READ_TIMEOUT must be a positive duration such as 30s"},
		{"http read timeout soon", "LEARNGATE_HTTP_READ_TIMEOUT", "soon", `LEARNGATE_HTTP_READ_TIMEOUT has an invalid value for a time.Duration: time: invalid duration "soon"`},
		{"http idle timeout zero", "LEARNGATE_HTTP_IDLE_TIMEOUT", "0s", "LEARNGATE_HTTP_IDLE_TIMEOUT must be a positive duration such as 120s"},
		{"trusted proxy not an ip", "LEARNGATE_TRUSTED_PROXIES", "10.0.0.1,not-an-ip", `LEARNGATE_TRUSTED_PROXIES holds an invalid address "not-an-ip"`},
		{"base domains only separators", "LEARNGATE_BASE_DOMAINS", " , ", "LEARNGATE_BASE_DOMAINS must name at least one domain"},
		{"base domain with a slash", "LEARNGATE_BASE_DOMAINS", "learn.example.com/x", `LEARNGATE_BASE_DOMAINS holds an invalid domain "learn.example.com/x"`},
		{"auth failures zero", "LEARNGATE_AUTH_FAILURES_PER_MINUTE", "0", "LEARNGATE_AUTH_FAILURES_PER_MINUTE must be at least 1"},
		{"downloads zero", "LEARNGATE_DOWNLOADS_PER_MINUTE", "0", "LEARNGATE_DOWNLOADS_PER_MINUTE must be at least 1"},
		{"smtp url of another scheme", "LEARNGATE_SMTP_URL", "http://mail?from=a@example.com", "LEARNGATE_SMTP_URL must be smtp[s]://[user[:password]@]host[:port]?from=address"},
		{"smtp url without from", "LEARNGATE_SMTP_URL", "smtp://u:hunter22@mail:587", "LEARNGATE_SMTP_URL needs a valid sender address: ?from=noreply@example.com"},
		{"smtp url with a bad port", "LEARNGATE_SMTP_URL", "smtp://u:hunter22@mail:x?from=a@example.com", "LEARNGATE_SMTP_URL must be smtp[s]://[user[:password]@]host[:port]?from=address"},
		{"short signing key", "LEARNGATE_SIGNING_KEY", "short-secret", "LEARNGATE_SIGNING_KEY must be at least 32 characters"},
		{"s3 bucket alone", "LEARNGATE_S3_BUCKET", "certs", "LEARNGATE_S3_BUCKET is set, so LEARNGATE_S3_ENDPOINT, LEARNGATE_S3_ACCESS_KEY, LEARNGATE_S3_SECRET_KEY must be set too (S3 storage needs all four)"},
		{"s3 secret alone", "LEARNGATE_S3_SECRET_KEY", "hunter22", "LEARNGATE_S3_SECRET_KEY is set, so LEARNGATE_S3_ENDPOINT, LEARNGATE_S3_BUCKET, LEARNGATE_S3_ACCESS_KEY must be set too (S3 storage needs all four)"},
		{"auth failures not a number", "LEARNGATE_AUTH_FAILURES_PER_MINUTE", "many", "LEARNGATE_AUTH_FAILURES_PER_MINUTE has an invalid value for a int64: invalid syntax"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			environ := []string{"LEARNGATE_DATABASE_URL=" + testDatabaseURL}
			if tt.variable == "LEARNGATE_DATABASE_URL" {
				environ = nil
			}
			if tt.value != "-" {
				environ = append(environ, tt.variable+"="+tt.value)
			}
			cfg, err := config.Load(environ)
			if err == nil {
				t.Fatalf("Load succeeded with %s=%q: %+v", tt.variable, tt.value, cfg)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tt.variable+" ") {
				t.Errorf("error %q does not start with the variable name %s", msg, tt.variable)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error %q is more than one line", msg)
			}
			if msg != tt.want {
				t.Errorf("error = %q, want %q", msg, tt.want)
			}
			if !reflect.DeepEqual(cfg, config.Config{}) {
				t.Errorf("Load returned a configuration with its error: %+v", cfg)
			}
		})
	}
}

func TestRequireOpsToken(t *testing.T) {
	const msg = "LEARNGATE_OPS_TOKEN is required for the ops API and must be at least 12 characters"
	tests := []struct {
		name    string
		token   string
		wantErr bool
	}{
		{"empty", "", true},
		{"eleven characters", "abcdefghijk", true},
		{"twelve characters", "abcdefghijkl", false},
		{"long", "test-ops-token-0123456789", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			environ := []string{"LEARNGATE_DATABASE_URL=" + testDatabaseURL}
			if tt.token != "" {
				environ = append(environ, "LEARNGATE_OPS_TOKEN="+tt.token)
			}
			cfg, err := config.Load(environ)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if cfg.OpsToken != tt.token {
				t.Fatalf("OpsToken = %q, want %q", cfg.OpsToken, tt.token)
			}
			err = cfg.RequireOpsToken()
			switch {
			case tt.wantErr && err == nil:
				t.Fatal("RequireOpsToken accepted the token")
			case tt.wantErr && err.Error() != msg:
				t.Fatalf("error = %q, want %q", err, msg)
			case !tt.wantErr && err != nil:
				t.Fatalf("RequireOpsToken: %v", err)
			}
		})
	}
}

func TestLoadS3Endpoint(t *testing.T) {
	const msg = "LEARNGATE_S3_ENDPOINT must be an http:// or https:// URL of a host, without a path"
	for endpoint, ok := range map[string]bool{
		"https://s3.eu-west-1.amazonaws.com": true,
		"http://127.0.0.1:9000":              true,
		"s3.example.com":                     false,
		"ftp://s3.example.com":               false,
		"https://s3.example.com/bucket":      false,
		"https://key:secret@s3.example.com":  false,
	} {
		environ := []string{"LEARNGATE_DATABASE_URL=" + testDatabaseURL, "LEARNGATE_S3_ENDPOINT=" + endpoint,
			"LEARNGATE_S3_BUCKET=b", "LEARNGATE_S3_ACCESS_KEY=a", "LEARNGATE_S3_SECRET_KEY=s"}
		cfg, err := config.Load(environ)
		switch {
		case ok && (err != nil || !cfg.S3Enabled()):
			t.Errorf("%s: %v, S3Enabled %v", endpoint, err, cfg.S3Enabled())
		case !ok && (err == nil || err.Error() != msg):
			t.Errorf("%s: error %v, want %q", endpoint, err, msg)
		}
	}
}
