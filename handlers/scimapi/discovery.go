package scimapi

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/scim"
)

// SCIM discovery (RFC 7644 §4; docs/scim.md, "Discovery"): static
// documents, served without a key. Their meta.location holds {base},
// replaced with the request's base URL.

//go:embed discovery/*.json
var scimDiscoveryFiles embed.FS

// scimDiscovery is the discovery documents, read once.
type scimDiscovery struct {
	config        json.RawMessage
	resourceTypes []json.RawMessage
	schemas       []json.RawMessage
	// typeIDs and schemaIDs are the ids of resourceTypes and schemas.
	typeIDs, schemaIDs []string
}

// loadSCIMDiscovery reads the embedded documents; an error stops the
// router from being built.
func loadSCIMDiscovery() (*scimDiscovery, error) {
	d := &scimDiscovery{}
	var err error
	if d.config, err = readCompact("discovery/ServiceProviderConfig.json"); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name string
		docs *[]json.RawMessage
		ids  *[]string
	}{
		{"ResourceTypes", &d.resourceTypes, &d.typeIDs},
		{"Schemas", &d.schemas, &d.schemaIDs},
	} {
		raw, err := readCompact("discovery/" + f.name + ".json")
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, f.docs); err != nil {
			return nil, fmt.Errorf("scim %s: %w", f.name, err)
		}
		for _, doc := range *f.docs {
			var head struct{ ID string }
			if err := json.Unmarshal(doc, &head); err != nil || head.ID == "" {
				return nil, fmt.Errorf("scim %s: a document without an id", f.name)
			}
			*f.ids = append(*f.ids, head.ID)
		}
	}
	return d, nil
}

// readCompact reads an embedded document without its indentation.
func readCompact(name string) ([]byte, error) {
	raw, err := scimDiscoveryFiles.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out.Bytes(), nil
}

// scimBase is the absolute URL of the tenant's SCIM service provider:
// LEARNGATE_PUBLIC_SCHEME and the request's host.
func (a *API) scimBase(c *gin.Context) string {
	scheme := a.deps.PublicScheme
	if scheme == "" {
		scheme = "https"
	}
	return scheme + "://" + c.Request.Host + "/scim/v2"
}

// withBase returns doc with {base} replaced by the request's base URL.
func (a *API) withBase(c *gin.Context, doc []byte) json.RawMessage {
	quoted, _ := json.Marshal(a.scimBase(c))
	return bytes.ReplaceAll(doc, []byte("{base}"), quoted[1:len(quoted)-1])
}

// scimServiceProviderConfig answers GET /scim/v2/ServiceProviderConfig.
func (a *API) scimServiceProviderConfig(c *gin.Context) {
	scimJSON(c, http.StatusOK, a.withBase(c, a.docs.config))
}

// scimResourceTypes answers GET /scim/v2/ResourceTypes.
func (a *API) scimResourceTypes(c *gin.Context) {
	a.scimDiscoveryList(c, a.docs.resourceTypes)
}

// scimResourceType answers GET /scim/v2/ResourceTypes/{id}.
func (a *API) scimResourceType(c *gin.Context) {
	a.scimDiscoveryItem(c, a.docs.resourceTypes, a.docs.typeIDs)
}

// scimSchemas answers GET /scim/v2/Schemas.
func (a *API) scimSchemas(c *gin.Context) {
	a.scimDiscoveryList(c, a.docs.schemas)
}

// scimSchema answers GET /scim/v2/Schemas/{id}.
func (a *API) scimSchema(c *gin.Context) {
	a.scimDiscoveryItem(c, a.docs.schemas, a.docs.schemaIDs)
}

func (a *API) scimDiscoveryList(c *gin.Context, docs []json.RawMessage) {
	out := make([]json.RawMessage, len(docs))
	for i, d := range docs {
		out[i] = a.withBase(c, d)
	}
	scimJSON(c, http.StatusOK, ListResponse[json.RawMessage]{Schemas: []string{scim.ListResponseSchema},
		TotalResults: int64(len(out)), StartIndex: 1, ItemsPerPage: len(out), Resources: out})
}

func (a *API) scimDiscoveryItem(c *gin.Context, docs []json.RawMessage, ids []string) {
	id := c.Param("id")
	for i, known := range ids {
		if strings.EqualFold(known, id) {
			scimJSON(c, http.StatusOK, a.withBase(c, docs[i]))
			return
		}
	}
	httpx.RespondError(c, learngate.Errorf(learngate.NotFound, "not found"))
}

// ListResponse is SCIM's ListResponse (RFC 7644 §3.4.2).
type ListResponse[T any] struct {
	Schemas      []string `json:"schemas"`
	TotalResults int64    `json:"totalResults"`
	StartIndex   int      `json:"startIndex"`
	ItemsPerPage int      `json:"itemsPerPage"`
	Resources    []T      `json:"Resources"`
}
