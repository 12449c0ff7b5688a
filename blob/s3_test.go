package blob_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"learngate/blob"
)

// fakeS3 runs gofakes3, an in-process S3-compatible server, with a bucket
// "certs". It checks requests' form but not their signatures or expiry;
// TestS3PresignedURL checks those parameters itself.
func fakeS3(t *testing.T) (*blob.S3, string) {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("certs"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	s, err := blob.NewS3(blob.S3Config{Endpoint: srv.URL, Bucket: "certs", AccessKey: "AKIDEXAMPLE", SecretKey: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	return s, srv.URL
}

func TestS3RoundTrip(t *testing.T) {
	ctx := context.Background()
	s, endpoint := fakeS3(t)
	key := "tenant_1/certificates/abc.pdf"
	if err := s.Put(ctx, key, []byte("%PDF-1.4 from s3"), "application/pdf"); err != nil {
		t.Fatalf("put: %v", err)
	}
	raw, err := s.URL(ctx, key, blob.Link{Filename: "certificate-LG-1.pdf", TTL: 15 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(raw, endpoint+"/certs/tenant_1/certificates/abc.pdf?") {
		t.Fatalf("url = %s, want a path-style URL on the endpoint", raw)
	}
	res, err := http.Get(raw)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(body) != "%PDF-1.4 from s3" ||
		res.Header.Get("Content-Disposition") != `attachment; filename="certificate-LG-1.pdf"` ||
		res.Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("GET = %d %q, headers %v", res.StatusCode, body, res.Header)
	}

	if err := s.Delete(ctx, key); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
	res, err = http.Get(raw)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("GET after delete = %d, want 404", res.StatusCode)
	}
}

func TestS3PresignedURL(t *testing.T) {
	s, _ := fakeS3(t)
	before := time.Now().UTC().Truncate(time.Second)
	raw, err := s.URL(context.Background(), "tenant_1/certificates/abc.pdf",
		blob.Link{Filename: "certificate-LG-1.pdf", TTL: 15 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	signedAt, err := time.Parse("20060102T150405Z", q.Get("X-Amz-Date"))
	if err != nil || signedAt.Before(before) || signedAt.After(time.Now().Add(time.Second)) {
		t.Errorf("X-Amz-Date = %q (%v), want now", q.Get("X-Amz-Date"), err)
	}
	want := map[string]string{
		"X-Amz-Algorithm":     "AWS4-HMAC-SHA256",
		"X-Amz-Expires":       "900",
		"X-Amz-SignedHeaders": "host",
	}
	for k, v := range want {
		if q.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, q.Get(k), v)
		}
	}
	if c := q.Get("X-Amz-Credential"); !strings.HasPrefix(c, "AKIDEXAMPLE/") || !strings.HasSuffix(c, "/us-east-1/s3/aws4_request") {
		t.Errorf("X-Amz-Credential = %q", c)
	}
	if sig := q.Get("X-Amz-Signature"); len(sig) != 64 {
		t.Errorf("X-Amz-Signature = %q, want 64 hex digits", sig)
	}
	if strings.Contains(raw, "secret") {
		t.Error("the URL holds the secret key")
	}
}

func TestNewS3ChecksItsConfig(t *testing.T) {
	for _, cfg := range []blob.S3Config{
		{Endpoint: "s3.example.com", Bucket: "b", AccessKey: "a", SecretKey: "s"},
		{Endpoint: "ftp://s3.example.com", Bucket: "b", AccessKey: "a", SecretKey: "s"},
		{Endpoint: "https://s3.example.com/bucket", Bucket: "b", AccessKey: "a", SecretKey: "s"},
		{Endpoint: "https://s3.example.com", AccessKey: "a", SecretKey: "s"},
		{Endpoint: "https://s3.example.com", Bucket: "b", SecretKey: "s"},
		{Endpoint: "https://s3.example.com", Bucket: "b", AccessKey: "a"},
	} {
		if _, err := blob.NewS3(cfg); err == nil {
			t.Errorf("NewS3(%+v) succeeded", cfg)
		}
	}
}
