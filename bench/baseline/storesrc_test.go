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
	consts  map[string]ast.Expr
	methods map[string]*ast.FuncDecl
	vars    map[string]ast.Expr
}

// parseStore parses the non-test Go files of dir.
func parseStore(dir string) (storeSource, error) {
	src := storeSource{consts: map[string]ast.Expr{}, methods: map[string]*ast.FuncDecl{}, vars: map[string]ast.Expr{}}
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
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					v, ok := s.(*ast.ValueSpec)
					if !ok || len(v.Values) != len(v.Names) {
						continue
					}
					for i, n := range v.Names {
						if d.Tok == token.CONST {
							src.consts[n.Name] = v.Values[i]
						} else {
							src.vars[n.Name] = v.Values[i]
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil {
					if id, ok := d.Recv.List[0].Type.(*ast.Ident); ok {
						src.methods[id.Name+"."+d.Name.Name] = d
					}
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

// rendered is the SQL the store's method typ.method returns for the
// receiver recv (a store variable holding a literal of string fields) and
// args (the method's parameters, in order). The method must return
// fmt.Sprintf of a constant format whose arguments are the receiver's
// fields and the parameters.
func (s storeSource) rendered(recv, method string, args ...string) (string, error) {
	lit, ok := s.vars[recv].(*ast.CompositeLit)
	if !ok {
		return "", fmt.Errorf("no variable %s holding a literal in store/", recv)
	}
	typ, _ := lit.Type.(*ast.Ident)
	if typ == nil {
		return "", fmt.Errorf("%s: not a literal of a named type", recv)
	}
	fields := map[string]string{}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		v, err := s.eval(kv.Value, nil)
		if err != nil {
			return "", fmt.Errorf("%s.%v: %w", recv, kv.Key, err)
		}
		fields[kv.Key.(*ast.Ident).Name] = v
	}
	fn, ok := s.methods[typ.Name+"."+method]
	if !ok || len(fn.Recv.List[0].Names) != 1 {
		return "", fmt.Errorf("no method %s.%s in store/", typ.Name, method)
	}
	self := fn.Recv.List[0].Names[0].Name
	bound := map[string]string{}
	i := 0
	for _, p := range fn.Type.Params.List {
		for _, n := range p.Names {
			if i >= len(args) {
				return "", fmt.Errorf("%s.%s takes more than %d arguments", typ.Name, method, len(args))
			}
			bound[n.Name] = args[i]
			i++
		}
	}
	ret, ok := fn.Body.List[len(fn.Body.List)-1].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return "", fmt.Errorf("%s.%s does not end in one return", typ.Name, method)
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if sel, isSel := callee(call); !ok || !isSel || sel != "fmt.Sprintf" || len(call.Args) == 0 {
		return "", fmt.Errorf("%s.%s does not return fmt.Sprintf(...)", typ.Name, method)
	}
	format, err := s.eval(call.Args[0], bound)
	if err != nil {
		return "", err
	}
	var vals []any
	for _, a := range call.Args[1:] {
		if sel, ok := a.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == self {
				v, ok := fields[sel.Sel.Name]
				if !ok {
					return "", fmt.Errorf("%s has no field %s", recv, sel.Sel.Name)
				}
				vals = append(vals, v)
				continue
			}
		}
		v, err := s.eval(a, bound)
		if err != nil {
			return "", err
		}
		vals = append(vals, v)
	}
	return fmt.Sprintf(format, vals...), nil
}

// callee names the function call calls as pkg.Name.
func callee(call *ast.CallExpr) (string, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", false
	}
	return x.Name + "." + sel.Sel.Name, true
}
