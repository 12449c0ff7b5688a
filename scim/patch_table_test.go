package scim

import (
	"reflect"
	"strings"
	"testing"
)

// TestParsePatchOpTable: the operations of a PatchOp body, read without
// HTTP, and the scimType of each malformed body (RFC 7644 §3.5.2).
func TestParsePatchOpTable(t *testing.T) {
	tooMany := make([]any, MaxOperations+1)
	for i := range tooMany {
		tooMany[i] = map[string]any{"op": "add", "path": "title", "value": "x"}
	}
	tests := []struct {
		name     string
		body     map[string]any
		want     []Operation
		scimType string
	}{
		{"no operations", map[string]any{}, nil, InvalidSyntax},
		{"empty operations", map[string]any{"Operations": []any{}}, nil, InvalidSyntax},
		{"too many", map[string]any{"Operations": tooMany}, nil, TooMany},
		{"not an object", map[string]any{"Operations": []any{1}}, nil, InvalidSyntax},
		{"unknown op", map[string]any{"Operations": []any{map[string]any{"op": "move", "path": "title"}}}, nil, InvalidSyntax},
		{"remove without path", map[string]any{"Operations": []any{map[string]any{"op": "remove"}}}, nil, NoTarget},
		{"add without value", map[string]any{"Operations": []any{map[string]any{"op": "add", "path": "title"}}}, nil, InvalidValue},
		{"no path, value not an object", map[string]any{"Operations": []any{map[string]any{"op": "add", "value": "x"}}}, nil, InvalidValue},
		{"path not a string", map[string]any{"Operations": []any{map[string]any{"op": "add", "path": 5, "value": 1}}}, nil, InvalidPath},
		{"names in any case, op and path trimmed",
			map[string]any{"operations": []any{map[string]any{"OP": " Replace ", "Path": " active ", "VALUE": false}}},
			[]Operation{{Op: OpReplace, Path: "active", Value: false}}, ""},
		{"remove with path, add without path",
			map[string]any{"Operations": []any{
				map[string]any{"op": "remove", "path": "title"},
				map[string]any{"op": "add", "value": map[string]any{"title": "Boss"}}}},
			[]Operation{{Op: OpRemove, Path: "title"}, {Op: OpAdd, Value: map[string]any{"title": "Boss"}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePatchOp(tt.body)
			if tt.scimType != "" {
				if got != nil || scimTypeOf(err) != tt.scimType {
					t.Fatalf("ParsePatchOp = %v, %v; want scimType %s", got, err, tt.scimType)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParsePatchOp = %#v, %v; want %#v", got, err, tt.want)
			}
		})
	}
}

// TestUserApplyTable: PATCH operations applied to a User document without
// HTTP: the document each leaves, or the scimType of its refusal.
func TestUserApplyTable(t *testing.T) {
	base := func() map[string]any {
		return map[string]any{
			"id": "7", "userName": "ann", "active": true, "title": "Clerk",
			"emails": []any{
				map[string]any{"type": "work", "value": "ann@work.example", "primary": true},
				map[string]any{"type": "home", "value": "ann@home.example"},
			},
		}
	}
	with := func(change func(doc map[string]any)) map[string]any {
		doc := base()
		change(doc)
		return doc
	}
	tests := []struct {
		name     string
		ops      []Operation
		want     map[string]any
		scimType string
	}{
		{"replace a simple attribute", []Operation{{Op: OpReplace, Path: "active", Value: false}},
			with(func(d map[string]any) { d["active"] = false }), ""},
		{"attribute names in any case", []Operation{{Op: OpReplace, Path: "TITLE", Value: "Boss"}},
			with(func(d map[string]any) { d["title"] = "Boss" }), ""},
		{"remove a simple attribute", []Operation{{Op: OpRemove, Path: "title"}},
			with(func(d map[string]any) { delete(d, "title") }), ""},
		{"no path: each attribute, read-only ones repeated are left alone",
			[]Operation{{Op: OpReplace, Value: map[string]any{"title": "Boss", "id": "99"}}},
			with(func(d map[string]any) { d["title"] = "Boss" }), ""},
		{"remove the values a filter selects", []Operation{{Op: OpRemove, Path: `emails[type eq "home"]`}},
			with(func(d map[string]any) { d["emails"] = d["emails"].([]any)[:1] }), ""},
		{"read-only attribute", []Operation{{Op: OpReplace, Path: "id", Value: "8"}}, nil, Mutability},
		{"unknown attribute", []Operation{{Op: OpReplace, Path: "nickname2", Value: "x"}}, nil, InvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := base()
			err := User.Apply(doc, tt.ops)
			if tt.scimType != "" {
				if scimTypeOf(err) != tt.scimType {
					t.Fatalf("Apply = %v; want scimType %s", err, tt.scimType)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(doc, tt.want) {
				t.Fatalf("Apply = %v, doc %#v; want %#v", err, doc, tt.want)
			}
		})
	}
}

// TestFilterTable: filters parsed and matched against one multi-valued
// attribute's value without HTTP, and the filters refused as
// invalidFilter (RFC 7644 §3.4.2.2).
func TestFilterTable(t *testing.T) {
	elem := map[string]any{"type": "work", "value": "ann@work.example", "primary": true}
	for filter, want := range map[string]bool{
		`type eq "work"`:                          true,
		`type eq "home"`:                          false,
		`value co "@work."`:                       true,
		`value sw "ann@"`:                         true,
		`value ew ".example"`:                     true,
		`primary eq true`:                         true,
		`value pr`:                                true,
		`display pr`:                              false,
		`type eq "work" and primary eq false`:     false,
		`type eq "home" or value sw "ann"`:        true,
		`not (type eq "home")`:                    true,
		`type ne "work"`:                          false,
		`(type eq "home") or (primary eq true)`:   true,
		`type eq "work" and not (value pr)`:       false,
		`value co "nobody" or type eq "personal"`: false,
	} {
		expr, err := ParseFilter(filter)
		if err != nil {
			t.Errorf("ParseFilter(%s): %v", filter, err)
			continue
		}
		got, err := Matches(elem, expr)
		if err != nil || got != want {
			t.Errorf("Matches(%s) = %v, %v; want %v", filter, got, err, want)
		}
	}
	for _, filter := range []string{
		"", "   ", `userName eq`, `userName "ann"`, `userName eq "ann" and`, `(userName eq "ann"`,
		`age gt 1e999`, `age gt 99999999999999999999`, "userName eq \"a\x00\"",
		`userName eq "` + strings.Repeat("a", MaxFilterLength) + `"`,
	} {
		if _, err := ParseFilter(filter); scimTypeOf(err) != InvalidFilter {
			t.Errorf("ParseFilter(%.40q) = %v; want invalidFilter", filter, err)
		}
	}
}
