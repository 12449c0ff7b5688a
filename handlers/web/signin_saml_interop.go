package web

import (
	"encoding/xml"
	"net/mail"
	"strings"
	"time"

	"github.com/beevik/etree"
	"github.com/crewjam/saml"

	"learngate/tenant"
)

// What learngate's SAML service provider says to identity providers
// (DECISIONS section 19, "Interoperability"; docs/sign-in.md): the NameID
// format its requests ask for, and the metadata an IdP imports.

// spNameIDFormats are the NameID formats the SP metadata lists: any of
// them finds the learner (samlClaims).
var spNameIDFormats = []saml.NameIDFormat{saml.EmailAddressNameIDFormat, saml.PersistentNameIDFormat, saml.UnspecifiedNameIDFormat}

// spMetadataCacheDuration is how long an IdP may keep the SP metadata
// before it fetches it again. The metadata has no validUntil: an IdP that
// imported the file once keeps using it (the key pair does not change).
const spMetadataCacheDuration = 48 * time.Hour

// nameIDFormat is the NameID format the tenant's authentication requests
// ask for: unspecified (the IdP sends the NameID it is set up to send),
// or the tenant's own.
func nameIDFormat(cfg tenant.SSOConfig) string {
	if cfg.NameIDFormat == "" { // a configuration from before name_id_format
		return tenant.NameIDUnspecified
	}
	return cfg.NameIDFormat
}

// spMetadataXML is the SP metadata of sp as GET /sso/saml/metadata
// answers it: the library's, with the three NameID formats, the HTTP-POST
// ACS alone, and cacheDuration instead of validUntil.
func spMetadataXML(sp *saml.ServiceProvider) ([]byte, error) {
	md := sp.Metadata()
	md.ValidUntil, md.CacheDuration = time.Time{}, spMetadataCacheDuration
	for i := range md.SPSSODescriptors {
		d := &md.SPSSODescriptors[i]
		d.ValidUntil = nil
		d.NameIDFormats = spNameIDFormats
		var post []saml.IndexedEndpoint
		for _, acs := range d.AssertionConsumerServices {
			if acs.Binding == saml.HTTPPostBinding {
				post = append(post, acs)
			}
		}
		d.AssertionConsumerServices = post
	}
	out, err := xml.Marshal(md)
	if err != nil {
		return nil, err
	}
	// The library writes a zero validUntil as year 1: take it out.
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(out); err != nil {
		return nil, err
	}
	doc.Root().RemoveAttr("validUntil")
	doc.Indent(2)
	return doc.WriteToBytes()
}

// samlClaims are the claims of an assertion in the OIDC path's terms. The
// user name is the uid attribute (or its aliases), else the NameID
// whatever its format; the email is the email/mail attribute, else the
// NameID when its format is emailAddress, or unspecified with a value that
// is an address (Okta's default); a persistent or transient NameID is an
// opaque id, never an address.
func samlClaims(a *saml.Assertion) idClaims {
	var cl idClaims
	cl.Email = samlAttribute(a, samlEmailNames)
	cl.PreferredUsername = samlAttribute(a, samlUserNames)
	cl.GivenName, cl.FamilyName = samlAttribute(a, samlGivenNames), samlAttribute(a, samlFamilyNames)
	if a.Subject == nil || a.Subject.NameID == nil {
		return cl
	}
	id := strings.TrimSpace(a.Subject.NameID.Value)
	cl.Subject = id
	fill(&cl.PreferredUsername, id)
	switch saml.NameIDFormat(a.Subject.NameID.Format) {
	case saml.EmailAddressNameIDFormat:
		fill(&cl.Email, id)
	case saml.UnspecifiedNameIDFormat, "":
		if addr, err := mail.ParseAddress(id); err == nil && addr.Address == id && addr.Name == "" {
			fill(&cl.Email, id)
		}
	}
	return cl
}
