package scim

import (
	"strings"

	filter "github.com/scim2/filter-parser/v2"
)

// Operation is one operation of a PatchOp request (RFC 7644 §3.5.2).
type Operation struct {
	// Op is "add", "replace" or "remove" (sent in any case).
	Op string
	// Path is the operation's path as sent; "" when it has none.
	Path string
	// Value is the operation's value (nil for most removes).
	Value any
}

// The operation names.
const (
	OpAdd     = "add"
	OpReplace = "replace"
	OpRemove  = "remove"
)

// ParsePatchOp reads the operations of a PatchOp body: 400 invalidSyntax
// when it has none or they are malformed, 400 tooMany over MaxOperations,
// 400 noTarget for a remove without a path.
func ParsePatchOp(body map[string]any) ([]Operation, error) {
	var raw any
	for k, v := range body {
		if strings.EqualFold(k, "Operations") {
			raw = v
		}
	}
	list, ok := raw.([]any)
	switch {
	case !ok || len(list) == 0:
		return nil, Errorf(InvalidSyntax, "a PatchOp needs a non-empty Operations array")
	case len(list) > MaxOperations:
		return nil, Errorf(TooMany, "a PatchOp may carry at most %d operations", MaxOperations)
	}
	ops := make([]Operation, len(list))
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, Errorf(InvalidSyntax, "operation %d is not an object", i+1)
		}
		var op Operation
		var hasValue bool
		for k, v := range m {
			switch strings.ToLower(k) {
			case "op":
				s, _ := v.(string)
				op.Op = strings.ToLower(strings.TrimSpace(s))
			case "path":
				s, isString := v.(string)
				if !isString && v != nil {
					return nil, Errorf(InvalidPath, "the path of operation %d is not a string", i+1)
				}
				op.Path = strings.TrimSpace(s)
			case "value":
				op.Value, hasValue = v, true
			}
		}
		switch {
		case op.Op != OpAdd && op.Op != OpReplace && op.Op != OpRemove:
			return nil, Errorf(InvalidSyntax, "operation %d: op must be add, replace or remove", i+1)
		case op.Op == OpRemove && op.Path == "":
			return nil, Errorf(NoTarget, "operation %d: remove needs a path", i+1)
		case op.Op != OpRemove && !hasValue:
			return nil, Errorf(InvalidValue, "operation %d: %s needs a value", i+1, op.Op)
		case op.Op != OpRemove && op.Path == "":
			if _, ok := op.Value.(map[string]any); !ok {
				return nil, Errorf(InvalidValue, "operation %d: without a path the value must be an object", i+1)
			}
		}
		ops[i] = op
	}
	return ops, nil
}

// target is what a PATCH path addresses.
type target struct {
	def attrDef
	// ext: the attribute is the enterprise extension's.
	ext bool
	// wholeExt: the path is the extension's URN itself.
	wholeExt bool
	// sub is the sub-attribute of attr.sub ("" when none).
	sub string
	// filter is the value filter of attr[filter] (nil when none), and
	// filterSub the sub-attribute after it.
	filter    filter.Expression
	filterSub string
}

// resolve parses raw and checks that it names an attribute of r: else 400
// invalidPath.
func (r Resource) resolve(raw string) (target, error) {
	if r.ext != nil && strings.EqualFold(raw, EnterpriseSchema) {
		return target{wholeExt: true, ext: true}, nil
	}
	p, err := ParsePath(raw)
	if err != nil {
		return target{}, err
	}
	defs := r.attrs
	var t target
	switch uri := p.AttributePath.URI(); {
	case uri == "" || strings.EqualFold(uri, UserSchema) && r.ext != nil || strings.EqualFold(uri, GroupSchema) && r.ext == nil:
	case r.ext != nil && strings.EqualFold(uri, EnterpriseSchema):
		defs, t.ext = r.ext, true
	default:
		return target{}, Errorf(InvalidPath, "the path %q names no attribute of this resource", raw)
	}
	d, ok := find(defs, p.AttributePath.AttributeName)
	if !ok {
		return target{}, Errorf(InvalidPath, "the path %q names no attribute of this resource", raw)
	}
	t.def = d
	if s := p.AttributePath.SubAttribute; s != nil {
		if t.sub, ok = d.canonicalSub(*s); !ok || !(d.complex || d.multi) {
			return target{}, Errorf(InvalidPath, "the path %q names no attribute of this resource", raw)
		}
	}
	if p.ValueExpression != nil {
		if !d.multi || t.sub != "" {
			return target{}, Errorf(InvalidPath, "the path %q filters an attribute that is not multi-valued", raw)
		}
		t.filter = p.ValueExpression
		if s := p.SubAttribute; s != nil {
			if t.filterSub, ok = d.canonicalSub(*s); !ok {
				return target{}, Errorf(InvalidPath, "the path %q names no attribute of this resource", raw)
			}
		}
	}
	return t, nil
}

// Apply applies ops, in order, to doc (a resource as learngate renders it,
// or as a client sent it after Normalize). It stops at the first failing
// operation; the caller then discards doc, so a PATCH applies whole or not
// at all.
func (r Resource) Apply(doc map[string]any, ops []Operation) error {
	for _, op := range ops {
		if err := r.apply(doc, op); err != nil {
			return err
		}
	}
	return nil
}

// ignoredWithoutPath are the read-only attributes that a value object
// without a path may repeat (clients send the resource back whole); they
// are left alone.
var ignoredWithoutPath = []string{"id", "meta", "schemas", "groups"}

func (r Resource) apply(doc map[string]any, op Operation) error {
	if op.Path == "" {
		for k, v := range op.Value.(map[string]any) {
			if _, skip := lookup(k, ignoredWithoutPath); skip {
				continue
			}
			if err := r.apply(doc, Operation{Op: op.Op, Path: k, Value: v}); err != nil {
				return err
			}
		}
		return nil
	}
	t, err := r.resolve(op.Path)
	if err != nil {
		return err
	}
	holder := doc
	if t.ext {
		m, _ := doc[EnterpriseSchema].(map[string]any)
		if m == nil {
			if op.Op == OpRemove && !t.wholeExt {
				return nil // nothing to remove
			}
			m = map[string]any{}
			doc[EnterpriseSchema] = m
		}
		holder = m
	}
	if t.wholeExt {
		if op.Op == OpRemove {
			delete(doc, EnterpriseSchema)
			return nil
		}
		obj, ok := op.Value.(map[string]any)
		if !ok {
			return Errorf(InvalidValue, "the value of %s must be an object", EnterpriseSchema)
		}
		for k, v := range obj {
			if err := r.apply(doc, Operation{Op: op.Op, Path: EnterpriseSchema + ":" + k, Value: v}); err != nil {
				return err
			}
		}
		return nil
	}
	if t.def.readOnly {
		return Errorf(Mutability, "%s is read-only", t.def.name)
	}
	if op.Op == OpRemove {
		return t.remove(holder, op.Value)
	}
	return t.set(holder, op.Op, op.Value)
}

// set applies an add or replace to holder (the resource or its extension).
func (t target) set(holder map[string]any, op string, value any) error {
	d := t.def
	switch {
	case t.filter != nil:
		list, _ := holder[d.name].([]any)
		matched := false
		for _, e := range list {
			m, ok := e.(map[string]any)
			if !ok {
				continue
			}
			hit, err := Matches(m, t.filter)
			if err != nil {
				return err
			}
			if !hit {
				continue
			}
			matched = true
			if err := t.setInElem(m, value); err != nil {
				return err
			}
		}
		if !matched {
			// As Entra ID expects: an add or replace through a filter that
			// matches nothing adds the element the filter describes.
			m := map[string]any{}
			equalities(t.filter, m)
			m = d.canonicalElem(m)
			if err := t.setInElem(m, value); err != nil {
				return err
			}
			holder[d.name] = append(list, m)
		}
	case t.sub != "" && d.multi:
		list, _ := holder[d.name].([]any)
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				m[t.sub] = value
			}
		}
		if len(list) == 0 {
			holder[d.name] = []any{map[string]any{t.sub: value}}
		}
	case t.sub != "":
		m, _ := holder[d.name].(map[string]any)
		if m == nil {
			m = map[string]any{}
			holder[d.name] = m
		}
		m[t.sub] = value
	case d.multi:
		values := asList(value)
		for i, v := range values {
			if m, ok := v.(map[string]any); ok {
				values[i] = d.canonicalElem(m)
			}
		}
		if op == OpReplace {
			holder[d.name] = values
			return nil
		}
		list, _ := holder[d.name].([]any)
		for _, v := range values {
			list = addUnique(list, v)
		}
		holder[d.name] = list
	case d.complex:
		obj, err := complexValue(d, value)
		if err != nil {
			return err
		}
		m, _ := holder[d.name].(map[string]any)
		if m == nil || d.name == "manager" {
			m = map[string]any{}
		}
		for k, v := range obj {
			m[k] = v
		}
		holder[d.name] = m
	default:
		holder[d.name] = value
	}
	return nil
}

// setInElem sets value in one element matched by a filter: its filterSub,
// or (without one) the value object's sub-attributes.
func (t target) setInElem(m map[string]any, value any) error {
	if t.filterSub != "" {
		m[t.filterSub] = value
		return nil
	}
	obj, ok := value.(map[string]any)
	if !ok {
		return Errorf(InvalidValue, "the value for %s must be an object", t.def.name)
	}
	for k, v := range t.def.canonicalElem(obj) {
		m[k] = v
	}
	return nil
}

// remove applies a remove to holder. A filter that matches nothing is 400
// noTarget.
func (t target) remove(holder map[string]any, value any) error {
	d := t.def
	list, _ := holder[d.name].([]any)
	switch {
	case t.filter != nil:
		kept := list[:0:0]
		matched := false
		for _, e := range list {
			m, ok := e.(map[string]any)
			hit := false
			if ok {
				var err error
				if hit, err = Matches(m, t.filter); err != nil {
					return err
				}
			}
			if !hit {
				kept = append(kept, e)
				continue
			}
			matched = true
			if t.filterSub != "" {
				delete(m, t.filterSub)
				kept = append(kept, m)
			}
		}
		if !matched {
			return Errorf(NoTarget, "no value of %s matches %s", d.name, describe(t.filter))
		}
		holder[d.name] = kept
	case t.sub != "" && d.multi:
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				delete(m, t.sub)
			}
		}
	case t.sub != "":
		if m, ok := holder[d.name].(map[string]any); ok {
			delete(m, t.sub)
		}
	case d.multi && value != nil:
		// Entra ID's form: remove the listed values of a multi-valued attribute.
		kept := list[:0:0]
		for _, e := range list {
			if !containsValue(asList(value), e) {
				kept = append(kept, e)
			}
		}
		holder[d.name] = kept
	default:
		delete(holder, d.name)
	}
	return nil
}

// complexValue reads the value of a complex attribute: an object, or for
// the manager the id itself or a one-element array of {"value"} (both
// Entra ID's forms).
func complexValue(d attrDef, value any) (map[string]any, error) {
	if d.name == "manager" {
		switch v := value.(type) {
		case string:
			return map[string]any{"value": v}, nil
		case []any:
			if len(v) == 1 {
				return complexValue(d, v[0])
			}
		}
	}
	obj, ok := value.(map[string]any)
	if !ok {
		return nil, Errorf(InvalidValue, "the value of %s must be an object", d.name)
	}
	return d.canonicalElem(obj), nil
}

// asList is value as the elements of a multi-valued attribute.
func asList(value any) []any {
	switch v := value.(type) {
	case nil:
		return nil
	case []any:
		return append([]any(nil), v...)
	}
	return []any{value}
}

// addUnique appends v to list unless an element with the same value is there.
func addUnique(list []any, v any) []any {
	if containsValue(list, v) {
		return list
	}
	return append(list, v)
}

// containsValue reports whether list holds an element whose "value" equals
// v's (elements that are not objects compare whole).
func containsValue(list []any, v any) bool {
	key := elemValue(v)
	for _, e := range list {
		if elemValue(e) == key {
			return true
		}
	}
	return false
}

func elemValue(e any) string {
	if m, ok := e.(map[string]any); ok {
		v, _ := field(m, "value")
		s, _ := v.(string)
		return "v:" + strings.ToLower(s)
	}
	s, _ := e.(string)
	return "s:" + s
}
