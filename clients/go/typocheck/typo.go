//go:build typocheck

// Package typocheck must not compile: scripts/clients.sh builds it with
// -tags typocheck and expects each generated client to refuse a batch row
// with a misspelt field (frist_name), the strictness docs/openapi.yaml
// gives batch rows. Without the tag the package is empty.
package typocheck

import (
	"learngate/clients/go/lgapi"
	"learngate/clients/go/ogenapi"
)

// Rows holds one misspelt row of each generated client.
var Rows = []any{
	lgapi.BatchUserRow{FristName: nil},
	ogenapi.BatchUserRow{FristName: ogenapi.OptNilString{}},
}
