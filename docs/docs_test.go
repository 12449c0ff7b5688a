package docs

import (
	"strings"
	"testing"
)

func TestYAMLToJSON(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"keys keep their order", "b: 1\na: 2\nc: {z: 1, y: 2}", `{"b":1,"a":2,"c":{"z":1,"y":2}}`},
		{"scalars by tag", "s: '200'\nn: 200\nf: 1.5\nt: true\nz: null\nq: \"yes\"\nu: yes",
			`{"s":"200","n":200,"f":1.5,"t":true,"z":null,"q":"yes","u":"yes"}`},
		{"numeric keys are strings", "200: ok\n404: no", `{"200":"ok","404":"no"}`},
		{"aliases are expanded", "a: &x [1, {k: v}]\nb: *x", `{"a":[1,{"k":"v"}],"b":[1,{"k":"v"}]}`},
		{"escapes", `s: "a\"b\\c\u00e9<"`, `{"s":"a\"b\\cé\u003c"}`},
		{"block text", "d: |\n  one\n  two\n", `{"d":"one\ntwo\n"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := YAMLToJSON([]byte(tt.yaml))
			if err != nil {
				t.Fatalf("YAMLToJSON: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestYAMLToJSONRefuses(t *testing.T) {
	for name, src := range map[string]string{
		"merge key":     "a: &x {k: 1}\nb:\n  <<: *x",
		"infinity":      "a: .inf",
		"not a number":  "a: .nan",
		"complex key":   "? [1, 2]\n: x",
		"duplicate key": "a: 1\na: 2",
		"bad yaml":      "a: [1, 2",
		"binary":        "a: !!binary aGVsbG8=",
	} {
		t.Run(name, func(t *testing.T) {
			if got, err := YAMLToJSON([]byte(src)); err == nil {
				t.Errorf("YAMLToJSON(%q) = %s, want an error", src, got)
			}
		})
	}
}

// TestOpenAPIJSON: the embedded document converts, and each call gets its
// own copy.
func TestOpenAPIJSON(t *testing.T) {
	a, err := OpenAPIJSON()
	if err != nil {
		t.Fatalf("OpenAPIJSON: %v", err)
	}
	if !strings.HasPrefix(string(a), `{"openapi":"3.1.0","info":{"title":"learngate Public API"`) {
		t.Fatalf("document starts %.80s", a)
	}
	a[0] = 'X'
	b, _ := OpenAPIJSON()
	if b[0] != '{' {
		t.Fatal("a caller's change reached the next caller")
	}
}

func TestReferencePage(t *testing.T) {
	page := ReferencePage()
	for _, want := range []string{`<redoc spec-url="/papi/openapi.json"`, `<script src="/docs/redoc.standalone.js">`} {
		if !strings.Contains(page, want) {
			t.Errorf("reference page lacks %s", want)
		}
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Error("the reference page refers to another site")
	}
	if !strings.Contains(RedocScript(), `const Hw="2.5.4"`) {
		t.Error("the embedded script is not Redoc 2.5.4")
	}
}
