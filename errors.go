// Package learngate holds the domain types shared by every layer of the
// service, as benbjohnson/wtf's Standard Package Layout has them: the one
// error type and its codes (errors.go), the tenant and API key records of
// the registry (tenant.go), and the resources the API returns and the
// inputs that change them, one file per resource: user.go (users and their
// inputs), batch.go (a users batch save), enrolment.go (topic and pathway
// enrolments, enrolment codes and progress), knowledge.go (external
// knowledge), catalog.go (name-only catalogs and custom fields), topic.go,
// pathway.go, webhook.go (endpoints and deliveries), certificate.go (the
// certificate events' data), list.go (a record's position in its list) and
// timestamp.go (the form of timestamps in responses).
//
// Why here and not in store: these types are what the API means (their
// JSON is the spec's objects), which the HTTP layer, the jobs, SCIM, the
// importer and the benchmark all speak, so they depend on nothing but the
// standard library and every layer depends on them. Package store keeps
// what is about the database: SQL, row structs and their scanning (userRow,
// CertificateJob), tenant scope (TenantDB); list filters and pages, whose
// methods build SQL, belong to its list engine (store/list); job arguments
// (JSON only for the queue), the ops
// API's views of where and how data is stored (TenantMove, MoveProgress,
// DatabaseNode), and the limits the store enforces (MaxBatchUsers,
// MaxWebhooks, ...). A type decides by what it carries: a resource's JSON
// or a parsed request is domain; db tags, SQL or a transaction is storage.
package learngate

import (
	"errors"
	"fmt"
)

// Code classifies an Error. The HTTP layer maps each code to one status.
type Code string

// The error codes. Anything that is not an *Error is treated as Internal.
const (
	// Invalid: the input is malformed or breaks a rule (400).
	Invalid Code = "invalid"
	// Unprocessable: the input is well formed but cannot be applied, e.g. a taken user name (422).
	Unprocessable Code = "unprocessable"
	// Unauthorized: the caller is not authenticated (401).
	Unauthorized Code = "unauthorized"
	// NotFound: the addressed record does not exist, or is another tenant's (404).
	NotFound Code = "not_found"
	// Conflict: a unique value is already taken (409 on the ops API).
	Conflict Code = "conflict"
	// NotAcceptable: a POST or PUT body that is not application/json (406).
	NotAcceptable Code = "not_acceptable"
	// TooLarge: a request body over the size limit (413).
	TooLarge Code = "too_large"
	// Gone: the addressed thing existed but has expired (410).
	Gone Code = "gone"
	// Unavailable: a dependency such as the database is down (503).
	Unavailable Code = "unavailable"
	// Internal: a bug or an unexpected failure (500); never shown to clients.
	Internal Code = "internal"
)

// Error is the service's one error type. Message is safe to show to a client.
type Error struct {
	Code    Code
	Message string
	// Details lists further client-facing messages (for example one per bad enrolment code).
	Details []string
	// Params feeds one body only: the 422 of the user endpoints, which
	// echoes the submitted fields (docs/api.md, Errors). The HTTP layer
	// sets and renders it (withParams, userUnprocessableBody), never the
	// store. nil for other errors.
	Params map[string]any
	// Record feeds one body only: the 400 of POST
	// /papi/external_knowledges/batch_save, which names the failing record
	// beside the message (docs/decisions.md, External knowledge). nil for
	// other errors.
	Record *RecordRef
	// SCIMType feeds one body only: the scimType of a SCIM error message
	// (docs/scim.md, "Errors"), such as "invalidFilter" or "uniqueness".
	// "" lets the SCIM layer pick the type from the code.
	SCIMType string
	// Err is the underlying cause, logged but never shown to clients.
	Err error
}

// RecordRef names one record of a batch request: its 0-based index in the
// request's array and the user_name it carried as sent (nil when it carried
// none, or not as a string).
type RecordRef struct {
	Index    int
	UserName *string
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted client-facing message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err's first *Error in its chain, or Internal.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// ErrorMessage returns the client-facing message of err, or "internal error"
// when err is not an *Error.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// IsCode reports whether err carries the given code.
func IsCode(err error, code Code) bool { return err != nil && ErrorCode(err) == code }
