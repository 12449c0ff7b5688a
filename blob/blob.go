// Package blob stores the files learngate hands out (certificate PDFs)
// behind one small interface, Store, with two implementations: Local, a
// folder on disk whose files are downloaded through HMAC-signed, expiring
// links served by learngate itself, and S3, any S3-compatible service,
// whose links are pre-signed GET URLs.
package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Store keeps files by key and makes temporary download links to them.
type Store interface {
	// Put stores data under key, replacing what was there.
	Put(ctx context.Context, key string, data []byte, contentType string) error
	// URL returns a link that downloads key until link.TTL has passed.
	URL(ctx context.Context, key string, link Link) (string, error)
	// Delete removes key; a key that does not exist is not an error.
	Delete(ctx context.Context, key string) error
	// DeletePrefix removes every key under prefix, a folder of keys ending
	// in "/" (such as "tenant_7/"); an empty folder is not an error.
	DeletePrefix(ctx context.Context, prefix string) error
	// String says where files are kept, for the log (never a secret).
	String() string
}

// Link describes a download link.
type Link struct {
	// Scheme and Host make Local's links: <Scheme>://<Host>/papi/certificates/download/<token>.
	// Host is the tenant's host, the one the request for the link came to.
	Scheme, Host string
	// TenantID is the tenant the link is bound to: Local refuses it on any
	// other tenant's host.
	TenantID int64
	// Filename is offered to the browser (Content-Disposition).
	Filename string
	// Now is the link's start (Local; S3 signs with the process clock) and
	// TTL its lifetime.
	Now time.Time
	TTL time.Duration
}

// keyPattern is the form of every key: slash-separated names of letters,
// digits, '.', '_' and '-', none of them "." or "..".
var keyPattern = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$`)

// filenamePattern is the form of a download's file name.
var filenamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// checkKey refuses keys that could leave the store's folder or bucket prefix.
func checkKey(key string) error {
	if !keyPattern.MatchString(key) || strings.Contains(key, "..") {
		return fmt.Errorf("blob: invalid key %q", key)
	}
	return nil
}

// checkPrefix refuses anything but a folder of keys: a valid key and "/".
func checkPrefix(prefix string) error {
	folder, ok := strings.CutSuffix(prefix, "/")
	if !ok || checkKey(folder) != nil {
		return fmt.Errorf("blob: invalid prefix %q (a folder of keys ending in '/')", prefix)
	}
	return nil
}

// checkLink refuses links that cannot be made.
func checkLink(link Link) error {
	if !filenamePattern.MatchString(link.Filename) {
		return fmt.Errorf("blob: invalid file name %q", link.Filename)
	}
	if link.TTL <= 0 {
		return fmt.Errorf("blob: link lifetime %s is not positive", link.TTL)
	}
	return nil
}

// contentDisposition is the header value that offers filename for download.
func contentDisposition(filename string) string {
	return `attachment; filename="` + filename + `"`
}

// DefaultS3Region is the region signed for when none is configured.
const DefaultS3Region = "us-east-1"

// S3Config is an S3-compatible service (LEARNGATE_S3_*).
type S3Config struct {
	// Endpoint is the service's URL, such as https://s3.eu-west-1.amazonaws.com
	// or http://127.0.0.1:9000 (no path).
	Endpoint  string
	Bucket    string
	AccessKey string
	SecretKey string
	// Region defaults to DefaultS3Region.
	Region string
}

// S3 keeps files in a bucket of an S3-compatible service and hands out
// pre-signed GET URLs (AWS Signature V4, query-string form).
type S3 struct {
	client   *minio.Client
	bucket   string
	endpoint string
}

// NewS3 returns the store of cfg. It does not contact the service.
func NewS3(cfg S3Config) (*S3, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") ||
		u.User != nil || u.RawQuery != "" {
		return nil, fmt.Errorf("blob: the S3 endpoint must be an http(s)://host[:port] URL, got %q", cfg.Endpoint)
	}
	if cfg.Bucket == "" || cfg.AccessKey == "" || cfg.SecretKey == "" {
		return nil, errors.New("blob: S3 needs a bucket, an access key and a secret key")
	}
	region := cfg.Region
	if region == "" {
		region = DefaultS3Region
	}
	client, err := minio.New(u.Host, &minio.Options{
		Creds:  credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure: u.Scheme == "https",
		Region: region,
	})
	if err != nil {
		return nil, fmt.Errorf("blob: S3 client: %w", err)
	}
	return &S3{client: client, bucket: cfg.Bucket, endpoint: u.Scheme + "://" + u.Host}, nil
}

// String names the bucket and the service.
func (s *S3) String() string { return "S3 bucket " + s.bucket + " at " + s.endpoint }

// Put uploads data to key.
func (s *S3) Put(ctx context.Context, key string, data []byte, contentType string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	_, err := s.client.PutObject(ctx, s.bucket, key, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ContentType: contentType})
	if err != nil {
		return fmt.Errorf("blob: put %s in S3 bucket %s: %w", key, s.bucket, err)
	}
	return nil
}

// Delete removes key (S3 answers success for a missing key).
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}); err != nil {
		return fmt.Errorf("blob: delete %s from S3 bucket %s: %w", key, s.bucket, err)
	}
	return nil
}

// DeletePrefix lists the keys under prefix, then removes them with
// multi-object deletes (1,000 keys a request).
func (s *S3) DeletePrefix(ctx context.Context, prefix string) error {
	if err := checkPrefix(prefix); err != nil {
		return err
	}
	var objects []minio.ObjectInfo
	for obj := range s.client.ListObjectsIter(ctx, s.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			return fmt.Errorf("blob: list %s in S3 bucket %s: %w", prefix, s.bucket, obj.Err)
		}
		objects = append(objects, obj)
	}
	if len(objects) == 0 {
		return nil
	}
	results, err := s.client.RemoveObjectsWithIter(ctx, s.bucket, slices.Values(objects), minio.RemoveObjectsOptions{})
	if err != nil {
		return fmt.Errorf("blob: delete %s from S3 bucket %s: %w", prefix, s.bucket, err)
	}
	var errs []error
	for r := range results {
		if r.Err != nil {
			errs = append(errs, fmt.Errorf("blob: delete %s from S3 bucket %s: %w", r.ObjectName, s.bucket, r.Err))
		}
	}
	return errors.Join(errs...)
}

// URL pre-signs a GET of key for link.TTL, asking the service to answer
// with the file name and content type of the link. It is signed locally:
// no request is made.
func (s *S3) URL(ctx context.Context, key string, link Link) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	if err := checkLink(link); err != nil {
		return "", err
	}
	params := url.Values{"response-content-disposition": {contentDisposition(link.Filename)}}
	if ctype := mime.TypeByExtension(path.Ext(link.Filename)); ctype != "" {
		params.Set("response-content-type", ctype)
	}
	u, err := s.client.PresignedGetObject(ctx, s.bucket, key, link.TTL, params)
	if err != nil {
		return "", fmt.Errorf("blob: pre-sign %s: %w", key, err)
	}
	return u.String(), nil
}
