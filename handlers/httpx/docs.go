package httpx

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"learngate/docs"
)

// docsPolicy keeps the reference page to this server: Redoc's script,
// inline styles and the document come from here, nothing from elsewhere.
const docsPolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Docs are the API reference's answers: the OpenAPI document (GET
// /papi/openapi.json) and its reference page (GET /docs and its script),
// served on any host, without a key and outside the rate limit: they
// describe the API, not a tenant's data.
type Docs struct {
	// OpenAPI answers the document as JSON.
	OpenAPI gin.HandlerFunc
	// Page answers the reference page.
	Page gin.HandlerFunc
	// Script answers the page's script (Redoc).
	Script gin.HandlerFunc
}

// NewDocs converts the YAML document to JSON once; a document that does
// not convert stops the router from being built.
func NewDocs() (Docs, error) {
	spec, err := docs.OpenAPIJSON()
	if err != nil {
		return Docs{}, fmt.Errorf("openapi document: %w", err)
	}
	return Docs{
		OpenAPI: staticAsset("application/json", spec, ""),
		Page:    staticAsset("text/html; charset=utf-8", []byte(docs.ReferencePage()), docsPolicy),
		Script:  staticAsset("text/javascript; charset=utf-8", []byte(docs.RedocScript()), ""),
	}, nil
}

// staticAsset answers GET with body, its strong ETag (so a browser that
// has it gets 304), and the Content-Security-Policy policy when not empty.
func staticAsset(contentType string, body []byte, policy string) gin.HandlerFunc {
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	return func(c *gin.Context) {
		c.Header("Content-Type", contentType)
		c.Header("ETag", etag)
		c.Header("Cache-Control", "no-cache")
		c.Header("X-Content-Type-Options", "nosniff")
		if policy != "" {
			c.Header("Content-Security-Policy", policy)
		}
		http.ServeContent(c.Writer, c.Request, "", time.Time{}, bytes.NewReader(body))
	}
}
