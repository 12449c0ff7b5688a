// Package scim holds what learngate's SCIM 2.0 service provider (docs/scim.md)
// needs beside HTTP and SQL: the schema URNs, the parsing of filters and
// PATCH paths (with github.com/scim2/filter-parser/v2), the application of
// PatchOp operations to a resource document, and the translation of a User
// document into the Public API's user body, so that SCIM writes go through
// the same parser and store code as the API.
package scim

import (
	"fmt"
	"strings"

	"learngate"
)

// Schema and message URNs (RFC 7643, RFC 7644).
const (
	UserSchema          = "urn:ietf:params:scim:schemas:core:2.0:User"
	GroupSchema         = "urn:ietf:params:scim:schemas:core:2.0:Group"
	EnterpriseSchema    = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
	ListResponseSchema  = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
	PatchOpSchema       = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
	ErrorSchema         = "urn:ietf:params:scim:api:messages:2.0:Error"
	ResourceTypeSchema  = "urn:ietf:params:scim:schemas:core:2.0:ResourceType"
	SchemaSchema        = "urn:ietf:params:scim:schemas:core:2.0:Schema"
	ServiceConfigSchema = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"
)

// The scimType values of RFC 7644 §3.12 that learngate answers with.
const (
	InvalidFilter = "invalidFilter"
	InvalidPath   = "invalidPath"
	InvalidValue  = "invalidValue"
	InvalidSyntax = "invalidSyntax"
	NoTarget      = "noTarget"
	Mutability    = "mutability"
	Uniqueness    = "uniqueness"
	TooMany       = "tooMany"
)

// MaxResults is the default and largest count of a list (docs/scim.md, "Limits").
const MaxResults = 100

// MaxFilterLength is the longest filter or PATCH path accepted, in bytes.
const MaxFilterLength = 4096

// MaxOperations is the most operations one PATCH may carry.
const MaxOperations = 1000

// Errorf returns a 400 (learngate.Invalid) error with the given scimType.
func Errorf(scimType, format string, args ...any) *learngate.Error {
	return &learngate.Error{Code: learngate.Invalid, Message: fmt.Sprintf(format, args...), SCIMType: scimType}
}

// withType gives err (when it is a *learngate.Error without a scimType)
// the scimType t; other errors pass unchanged.
func withType(err error, t string) error {
	e, ok := err.(*learngate.Error)
	if !ok || e.SCIMType != "" {
		return err
	}
	out := *e
	out.SCIMType = t
	return &out
}

// lookup returns the canonical spelling of name among names, ignoring case.
func lookup(name string, names []string) (string, bool) {
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return n, true
		}
	}
	return "", false
}
