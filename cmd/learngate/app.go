package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"

	"github.com/redis/go-redis/v9"

	"learngate/blob"
	"learngate/config"
	"learngate/store"
	"learngate/tenant"
)

// app holds the process's shared dependencies, built once from the
// environment and passed to whatever needs them.
type app struct {
	cfg      config.Config
	logger   *slog.Logger
	db       *store.DB
	redis    redis.UniversalClient // nil without LEARNGATE_REDIS_URL
	registry *tenant.Registry
	blobs    blobStores
}

// openApp loads the configuration, connects to PostgreSQL and, when
// configured, Redis, and opens the certificate storage (which the
// registry empties of an offboarded tenant's files).
func openApp(ctx context.Context) (*app, error) {
	cfg, err := config.Load(os.Environ())
	if err != nil {
		return nil, err
	}
	logger := newLogger(cfg)
	// Without LEARNGATE_SECRETS_KEY (and LEARNGATE_INSECURE_DEV) there is
	// no keyring: serve, worker and migrate then refuse to start
	// (requireSecrets); the other commands never read or write a webhook
	// secret, and their store keeps the development key.
	keyring, _ := cfg.Keyring()
	db, err := store.OpenWith(ctx, cfg.DatabaseURL, store.Options{ReadTimeout: cfg.DatabaseReadTimeout,
		Secrets: keyring, DirectURL: cfg.DatabaseDirectURL,
		ConnMaxLifetime: cfg.DatabaseConnMaxLifetime, ConnMaxSchemas: cfg.DatabaseConnMaxSchemas})
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, logger: logger, db: db}
	if cfg.RedisURL != "" {
		if a.redis, err = newRedisClient(cfg.RedisURL); err != nil {
			db.Close()
			return nil, err
		}
	}
	if a.blobs, err = openBlobs(cfg); err != nil {
		a.close()
		return nil, err
	}
	// The registry removes an offboarded tenant's certificate files.
	regOpts := tenant.Options{BaseDomains: cfg.BaseDomains, Logger: logger, Blobs: a.blobs.store, SSOAllowPrivate: cfg.SSOAllowPrivate}
	if a.redis != nil {
		regOpts.Redis = a.redis
	}
	a.registry = tenant.NewRegistry(db, regOpts)
	return a, nil
}

// requireSecrets refuses to go on without LEARNGATE_SECRETS_KEY, unless
// LEARNGATE_INSECURE_DEV=true, which it warns about: the processes that
// write or read webhook secrets (serve, worker, migrate) call it first.
func (a *app) requireSecrets() error {
	if err := a.cfg.RequireSecretsKey(); err != nil {
		return err
	}
	if a.cfg.SecretsKey == "" {
		a.logger.Warn("LEARNGATE_INSECURE_DEV=true and no LEARNGATE_SECRETS_KEY: webhook secrets are encrypted " +
			"with the public development key; never run like this in production")
	}
	return nil
}

// ready reports whether PostgreSQL answers: /readyz is 503 when it does not.
func (a *app) ready(ctx context.Context) error {
	if err := a.db.Ping(ctx); err != nil {
		return fmt.Errorf("database: %w", err)
	}
	return nil
}

// redisReady returns the check of Redis shown in the body of /readyz (a
// Redis outage does not fail readiness), or nil without LEARNGATE_REDIS_URL.
// On a Redis Cluster every shard must answer: a limiter key may hash to
// any of them.
func (a *app) redisReady() func(context.Context) error {
	if a.redis == nil {
		return nil
	}
	return func(ctx context.Context) error { return pingRedis(ctx, a.redis) }
}

func (a *app) close() {
	if a.redis != nil {
		a.redis.Close()
	}
	a.db.Close()
}

func newLogger(cfg config.Config) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, opts))
}

// blobStores is where certificate PDFs are kept: the store, and the Local
// store again when downloads are served by learngate (nil with S3).
type blobStores struct {
	store blob.Store
	local *blob.Local
}

// openBlobs builds the certificate storage of the configuration: S3 when
// LEARNGATE_S3_* is set, else the folder LEARNGATE_BLOB_DIR with links signed
// by LEARNGATE_SIGNING_KEY. Without a signing key, links are signed with a
// random key of the process (see warnRandomSigningKey).
func openBlobs(cfg config.Config) (blobStores, error) {
	if cfg.S3Enabled() {
		s3, err := blob.NewS3(blob.S3Config{Endpoint: cfg.S3Endpoint, Bucket: cfg.S3Bucket,
			AccessKey: cfg.S3AccessKey, SecretKey: cfg.S3SecretKey, Region: cfg.S3Region})
		if err != nil {
			return blobStores{}, err
		}
		return blobStores{store: s3}, nil
	}
	key := []byte(cfg.SigningKey)
	if len(key) == 0 {
		key = make([]byte, blob.MinSigningKeyBytes)
		_, _ = rand.Read(key) // never fails (crypto/rand)
	}
	local, err := blob.NewLocal(cfg.BlobDir, key)
	if err != nil {
		return blobStores{}, fmt.Errorf("LEARNGATE_BLOB_DIR: %w", err)
	}
	return blobStores{store: local, local: local}, nil
}

// warnRandomSigningKey says, in a process that serves links (serve), that
// they are signed with a random key of its own when LEARNGATE_SIGNING_KEY
// is not set: they then die with it and fail on other nodes. A worker
// alone makes no links.
func warnRandomSigningKey(a *app) {
	if a.cfg.SigningKey != "" {
		return
	}
	signed := "the cursors of list links"
	if a.blobs.local != nil {
		signed = "certificate download links and the cursors of list links"
	}
	a.logger.Warn("LEARNGATE_SIGNING_KEY is not set: " + signed + " are signed with a random key " +
		"of this process, so they stop working when it restarts and fail on other nodes; " +
		"set the same LEARNGATE_SIGNING_KEY (32+ characters) on every node")
}
