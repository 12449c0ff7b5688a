package papi

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/input"
	"learngate/records"
)

// decodeUserBody reads a user request body: one JSON object, numbers kept
// as json.Number so they are echoed exactly as sent. External knowledge,
// topic, pathway and enrolment bodies are read with it too.
func decodeUserBody(c *gin.Context) (map[string]any, error) {
	raw, err := httpx.ReadBody(c)
	if err != nil {
		return nil, err
	}
	trimmed := bytes.Trim(raw, httpx.JSONSpace)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if len(trimmed) > 0 && !json.Valid(trimmed) {
			return nil, learngate.Errorf(learngate.Invalid, "malformed JSON")
		}
		return nil, learngate.Errorf(learngate.Invalid, "request body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := httpx.DecodeTree(dec)
	if err != nil {
		return nil, learngate.Errorf(learngate.Invalid, "malformed JSON")
	}
	if dec.More() {
		return nil, learngate.Errorf(learngate.Invalid, "request body must hold one JSON object")
	}
	return v.(map[string]any), nil
}

// pathText returns path parameter name as sent, or IllegalValue naming it
// when it holds a NUL character or is not valid UTF-8: PostgreSQL text can
// hold neither (docs/decisions.md, "Bodies and hostile input"). Every text path parameter of the
// public routes is read with it.
func pathText(c *gin.Context, name string) (string, error) {
	return input.QueryText(name, c.Param(name))
}

// withParams gives an Unprocessable error the submitted fields for its 422
// body, the password masked. Other errors pass unchanged.
func withParams(err error, body map[string]any) error {
	var e *learngate.Error
	if !errors.As(err, &e) || e.Code != learngate.Unprocessable {
		return err
	}
	params := make(map[string]any, len(body))
	for k, v := range body {
		params[k] = v
	}
	if _, ok := params["password"]; ok {
		params["password"] = records.Filtered
	}
	out := *e
	out.Params = params
	return &out
}
