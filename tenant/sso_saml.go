package tenant

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/crewjam/saml"

	"learngate"
)

// SAML 2.0 configuration (docs/decisions.md, "Sign-in"): the identity
// provider's metadata, given as XML or fetched once from a URL when ops
// set it, and this tenant's service provider key pair, made when SAML is
// first configured and kept across later changes.

// maxMetadataBytes bounds an identity provider's metadata.
const maxMetadataBytes = 1 << 20

// validateSAML fills cfg's SAML metadata from in, fetching metadata_url.
func validateSAML(ctx context.Context, g *IdPGuard, cfg *SSOConfig, in SSOInput) error {
	xmlIn, urlIn := strings.TrimSpace(in.MetadataXML), strings.TrimSpace(in.MetadataURL)
	if (xmlIn == "") == (urlIn == "") {
		return learngate.Errorf(learngate.Invalid, "saml needs exactly one of metadata_xml and metadata_url")
	}
	if in.Issuer != "" || in.ClientID != "" || in.ClientSecret != nil || len(in.Scopes) > 0 {
		return learngate.Errorf(learngate.Invalid, "issuer, client_id, client_secret and scopes are for oidc only")
	}
	if urlIn != "" {
		// A query is allowed: Entra ID's metadata URL carries ?appid=.
		if err := g.CheckURL("metadata_url", urlIn); err != nil {
			return err
		}
		body, err := fetchMetadata(ctx, g, urlIn)
		if err != nil {
			return learngate.Errorf(learngate.Invalid, "metadata_url could not be fetched: %v", err)
		}
		xmlIn = body
	}
	if len(xmlIn) > maxMetadataBytes {
		return learngate.Errorf(learngate.Invalid, "metadata_xml must be at most 1 MiB")
	}
	if _, err := ParseIdPMetadata(xmlIn); err != nil {
		return err
	}
	cfg.SAMLMetadataXML, cfg.SAMLMetadataURL = xmlIn, urlIn
	return nil
}

// ParseIdPMetadata parses an identity provider's metadata: Invalid unless
// it describes an identity provider with a single sign-on service.
func ParseIdPMetadata(xmlText string) (*saml.EntityDescriptor, error) {
	md, err := parseMetadata([]byte(xmlText))
	if err != nil || len(md.IDPSSODescriptors) == 0 || len(md.IDPSSODescriptors[0].SingleSignOnServices) == 0 ||
		len(md.IDPSSODescriptors[0].KeyDescriptors) == 0 {
		return nil, learngate.Errorf(learngate.Invalid, "metadata is not SAML 2.0 identity provider metadata with a signing certificate and a single sign-on service")
	}
	return md, nil
}

// parseMetadata reads an EntityDescriptor, or the first identity provider
// of an EntitiesDescriptor.
func parseMetadata(b []byte) (*saml.EntityDescriptor, error) {
	md := &saml.EntityDescriptor{}
	if err := xml.Unmarshal(b, md); err == nil && len(md.IDPSSODescriptors) > 0 {
		return md, nil
	}
	var all saml.EntitiesDescriptor
	if err := xml.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	for i := range all.EntityDescriptors {
		if len(all.EntityDescriptors[i].IDPSSODescriptors) > 0 {
			return &all.EntityDescriptors[i], nil
		}
	}
	return nil, errors.New("no identity provider")
}

// fetchMetadata fetches an identity provider's metadata through the guard
// (same-origin redirects only, 5 s, 1 MiB). Its errors say what failed
// without the provider's text.
func fetchMetadata(ctx context.Context, g *IdPGuard, u string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	resp, err := g.Client().Do(req)
	if err != nil {
		return "", idpCallError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %d", resp.StatusCode)
	}
	b, err := io.ReadAll(resp.Body)
	if errors.Is(err, ErrIdPResponseTooLarge) {
		return "", errors.New("metadata larger than 1 MiB")
	}
	if err != nil {
		return "", errors.New("read failed")
	}
	return string(b), nil
}

// newSPKeyPair returns a new RSA key and a self-signed certificate for a
// tenant's service provider, in PEM, valid for ten years.
func newSPKeyPair(slug string, now time.Time) (keyPEM, certPEM string, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return "", "", err
	}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: "learngate " + slug},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(10, 0, 0),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return "", "", err
	}
	keyPEM = string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	certPEM = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	return keyPEM, certPEM, nil
}
