package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestBaselineDeclaresNoJSONTypes fails when the baseline declares a struct
// with JSON field tags of its own: the bodies it writes are the service's
// response types (learngate.User, learngate.TopicEnrolment, learngate.BatchResult,
// learngate.KnowledgeBatchResult, papi.ListEnvelope), so that a change of a
// response is made once, in the service, and not copied here.
func TestBaselineDeclaresNoJSONTypes(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				if field.Tag == nil {
					continue
				}
				tag := reflect.StructTag(strings.Trim(field.Tag.Value, "`"))
				if _, ok := tag.Lookup("json"); ok && !decodesRequest(fset, f, st) {
					t.Errorf("%s: a struct with JSON tags: write the service's response type instead of a copy",
						fset.Position(st.Pos()))
					break
				}
			}
			return true
		})
	}
}

// decodesRequest reports whether st is the type of a local variable the
// baseline decodes a request body into (var body struct{...}): reading
// the benchmark's requests is the baseline's own work, not a response copy.
func decodesRequest(fset *token.FileSet, f *ast.File, st *ast.StructType) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && vs.Type == st && len(vs.Names) == 1 && vs.Names[0].Name == "body" {
			found = true
		}
		return !found
	})
	return found
}
