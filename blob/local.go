package blob

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"learngate"
)

// MinSigningKeyBytes is the shortest signing key Local accepts.
const MinSigningKeyBytes = 32

// DownloadPath is where learngate serves Local's links; the token follows it.
const DownloadPath = "/papi/certificates/download/"

// tokenVersion starts every token's payload; a new token form gets a new one.
const tokenVersion = "v1"

// Local keeps files in a folder and signs download links with an HMAC-SHA256
// key. A token carries the tenant id, the expiry (Unix seconds), the key
// and the file name, and its signature covers all of them, so it cannot be
// moved to another tenant, file or time.
type Local struct {
	dir        string
	signingKey []byte
}

// NewLocal returns the store over dir (created if missing) signing with
// signingKey (at least MinSigningKeyBytes).
func NewLocal(dir string, signingKey []byte) (*Local, error) {
	if len(signingKey) < MinSigningKeyBytes {
		return nil, fmt.Errorf("blob: the signing key must be at least %d bytes", MinSigningKeyBytes)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("blob: create %s: %w", dir, err)
	}
	return &Local{dir: dir, signingKey: bytes.Clone(signingKey)}, nil
}

// String names the folder.
func (l *Local) String() string { return "local folder " + l.dir }

// path is key's file.
func (l *Local) path(key string) string { return filepath.Join(l.dir, filepath.FromSlash(key)) }

// Put writes data to key's file through a temporary file and a rename, so
// a reader never sees half a file.
func (l *Local) Put(_ context.Context, key string, data []byte, _ string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	p := l.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".put-*")
	if err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("blob: write %s: %w", key, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("blob: write %s: %w", key, err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("blob: store %s: %w", key, err)
	}
	return nil
}

// Delete removes key's file.
func (l *Local) Delete(_ context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := os.Remove(l.path(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob: delete %s: %w", key, err)
	}
	return nil
}

// DeletePrefix removes prefix's folder with everything in it.
func (l *Local) DeletePrefix(_ context.Context, prefix string) error {
	if err := checkPrefix(prefix); err != nil {
		return err
	}
	if err := os.RemoveAll(l.path(strings.TrimSuffix(prefix, "/"))); err != nil {
		return fmt.Errorf("blob: delete %s: %w", prefix, err)
	}
	return nil
}

// URL returns <scheme>://<host>/papi/certificates/download/<token>, valid
// until link.Now + link.TTL on link.TenantID's hosts only.
func (l *Local) URL(_ context.Context, key string, link Link) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	if err := checkLink(link); err != nil {
		return "", err
	}
	if link.Scheme != "https" && link.Scheme != "http" || link.Host == "" || strings.ContainsAny(link.Host, "/?#@") {
		return "", fmt.Errorf("blob: cannot make a link for %s://%s", link.Scheme, link.Host)
	}
	expires := link.Now.Add(link.TTL).Unix()
	payload := strings.Join([]string{tokenVersion, strconv.FormatInt(link.TenantID, 10),
		strconv.FormatInt(expires, 10), key, link.Filename}, "|")
	token := base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." +
		base64.RawURLEncoding.EncodeToString(l.sign([]byte(payload)))
	return link.Scheme + "://" + link.Host + DownloadPath + token, nil
}

// sign is the HMAC-SHA256 of payload, in a domain of its own.
func (l *Local) sign(payload []byte) []byte {
	mac := hmac.New(sha256.New, l.signingKey)
	mac.Write([]byte("learngate download link\n"))
	mac.Write(payload)
	return mac.Sum(nil)
}

// Download is an open file behind a link. The caller closes Body.
type Download struct {
	Body        io.ReadCloser
	Size        int64
	ContentType string
	// Disposition is the Content-Disposition header offering the file name.
	Disposition string
}

// notFound is what every token that is not a valid link of this tenant
// gets: garbage, a bad signature, another tenant's link, a missing file.
func notFound() error { return learngate.Errorf(learngate.NotFound, "not found") }

// Open checks token (signature in constant time, then tenant, then
// expiry at now) and opens its file. A token that is not a valid link to
// an existing file of tenantID is NotFound; an expired one is Gone.
func (l *Local) Open(token string, tenantID int64, now time.Time) (Download, error) {
	encPayload, encSig, ok := strings.Cut(token, ".")
	if !ok {
		return Download{}, notFound()
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(encPayload)
	sig, err2 := base64.RawURLEncoding.DecodeString(encSig)
	if err1 != nil || err2 != nil || !hmac.Equal(sig, l.sign(payload)) {
		return Download{}, notFound()
	}
	parts := strings.Split(string(payload), "|")
	if len(parts) != 5 || parts[0] != tokenVersion {
		return Download{}, notFound()
	}
	owner, err1 := strconv.ParseInt(parts[1], 10, 64)
	expires, err2 := strconv.ParseInt(parts[2], 10, 64)
	key, filename := parts[3], parts[4]
	if err1 != nil || err2 != nil || owner != tenantID || checkKey(key) != nil {
		return Download{}, notFound()
	}
	if now.Unix() >= expires {
		return Download{}, learngate.Errorf(learngate.Gone,
			"This download link has expired: ask for the certificate job's status again for a new link")
	}
	f, err := os.Open(l.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return Download{}, notFound()
	}
	if err != nil {
		return Download{}, fmt.Errorf("blob: open %s: %w", key, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return Download{}, fmt.Errorf("blob: stat %s: %w", key, err)
	}
	ctype := mime.TypeByExtension(path.Ext(filename))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	return Download{Body: f, Size: info.Size(), ContentType: ctype, Disposition: contentDisposition(filename)}, nil
}
