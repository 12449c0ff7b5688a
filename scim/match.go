package scim

import (
	"fmt"
	"strings"

	filter "github.com/scim2/filter-parser/v2"
)

// Matches reports whether the element of a multi-valued attribute (an
// email, a member) passes the value filter f. Sub-attributes are found
// ignoring case; text compares ignoring case (the sub-attributes learngate
// keeps, value, type and display, are not case-exact, and member ids are
// digits). A filter naming a URN or nesting a value path is invalidPath.
func Matches(elem map[string]any, f filter.Expression) (bool, error) {
	switch e := f.(type) {
	case *filter.LogicalExpression:
		l, err := Matches(elem, e.Left)
		if err != nil {
			return false, err
		}
		r, err := Matches(elem, e.Right)
		if err != nil {
			return false, err
		}
		if e.Operator == filter.AND {
			return l && r, nil
		}
		return l || r, nil
	case *filter.NotExpression:
		m, err := Matches(elem, e.Expression)
		return !m && err == nil, err
	case *filter.AttributeExpression:
		if e.AttributePath.URIPrefix != nil || e.AttributePath.SubAttribute != nil {
			return false, Errorf(InvalidPath, "the value filter %s is not supported", describe(f))
		}
		v, present := field(elem, e.AttributePath.AttributeName)
		return compare(v, present, e.Operator, e.CompareValue), nil
	}
	return false, Errorf(InvalidPath, "the value filter %s is not supported", describe(f))
}

// field returns elem's value of name, ignoring case.
func field(elem map[string]any, name string) (any, bool) {
	for k, v := range elem {
		if strings.EqualFold(k, name) {
			return v, v != nil
		}
	}
	return nil, false
}

// compare applies op to an element's value and a filter's compare value.
func compare(v any, present bool, op filter.CompareOperator, want any) bool {
	if op == filter.PR {
		s, isString := v.(string)
		return present && (!isString || s != "")
	}
	if !present {
		return op == filter.NE
	}
	if wb, ok := want.(bool); ok {
		got, ok := asBool(v)
		switch op {
		case filter.EQ:
			return ok && got == wb
		case filter.NE:
			return !ok || got != wb
		}
		return false
	}
	ws, ok := StringValue(want)
	if !ok {
		ws = fmt.Sprint(want)
	}
	got := strings.ToLower(fmt.Sprint(v))
	ws = strings.ToLower(ws)
	switch op {
	case filter.EQ:
		return got == ws
	case filter.NE:
		return got != ws
	case filter.CO:
		return strings.Contains(got, ws)
	case filter.SW:
		return strings.HasPrefix(got, ws)
	case filter.EW:
		return strings.HasSuffix(got, ws)
	case filter.GT:
		return got > ws
	case filter.GE:
		return got >= ws
	case filter.LT:
		return got < ws
	case filter.LE:
		return got <= ws
	}
	return false
}

// asBool reads a boolean as real clients send it: true, or "True".
func asBool(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	return false, false
}

// equalities returns the sub-attributes a filter fixes with eq (joined by
// and), for the element an add or replace creates when none matches.
func equalities(f filter.Expression, out map[string]any) {
	switch e := f.(type) {
	case *filter.LogicalExpression:
		if e.Operator == filter.AND {
			equalities(e.Left, out)
			equalities(e.Right, out)
		}
	case *filter.AttributeExpression:
		if e.Operator == filter.EQ && e.AttributePath.SubAttribute == nil {
			v := e.CompareValue
			if s, ok := StringValue(v); ok {
				v = s
			}
			out[e.AttributePath.AttributeName] = v
		}
	}
}
