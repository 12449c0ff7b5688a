package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"

	"learngate"
)

// decodeStrict reads the request body as one JSON object into v, refusing
// unknown fields, trailing data and wrong types with a clear Invalid error,
// and bodies over MaxBodyBytes with TooLarge. An empty body, and JSON that
// is not an object (null, [], "x", 1), is Invalid.
func decodeStrict(c *gin.Context, v any) error {
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return learngate.Errorf(learngate.TooLarge, "request body too large")
		}
		return learngate.Errorf(learngate.Invalid, "could not read the request body")
	}
	// Only an object: encoding/json would take null as "no change" and
	// leave v as it was (docs/reliability.md, B1).
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
		if len(trimmed) > 0 && !json.Valid(trimmed) {
			return learngate.Errorf(learngate.Invalid, "malformed JSON")
		}
		return learngate.Errorf(learngate.Invalid, "request body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return learngate.Errorf(learngate.Invalid, "%s", describeJSONError(err))
	}
	if dec.More() {
		return learngate.Errorf(learngate.Invalid, "request body must hold one JSON object")
	}
	return nil
}

// describeJSONError says what is wrong with a body, without internals.
func describeJSONError(err error) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return "request body must be a JSON object"
		}
		return fmt.Sprintf("invalid value for %q: expected %s", typeErr.Field, typeErr.Type)
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return "malformed JSON"
	}
	if msg := err.Error(); len(msg) > 20 && msg[:20] == "json: unknown field " {
		return "unknown field " + msg[20:]
	}
	return "malformed JSON"
}

// decodeNoBody reads the body of a POST that takes none (a webhook's
// rotate_secret, test and retry): it may be empty or {}, anything else is
// Invalid and a body over MaxBodyBytes TooLarge, as decodeStrict answers
// (docs/reliability.md, B3).
func decodeNoBody(c *gin.Context) error {
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return learngate.Errorf(learngate.TooLarge, "request body too large")
		}
		return learngate.Errorf(learngate.Invalid, "could not read the request body")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	c.Request.Body = io.NopCloser(bytes.NewReader(body))
	return decodeStrict(c, &struct{}{})
}
