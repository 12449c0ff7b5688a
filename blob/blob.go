// Package blob stores the files learngate hands out (certificate PDFs)
// behind one small interface, Store, with two implementations: Local, a
// folder on disk whose files are downloaded through HMAC-signed, expiring
// links served by learngate itself, and S3, any S3-compatible service,
// whose links are pre-signed GET URLs.
package blob

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Store keeps files by key and makes temporary download links to them.
type Store interface {
	// Put stores data under key, replacing what was there.
	Put(ctx context.Context, key string, data []byte, contentType string) error
	// URL returns a link that downloads key until link.TTL has passed.
	URL(ctx context.Context, key string, link Link) (string, error)
	// Delete removes key; a key that does not exist is not an error.
	Delete(ctx context.Context, key string) error
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
