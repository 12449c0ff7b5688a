package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"learngate/docs"
	"learngate/handlers/handlertest"
)

// Contract tests: every request the handler tests send through a harness's
// routers, and its response, is checked against docs/openapi.yaml (the
// document the binary serves). newHarness wraps both routers with
// checkContract, so every existing test is also a contract test.

// contract is the OpenAPI document, loaded and validated once per test
// binary, and the router that finds a request's operation in it.
type contract struct {
	doc    *openapi3.T
	router routers.Router
	// gateway holds the bodies the request chain itself may answer before
	// any route (unknown host, key, rate limit, Content-Type, size).
	gateway map[int]*openapi3.Schema
}

// loadContract loads the embedded document the first time it is called.
var loadContract = sync.OnceValues(func() (*contract, error) {
	spec, err := docs.OpenAPIJSON()
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(spec)
	if err != nil {
		return nil, fmt.Errorf("load openapi document: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("openapi document is not valid: %w", err)
	}
	// Requests are matched on their path alone: the servers' hosts are an
	// organisation's host and the ops listener, which tests do not use.
	doc.Servers = nil
	for _, item := range doc.Paths.Map() {
		item.Servers = nil
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi router: %w", err)
	}
	schema := func(name string) *openapi3.Schema { return doc.Components.Schemas[name].Value }
	return &contract{doc: doc, router: router, gateway: map[int]*openapi3.Schema{
		http.StatusUnauthorized:          schema("Error"),
		http.StatusNotFound:              schema("Error"),
		http.StatusNotAcceptable:         schema("Error"),
		http.StatusRequestEntityTooLarge: schema("Error"),
		http.StatusTooManyRequests:       schema("RateLimited"),
	}}, nil
})

// mustContract returns the contract or fails the test.
func mustContract(t testing.TB) *contract {
	t.Helper()
	c, err := loadContract()
	if err != nil {
		t.Fatalf("%v", err)
	}
	return c
}

// listener says which router a contractHandler wraps: the ops listener's
// paths are /ops/... and /metrics, every other path is the public one's.
type listener int

const (
	publicListener listener = iota
	opsListener
)

// serves reports whether path belongs to l.
func (l listener) serves(path string) bool {
	ops := strings.HasPrefix(path, "/ops/") || path == "/metrics"
	return ops == (l == opsListener)
}

// contractHandler serves requests through next and reports every exchange
// that does not match the document as a test error.
type contractHandler struct {
	t        testing.TB
	next     http.Handler
	listener listener
	contract *contract
}

// checkContract wraps router so that each request and response it serves is
// checked against the OpenAPI document. Benchmarks get the router as it is:
// the checks would be most of what they measure.
func checkContract(t testing.TB, router http.Handler, l listener) http.Handler {
	t.Helper()
	if _, ok := t.(*testing.B); ok {
		return router
	}
	return contractHandler{t: t, next: router, listener: l, contract: mustContract(t)}
}

// ServeHTTP serves req through the router into a recorder, checks the
// exchange, then copies the response to w.
func (h contractHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	sent := req.Clone(req.Context())
	rec := httptest.NewRecorder()
	h.next.ServeHTTP(rec, req)
	if err := h.contract.check(h.listener, sent, body, rec); err != nil {
		h.t.Errorf("openapi contract: %s %s answered %d %s:\n%v", sent.Method, sent.URL.RequestURI(), rec.Code,
			handlertest.Truncate(rec.Body.String(), 300), err)
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// check validates one exchange: the response must be one the document
// gives the request's operation (status, headers and body), and a request
// the document calls invalid must not succeed. A request of no documented
// operation may only get the request chain's own answers.
func (c *contract) check(l listener, req *http.Request, body []byte, rec *httptest.ResponseRecorder) error {
	ctx := context.Background()
	req.Body = io.NopCloser(bytes.NewReader(body))
	if req.Method == http.MethodHead {
		// HEAD is the GET of its path without the body: checked as that GET
		// (status and headers; a recorder keeps what a server would drop).
		req.Method = http.MethodGet
	}
	route, params, err := c.router.FindRoute(req)
	if err == nil && !l.serves(route.Path) {
		err = routers.ErrPathNotFound
	}
	if err != nil {
		return c.checkUnrouted(rec)
	}
	reqInput := &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: presentCredentials},
	}
	reqErr := openapi3filter.ValidateRequest(ctx, reqInput)
	if reqErr != nil && rec.Code < 400 {
		return fmt.Errorf("the document refuses this request, but it succeeded: %w", reqErr)
	}
	respInput := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: reqInput,
		Status:                 rec.Code,
		Header:                 rec.Header(),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	respInput.SetBodyBytes(rec.Body.Bytes())
	if err := openapi3filter.ValidateResponse(ctx, respInput); err != nil {
		return fmt.Errorf("response does not match operation %s: %w", route.Operation.OperationID, err)
	}
	return nil
}

// checkUnrouted checks the answer to a path the document does not have:
// only the request chain's refusals and the 404 of an unmatched path fit.
func (c *contract) checkUnrouted(rec *httptest.ResponseRecorder) error {
	schema, ok := c.gateway[rec.Code]
	if !ok {
		return fmt.Errorf("no documented operation for this request, and status %d is none of the gateway's", rec.Code)
	}
	var body any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		return fmt.Errorf("undocumented route: body is not JSON: %w", err)
	}
	if err := schema.VisitJSON(body, openapi3.EnableJSONSchema2020()); err != nil {
		return fmt.Errorf("undocumented route: body is not the gateway's %d: %w", rec.Code, err)
	}
	return nil
}

// presentCredentials accepts a request that carries the credentials the
// security scheme asks for; whether they are right is the server's
// business (it answers 401).
func presentCredentials(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	scheme, req := in.SecurityScheme, in.RequestValidationInput.Request
	switch {
	case scheme.Type == "apiKey" && scheme.In == "header" && req.Header.Get(scheme.Name) != "":
		return nil
	case scheme.Type == "apiKey" && scheme.In == "query" && req.URL.Query().Get(scheme.Name) != "":
		return nil
	case scheme.Type == "http" && strings.EqualFold(scheme.Scheme, "bearer") &&
		len(req.Header.Get("Authorization")) > 7 && strings.EqualFold(req.Header.Get("Authorization")[:7], "bearer "):
		return nil
	}
	return errors.New("credentials missing")
}
