// Package docs embeds learngate's API description, docs/openapi.yaml, and
// the reference page that renders it (Redoc's standalone bundle, MIT), so
// that the binary serves both without loading anything from other sites.
package docs

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed openapi.yaml
var openAPIYAML string

//go:embed index.html
var referencePage string

//go:embed redoc/redoc.standalone.js
var redocScript string

// OpenAPIYAML returns the OpenAPI document as it is written.
func OpenAPIYAML() string { return openAPIYAML }

// ReferencePage returns the HTML of the reference page (GET /docs).
func ReferencePage() string { return referencePage }

// RedocScript returns Redoc's standalone bundle, the page's one script.
func RedocScript() string { return redocScript }

// OpenAPIJSON returns the OpenAPI document converted to compact JSON, its
// keys in the order they are written (so paths and properties keep the
// order the reader of the YAML sees). Anchors and aliases are expanded.
// The conversion runs once per process; each call returns its own copy.
func OpenAPIJSON() ([]byte, error) {
	out, err := convertOnce()
	if err != nil {
		return nil, err
	}
	return bytes.Clone(out), nil
}

// convertOnce converts the embedded document the first time it is called.
var convertOnce = sync.OnceValues(func() ([]byte, error) {
	return YAMLToJSON([]byte(openAPIYAML))
})

// YAMLToJSON converts one YAML document to compact JSON, keeping the order
// of mapping keys. Mapping keys must be distinct scalars; merge keys (<<) and values
// JSON cannot hold (.inf, .nan, binary) are errors.
func YAMLToJSON(src []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("parse yaml: %w", err)
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, &doc); err != nil {
		return nil, err
	}
	if !json.Valid(buf.Bytes()) {
		return nil, fmt.Errorf("yaml converts to invalid json")
	}
	return buf.Bytes(), nil
}

// writeJSON writes node n as JSON to buf.
func writeJSON(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return fmt.Errorf("line %d: expected one yaml document", n.Line)
		}
		return writeJSON(buf, n.Content[0])
	case yaml.AliasNode:
		return writeJSON(buf, n.Alias)
	case yaml.MappingNode:
		buf.WriteByte('{')
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i], n.Content[i+1]
			if key.Kind != yaml.ScalarNode || key.Tag == "!!merge" {
				return fmt.Errorf("line %d: mapping keys must be plain scalars", key.Line)
			}
			if seen[key.Value] {
				return fmt.Errorf("line %d: key %q is given twice", key.Line, key.Value)
			}
			seen[key.Value] = true
			if i > 0 {
				buf.WriteByte(',')
			}
			k, _ := json.Marshal(key.Value)
			buf.Write(k)
			buf.WriteByte(':')
			if err := writeJSON(buf, value); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSON(buf, item); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case yaml.ScalarNode:
		return writeScalar(buf, n)
	default:
		return fmt.Errorf("line %d: unsupported yaml node", n.Line)
	}
	return nil
}

// writeScalar writes a scalar by its resolved tag: strings as JSON
// strings, numbers and booleans as themselves, null as null.
func writeScalar(buf *bytes.Buffer, n *yaml.Node) error {
	var v any
	switch n.ShortTag() {
	case "!!str":
		v = n.Value
	case "!!null":
		v = nil
	case "!!int", "!!float", "!!bool":
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
	default:
		return fmt.Errorf("line %d: unsupported yaml tag %s", n.Line, n.ShortTag())
	}
	out, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	buf.Write(out)
	return nil
}
