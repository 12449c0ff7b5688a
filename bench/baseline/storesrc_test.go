package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
)

// storeSource is the store package's source (its non-test files), parsed:
// what TestCopiedSQLMatchesTheStore checks the baseline's copies against,
// without the store exporting its SQL.
type storeSource struct {
	consts map[string]ast.Expr
}

// parseStore parses the non-test Go files of dir.
func parseStore(dir string) (storeSource, error) {
	src := storeSource{consts: map[string]ast.Expr{}}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		return src, fmt.Errorf("store sources in %s: %v (%d files)", dir, err, len(files))
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			return src, err
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				v, ok := s.(*ast.ValueSpec)
				if !ok || len(v.Values) != len(v.Names) {
					continue
				}
				for i, n := range v.Names {
					src.consts[n.Name] = v.Values[i]
				}
			}
		}
	}
	return src, nil
}

// constant is the value of the store's string constant name: string
// literals joined with + and other such constants.
func (s storeSource) constant(name string) (string, error) {
	e, ok := s.consts[name]
	if !ok {
		return "", fmt.Errorf("no constant %s in store/", name)
	}
	return s.eval(e, nil)
}

// eval is the string value of e; bound names the identifiers that are not
// constants of the store (a method's parameters).
func (s storeSource) eval(e ast.Expr, bound map[string]string) (string, error) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			return strconv.Unquote(e.Value)
		}
	case *ast.ParenExpr:
		return s.eval(e.X, bound)
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			x, err := s.eval(e.X, bound)
			if err != nil {
				return "", err
			}
			y, err := s.eval(e.Y, bound)
			return x + y, err
		}
	case *ast.Ident:
		if v, ok := bound[e.Name]; ok {
			return v, nil
		}
		return s.constant(e.Name)
	}
	return "", fmt.Errorf("not a string constant expression: %T", e)
}
