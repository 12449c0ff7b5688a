package list

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	filter "github.com/scim2/filter-parser/v2"

	"learngate/input"
	"learngate/scim"
)

// SCIM filters as SQL (docs/scim.md, "Filters"): each attribute a filter
// may name maps to a column expression of a fixed kind; values only ever
// reach the SQL as parameters. The expressions of case-insensitive
// attributes are lower case already (user_name is stored so), so that eq
// on userName and emails.value are lookups in users_user_name and
// users_email.

// scimKind is how an attribute compares.
type scimKind int

const (
	// kindFoldText: text compared ignoring case; expr is lower case.
	kindFoldText scimKind = iota
	// kindExactText: text compared exactly.
	kindExactText
	kindBool
	kindTime
	// kindID: an id, eq and ne only.
	kindID
	// kindLink: an EXISTS subquery with one bigint parameter (%s), eq only.
	kindLink
	// kindConst: a sub-attribute every value has the same (emails.type
	// "work", emails.primary true); compared in Go.
	kindConst
)

// scimColumn is one filterable attribute.
type scimColumn struct {
	kind scimKind
	// expr is the column expression, or the subquery of kindLink.
	expr string
	// nullable: pr tests IS NOT NULL and ne keeps NULLs.
	nullable bool
	// constant is the value of a kindConst attribute.
	constant any
}

// scimUserColumns are the User attributes a filter may name, by AttrKey.
var scimUserColumns = map[string]scimColumn{
	"id":                        {kind: kindID, expr: "users.id"},
	"username":                  {kind: kindFoldText, expr: "users.user_name"},
	"externalid":                {kind: kindExactText, expr: "users.scim_external_id", nullable: true},
	"name.givenname":            {kind: kindFoldText, expr: "lower(users.first_name)"},
	"name.familyname":           {kind: kindFoldText, expr: "lower(users.last_name)"},
	"name.formatted":            {kind: kindFoldText, expr: "lower(users.first_name || ' ' || users.last_name)"},
	"displayname":               {kind: kindFoldText, expr: "lower(users.first_name || ' ' || users.last_name)"},
	"emails":                    {kind: kindFoldText, expr: "lower(users.email)"},
	"emails.value":              {kind: kindFoldText, expr: "lower(users.email)"},
	"emails.type":               {kind: kindConst, constant: "work"},
	"emails.primary":            {kind: kindConst, constant: true},
	"active":                    {kind: kindBool, expr: "users.active"},
	"usertype":                  {kind: kindFoldText, expr: "lower(users.type)"},
	"preferredlanguage":         {kind: kindFoldText, expr: "lower(users.language)"},
	"locale":                    {kind: kindFoldText, expr: "lower(users.language)"},
	"timezone":                  {kind: kindExactText, expr: "users.timezone"},
	"meta.created":              {kind: kindTime, expr: "users.created_at"},
	"meta.lastmodified":         {kind: kindTime, expr: "users.updated_at"},
	"enterprise:employeenumber": {kind: kindExactText, expr: "users.lms_learner_id", nullable: true},
	"enterprise:manager":        {kind: kindLink, expr: "EXISTS (SELECT 1 FROM users m WHERE m.id = %s AND lower(m.email) = users.manager_email_lower)"},
	"enterprise:manager.value":  {kind: kindLink, expr: "EXISTS (SELECT 1 FROM users m WHERE m.id = %s AND lower(m.email) = users.manager_email_lower)"},
	"groups":                    {kind: kindLink, expr: "EXISTS (SELECT 1 FROM user_groups ug WHERE ug.user_id = users.id AND ug.group_id = %s)"},
	"groups.value":              {kind: kindLink, expr: "EXISTS (SELECT 1 FROM user_groups ug WHERE ug.user_id = users.id AND ug.group_id = %s)"},
	"schemas":                   {kind: kindConst, constant: scim.UserSchema},
}

// scimGroupColumns are the Group attributes a filter may name.
var scimGroupColumns = map[string]scimColumn{
	"id":                {kind: kindID, expr: "groups.id"},
	"displayname":       {kind: kindFoldText, expr: "lower(groups.name)"},
	"externalid":        {kind: kindExactText, expr: "groups.scim_external_id", nullable: true},
	"members":           {kind: kindLink, expr: "EXISTS (SELECT 1 FROM user_groups ug JOIN users mu ON mu.id = ug.user_id WHERE ug.group_id = groups.id AND ug.user_id = %s AND NOT mu.scim_deleted)"},
	"members.value":     {kind: kindLink, expr: "EXISTS (SELECT 1 FROM user_groups ug JOIN users mu ON mu.id = ug.user_id WHERE ug.group_id = groups.id AND ug.user_id = %s AND NOT mu.scim_deleted)"},
	"meta.created":      {kind: kindTime, expr: "groups.created_at"},
	"meta.lastmodified": {kind: kindTime, expr: "groups.updated_at"},
	"schemas":           {kind: kindConst, constant: scim.GroupSchema},
}

// scimWhere translates a parsed filter into a condition over columns and
// adds its values to q. An attribute it does not know, an operator its
// kind does not support or a value of the wrong type is 400 invalidFilter.
func scimWhere(e filter.Expression, columns map[string]scimColumn, q *Query) (string, error) {
	return scimCond(e, columns, q, "")
}

func scimCond(e filter.Expression, columns map[string]scimColumn, q *Query, parent string) (string, error) {
	switch x := e.(type) {
	case *filter.LogicalExpression:
		l, err := scimCond(x.Left, columns, q, parent)
		if err != nil {
			return "", err
		}
		r, err := scimCond(x.Right, columns, q, parent)
		if err != nil {
			return "", err
		}
		op := " AND "
		if x.Operator == filter.OR {
			op = " OR "
		}
		return "(" + l + op + r + ")", nil
	case *filter.NotExpression:
		c, err := scimCond(x.Expression, columns, q, parent)
		if err != nil {
			return "", err
		}
		return "NOT COALESCE(" + c + ", false)", nil
	case *filter.ValuePath:
		if parent != "" {
			return "", scim.Errorf(scim.InvalidFilter, "value paths cannot be nested")
		}
		key, ok := scim.AttrKey(x.AttributePath)
		if !ok || x.AttributePath.SubAttribute != nil || !hasSubColumns(columns, key) {
			return "", scim.Errorf(scim.InvalidFilter, "the filter names an attribute learngate does not filter on: %s", input.Quote(x.AttributePath.String()))
		}
		return scimCond(x.ValueFilter, columns, q, key)
	case *filter.AttributeExpression:
		key, ok := scim.AttrKey(x.AttributePath)
		if ok && parent != "" {
			if x.AttributePath.URIPrefix != nil || x.AttributePath.SubAttribute != nil {
				ok = false
			}
			key = parent + "." + key
		}
		col, known := columns[key]
		if !ok || !known {
			return "", scim.Errorf(scim.InvalidFilter, "the filter names an attribute learngate does not filter on: %s", input.Quote(x.AttributePath.String()))
		}
		return col.cond(x, q)
	}
	return "", scim.Errorf(scim.InvalidFilter, "the filter is not supported")
}

// hasSubColumns reports whether columns has a sub-attribute of key.
func hasSubColumns(columns map[string]scimColumn, key string) bool {
	for k := range columns {
		if strings.HasPrefix(k, key+".") {
			return true
		}
	}
	return false
}

// cond is one attribute expression over col.
func (col scimColumn) cond(x *filter.AttributeExpression, q *Query) (string, error) {
	bad := func() (string, error) {
		return "", scim.Errorf(scim.InvalidFilter, "%s cannot be compared with %s %s",
			input.Quote(x.AttributePath.String()), x.Operator, input.Quote(fmt.Sprint(x.CompareValue)))
	}
	op := x.Operator
	if op == filter.PR {
		if col.nullable {
			return "(" + col.expr + " IS NOT NULL AND " + col.expr + " <> '')", nil
		}
		return "true", nil
	}
	switch col.kind {
	case kindConst:
		if op != filter.EQ && op != filter.NE {
			return bad()
		}
		same := fmt.Sprint(col.constant) == fmt.Sprint(x.CompareValue)
		if s, ok := scim.StringValue(x.CompareValue); ok {
			same = strings.EqualFold(fmt.Sprint(col.constant), s)
		}
		return strconv.FormatBool(same == (op == filter.EQ)), nil
	case kindBool:
		b, ok := x.CompareValue.(bool)
		if !ok || (op != filter.EQ && op != filter.NE) {
			return bad()
		}
		if op == filter.NE {
			return col.expr + " <> " + q.Arg(b), nil
		}
		return col.expr + " = " + q.Arg(b), nil
	case kindID, kindLink:
		s, ok := scim.StringValue(x.CompareValue)
		if !ok || (op != filter.EQ && (op != filter.NE || col.kind == kindLink)) {
			return bad()
		}
		id, valid := scim.ParseID(s)
		if !valid {
			return strconv.FormatBool(op == filter.NE), nil // no resource has that id
		}
		if col.kind == kindLink {
			return fmt.Sprintf(col.expr, q.Arg(id)), nil
		}
		if op == filter.NE {
			return col.expr + " <> " + q.Arg(id), nil
		}
		return col.expr + " = " + q.Arg(id), nil
	case kindTime:
		s, ok := scim.StringValue(x.CompareValue)
		if !ok {
			return bad()
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return "", scim.Errorf(scim.InvalidFilter, "%s must be compared with a date-time such as 2011-05-13T04:42:34Z", input.Quote(x.AttributePath.String()))
		}
		sqlOp, ok := orderOps[op]
		if !ok {
			return bad()
		}
		return col.expr + " " + sqlOp + " " + q.Arg(t), nil
	}
	s, ok := scim.StringValue(x.CompareValue)
	if !ok {
		return bad()
	}
	v := q.Arg(s)
	if col.kind == kindFoldText {
		v = "lower(" + v + ")"
	}
	switch op {
	case filter.CO:
		return "strpos(" + col.expr + ", " + v + ") > 0", nil
	case filter.SW:
		return "starts_with(" + col.expr + ", " + v + ")", nil
	case filter.EW:
		return "right(" + col.expr + ", char_length(" + v + ")) = " + v, nil
	case filter.NE:
		return col.expr + " IS DISTINCT FROM " + v, nil
	}
	sqlOp, ok := orderOps[op]
	if !ok {
		return bad()
	}
	return col.expr + " " + sqlOp + " " + v, nil
}

// orderOps are the SQL operators of eq and the orderings.
var orderOps = map[filter.CompareOperator]string{
	filter.EQ: "=", filter.GT: ">", filter.GE: ">=", filter.LT: "<", filter.LE: "<=",
}

// The SCIM lists (docs/scim.md, "Lists"): by id, from the 1-based
// startIndex (Page.Offset). A SCIM-deleted user is not listed.
var (
	// SCIMUsers is GET /scim/v2/Users.
	SCIMUsers = Spec{Name: "SCIM users", Table: "users", Listed: "NOT users.scim_deleted"}
	// SCIMGroups is GET /scim/v2/Groups.
	SCIMGroups = Spec{Name: "SCIM groups", Table: "groups"}
)

// SCIMQuery is the SCIM filter expr (nil: every resource) as a query of
// SCIMUsers or SCIMGroups, counted and read in order. A filter learngate
// cannot apply is 400 invalidFilter.
func SCIMQuery(s Spec, expr filter.Expression) (*Query, error) {
	q := NewQuery(Plan{})
	if expr == nil {
		return q, nil
	}
	columns := scimGroupColumns
	if s.Table == SCIMUsers.Table {
		columns = scimUserColumns
	}
	cond, err := scimWhere(expr, columns, q)
	if err != nil {
		return nil, err
	}
	q.Where(cond)
	return q, nil
}
