package web

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestCheckSAMLShape(t *testing.T) {
	t.Parallel()
	namespaces := func(n int) string { // n nested elements declaring one namespace each
		var s strings.Builder
		for i := range n {
			fmt.Fprintf(&s, `<a xmlns:n%d="urn:x">`, i)
		}
		return s.String() + strings.Repeat("</a>", n)
	}
	const response = `<?xml version="1.0" encoding="UTF-8"?>
<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="r">
  <saml:Issuer>https://idp.example/</saml:Issuer><!-- a comment -->
  <saml:EncryptedAssertion><xenc:EncryptedData xmlns:xenc="http://www.w3.org/2001/04/xmlenc#"/></saml:EncryptedAssertion>
</samlp:Response>`
	cases := []struct {
		name, doc, reason string
		budget            int
		elements          int
		encrypted         []string
	}{
		{name: "a response", doc: response, elements: 4,
			encrypted: []string{`<saml:EncryptedAssertion><xenc:EncryptedData xmlns:xenc="http://www.w3.org/2001/04/xmlenc#"/></saml:EncryptedAssertion>`}},
		{name: "64 deep", doc: nestedXML(64), elements: 64},
		{name: "65 deep", doc: nestedXML(65), reason: reasonSAMLTooDeep},
		{name: "a million deep, stops early", doc: nestedXML(1_000_000), reason: reasonSAMLTooDeep},
		{name: "5,000 elements", doc: "<r>" + strings.Repeat("<a/>", 4999) + "</r>", elements: 5000},
		{name: "5,001 elements", doc: "<r>" + strings.Repeat("<a/>", 5000) + "</r>", reason: reasonSAMLTooMany},
		{name: "a smaller budget", doc: "<r><a/><a/></r>", budget: 2, reason: reasonSAMLTooMany},
		{name: "5,001 attributes", doc: "<r>" + strings.Repeat(`<a b="1" c="2"/>`, 2500) + `<a b="1"/></r>`, reason: reasonSAMLTooComplex},
		{name: "32 namespaces in scope", doc: namespaces(32), elements: 32},
		{name: "33 namespaces in scope", doc: namespaces(33), reason: reasonSAMLTooComplex},
		{name: "namespaces of siblings are not in scope", doc: "<r>" + strings.Repeat(`<a xmlns="urn:a" xmlns:b="urn:b"/>`, 40) + "</r>", elements: 41},
		{name: "default namespaces count", doc: strings.Repeat(`<a xmlns="urn:a">`, 33) + strings.Repeat("</a>", 33), reason: reasonSAMLTooComplex},
		{name: "two assertions", doc: "<r><s:Assertion/><Assertion/></r>", reason: reasonSAMLTooComplex},
		{name: "assertions deeper are not counted", doc: "<r><x><Assertion/><Assertion/></x></r>", elements: 4},
		{name: "two roots", doc: "<a/><b/>", reason: reasonSAMLMalformed},
		{name: "no element", doc: "<!-- x -->", reason: reasonSAMLMalformed},
		{name: "empty", doc: "", reason: reasonSAMLMalformed},
		{name: "not closed", doc: "<a><b></b>", reason: reasonSAMLMalformed},
		{name: "stray end", doc: "</a>", reason: reasonSAMLMalformed},
		{name: "not XML", doc: "<a <b>", reason: reasonSAMLMalformed},
		{name: "binary", doc: "\x00\x01\xff", reason: reasonSAMLMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			budget := tc.budget
			if budget == 0 {
				budget = maxSAMLElements
			}
			shape, err := checkSAMLShape([]byte(tc.doc), budget)
			var se *samlShapeError
			switch {
			case tc.reason == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.reason != "" && (!errors.As(err, &se) || se.Reason != tc.reason):
				t.Fatalf("err %v, want reason %s", err, tc.reason)
			case tc.reason == "" && shape.Elements != tc.elements:
				t.Fatalf("%d elements, want %d", shape.Elements, tc.elements)
			}
			if tc.reason == "" {
				var got []string
				for _, e := range shape.Encrypted {
					got = append(got, string(e))
				}
				if fmt.Sprint(got) != fmt.Sprint(tc.encrypted) {
					t.Fatalf("encrypted %q, want %q", got, tc.encrypted)
				}
			}
		})
	}
}

// FuzzCheckSAMLShape: any input is passed or refused with a reason of
// ours, never a panic; what passes is within every bound, and its
// encrypted assertions are pieces of it.
func FuzzCheckSAMLShape(f *testing.F) {
	for _, s := range []string{`<r><a b="1" xmlns:x="u"/></r>`, nestedXML(70), "<r><EncryptedAssertion><d/></EncryptedAssertion></r>",
		"<a/><b/>", "</a>", "<a><!-- c --><![CDATA[x]]><?p i?></a>", `<?xml version="1.0" encoding="latin1"?><a/>`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		shape, err := checkSAMLShape(raw, maxSAMLElements)
		if err != nil {
			var se *samlShapeError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v", err, err)
			}
			switch se.Reason {
			case reasonSAMLTooDeep, reasonSAMLTooMany, reasonSAMLTooComplex, reasonSAMLMalformed:
			default:
				t.Fatalf("reason %q", se.Reason)
			}
			return
		}
		if shape.Elements < 1 || shape.Elements > maxSAMLElements || len(shape.Encrypted) > maxSAMLAssertions {
			t.Fatalf("passed with %d elements, %d encrypted", shape.Elements, len(shape.Encrypted))
		}
		for _, e := range shape.Encrypted {
			if !strings.Contains(string(raw), string(e)) || !strings.HasPrefix(string(e), "<") {
				t.Fatalf("encrypted piece %q not from the input", e)
			}
		}
	})
}
