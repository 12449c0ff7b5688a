package main

import (
	"crypto/rand"
	"fmt"

	"learngate/blob"
)

// blobStores is where certificate PDFs are kept: the store, and the Local
// store again when downloads are served by learngate (nil with S3).
type blobStores struct {
	store blob.Store
	local *blob.Local
}

// openBlobs builds the certificate storage of the configuration: S3 when
// LEARNGATE_S3_* is set, else the folder LEARNGATE_BLOB_DIR with links signed
// by LEARNGATE_SIGNING_KEY. Without a signing key, a process that serves
// links (serve) signs with a random key of its own and says so: its links
// then die with it and fail on other nodes. A worker alone makes no links.
func openBlobs(a *app, servesLinks bool) (blobStores, error) {
	cfg := a.cfg
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
		if servesLinks {
			a.logger.Warn("LEARNGATE_SIGNING_KEY is not set: certificate download links are signed with a random key " +
				"of this process, so they stop working when it restarts and fail on other nodes; " +
				"set the same LEARNGATE_SIGNING_KEY (32+ characters) on every node")
		}
	}
	local, err := blob.NewLocal(cfg.BlobDir, key)
	if err != nil {
		return blobStores{}, fmt.Errorf("LEARNGATE_BLOB_DIR: %w", err)
	}
	return blobStores{store: local, local: local}, nil
}
