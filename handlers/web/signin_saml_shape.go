package web

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
)

// The shape of a SAML response is checked before it is parsed
// (docs/decisions.md, "SAML responses bounded before they are parsed"):
// the library's parse (crewjam/saml: a round-trip check, an etree document,
// namespace and canonicalisation work for the signature) costs far more per
// level of nesting, element or namespace in scope than per byte, so one
// small post could keep a core busy for minutes. A streaming pass over the
// raw tokens costs about a microsecond per element, keeps nothing, and stops at
// the first bound crossed. A real response is about 10 levels deep, holds a
// few hundred elements and attributes and 5 to 10 namespaces.

const (
	// maxSAMLDepth is the deepest element nesting a response may have.
	maxSAMLDepth = 64
	// maxSAMLElements is the most elements a response may hold, its
	// encrypted assertion's included.
	maxSAMLElements = 5000
	// maxSAMLAttributes is the most attributes it may hold.
	maxSAMLAttributes = 5000
	// maxSAMLNamespaces is the most namespace declarations in scope at any
	// element (the signature's canonicalisation carries them all to every
	// element below).
	maxSAMLNamespaces = 32
	// maxSAMLAssertions is the most assertions, plain or encrypted, a
	// response may carry (the library decrypts every one, an RSA private-key
	// operation each).
	maxSAMLAssertions = 1
)

// Refusal reasons of checkSAMLShape (logged and counted as refused_<reason>).
const (
	reasonSAMLTooDeep    = "saml_too_deep"
	reasonSAMLTooMany    = "saml_too_many_elements"
	reasonSAMLTooComplex = "saml_too_complex"
	reasonSAMLMalformed  = "bad_assertion"
)

// samlShapeError says why a response was refused before it was parsed.
type samlShapeError struct {
	Reason string // the refusal reason
	Detail string // what was over, for the log
}

func (e *samlShapeError) Error() string { return e.Detail }

// samlShape is what checkSAMLShape saw of a document that passed.
type samlShape struct {
	// Elements is the number of elements.
	Elements int
	// Encrypted holds the bytes of each EncryptedAssertion child of the
	// root, as they stand in the document.
	Encrypted [][]byte
}

// checkSAMLShape reads raw as XML tokens, without building anything. It
// refuses (*samlShapeError) a document nested deeper than maxSAMLDepth,
// holding more than budget elements or maxSAMLAttributes attributes, with
// more than maxSAMLNamespaces namespace declarations in scope, more than
// maxSAMLAssertions assertions under the root, or that is not one XML
// element. It tokenises as the library's own pre-check does
// (mattermost/xml-roundtrip-validator: RawToken, not strict, any charset
// read as is), so that it sees the elements the library will read.
func checkSAMLShape(raw []byte, budget int) (samlShape, error) {
	var shape samlShape
	d := xml.NewDecoder(bytes.NewReader(raw))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	// nsAt[i] is the number of namespace declarations in scope inside the
	// open element at depth i+1.
	var nsAt [maxSAMLDepth]int
	depth, attrs, roots, assertions := 0, 0, 0, 0
	encryptedAt := int64(-1)
	for {
		at := d.InputOffset()
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return shape, malformed("response is not XML: " + err.Error())
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == maxSAMLDepth {
				return shape, &samlShapeError{Reason: reasonSAMLTooDeep, Detail: fmt.Sprintf("nested deeper than %d", maxSAMLDepth)}
			}
			if shape.Elements++; shape.Elements > budget {
				return shape, &samlShapeError{Reason: reasonSAMLTooMany, Detail: fmt.Sprintf("more than %d elements", budget)}
			}
			if attrs += len(t.Attr); attrs > maxSAMLAttributes {
				return shape, tooComplex(fmt.Sprintf("more than %d attributes", maxSAMLAttributes))
			}
			ns := 0
			if depth > 0 {
				ns = nsAt[depth-1]
			}
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					ns++
				}
			}
			if ns > maxSAMLNamespaces {
				return shape, tooComplex(fmt.Sprintf("more than %d namespace declarations in scope", maxSAMLNamespaces))
			}
			nsAt[depth] = ns
			switch {
			case depth == 0:
				if roots++; roots > 1 {
					return shape, malformed("response has more than one root element")
				}
			case depth == 1 && (t.Name.Local == "Assertion" || t.Name.Local == "EncryptedAssertion"):
				if assertions++; assertions > maxSAMLAssertions {
					return shape, tooComplex(fmt.Sprintf("more than %d assertion", maxSAMLAssertions))
				}
				if t.Name.Local == "EncryptedAssertion" {
					encryptedAt = at
				}
			}
			depth++
		case xml.EndElement:
			if depth == 0 {
				return shape, malformed("response is not XML: an end tag without its start")
			}
			if depth--; depth == 1 && encryptedAt >= 0 {
				shape.Encrypted = append(shape.Encrypted, raw[encryptedAt:d.InputOffset()])
				encryptedAt = -1
			}
		}
	}
	if roots != 1 || depth != 0 {
		return shape, malformed("response is not one XML element")
	}
	return shape, nil
}

// malformed is the refusal of a document that is not XML.
func malformed(detail string) error {
	return &samlShapeError{Reason: reasonSAMLMalformed, Detail: detail}
}

// tooComplex is the refusal of a document over a bound of its own.
func tooComplex(detail string) error {
	return &samlShapeError{Reason: reasonSAMLTooComplex, Detail: detail}
}
