package scim

import (
	"strings"

	filter "github.com/scim2/filter-parser/v2"
)

// MemberChange is a change of a group's members: with ReplaceAll the
// members become Add; else Add are added and Remove removed (the two are
// disjoint). MustBeMembers are the ids a remove named through a value
// filter: each must be a member (or be added), else the change is 400
// noTarget.
type MemberChange struct {
	ReplaceAll    bool
	Add, Remove   []int64
	MustBeMembers []int64
}

// GroupPatch is a Group PATCH or PUT folded into one change. Nil fields
// stay as they are.
type GroupPatch struct {
	DisplayName   *string
	SetExternalID bool
	ExternalID    *string
	Members       MemberChange
}

// memberSet folds member operations in order.
type memberSet struct {
	replaceAll  bool
	add, remove []int64
	must        []int64
}

func (m *memberSet) addIDs(ids []int64) {
	for _, id := range ids {
		m.remove = without(m.remove, id)
		if !containsID(m.add, id) {
			m.add = append(m.add, id)
		}
	}
}

func (m *memberSet) removeIDs(ids []int64) {
	for _, id := range ids {
		m.add = without(m.add, id)
		if !m.replaceAll && !containsID(m.remove, id) {
			m.remove = append(m.remove, id)
		}
	}
}

func (m *memberSet) replace(ids []int64) {
	m.replaceAll, m.add, m.remove = true, nil, nil
	m.addIDs(ids)
}

func without(ids []int64, id int64) []int64 {
	out := ids[:0]
	for _, v := range ids {
		if v != id {
			out = append(out, v)
		}
	}
	return out
}

func containsID(ids []int64, id int64) bool {
	for _, v := range ids {
		if v == id {
			return true
		}
	}
	return false
}

// GroupChange folds a Group PATCH's operations (RFC 7644 §3.5.2 and the
// real clients' forms: members added and removed by value list, removed by
// members[value eq "id"], all removed, replaced) into one GroupPatch.
func GroupChange(ops []Operation) (GroupPatch, error) {
	var g GroupPatch
	var members memberSet
	for _, op := range ops {
		if err := g.apply(&members, op); err != nil {
			return GroupPatch{}, err
		}
	}
	g.Members = MemberChange{ReplaceAll: members.replaceAll, Add: members.add, Remove: members.remove, MustBeMembers: members.must}
	return g, nil
}

// GroupReplace is the GroupPatch of a PUT (or POST) body: its displayName
// (400 invalidValue when it is missing), externalId and members replace
// the group's.
func GroupReplace(doc map[string]any) (GroupPatch, error) {
	doc = Group.Normalize(doc)
	name, ok := doc["displayName"].(string)
	if !ok || strings.TrimSpace(name) == "" {
		return GroupPatch{}, Errorf(InvalidValue, "displayName is required")
	}
	g := GroupPatch{DisplayName: &name, SetExternalID: true}
	if err := g.setExternalID(doc["externalId"]); err != nil {
		return GroupPatch{}, err
	}
	ids, err := memberIDs(doc["members"])
	if err != nil {
		return GroupPatch{}, err
	}
	g.Members = MemberChange{ReplaceAll: true, Add: ids}
	return g, nil
}

func (g *GroupPatch) setExternalID(v any) error {
	g.SetExternalID, g.ExternalID = true, nil
	if v == nil {
		return nil
	}
	s, ok := v.(string)
	if !ok {
		return Errorf(InvalidValue, "externalId must be a string")
	}
	if s != "" {
		g.ExternalID = &s
	}
	return nil
}

func (g *GroupPatch) apply(members *memberSet, op Operation) error {
	if op.Path == "" {
		for k, v := range op.Value.(map[string]any) {
			if _, skip := lookup(k, ignoredWithoutPath); skip {
				continue
			}
			if err := g.apply(members, Operation{Op: op.Op, Path: k, Value: v}); err != nil {
				return err
			}
		}
		return nil
	}
	t, err := Group.resolve(op.Path)
	if err != nil {
		return err
	}
	switch {
	case t.def.readOnly:
		return Errorf(Mutability, "%s is read-only", t.def.name)
	case t.def.name == "displayName" && op.Op == OpRemove:
		return Errorf(Mutability, "displayName is required")
	case t.def.name == "displayName":
		s, ok := op.Value.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return Errorf(InvalidValue, "displayName must be a non-empty string")
		}
		g.DisplayName = &s
	case t.def.name == "externalId" && op.Op == OpRemove:
		return g.setExternalID(nil)
	case t.def.name == "externalId":
		return g.setExternalID(op.Value)
	case t.sub != "" || t.filterSub != "":
		return Errorf(InvalidPath, "the path %q is not supported: address members as members or members[value eq \"id\"]", op.Path)
	case t.filter != nil:
		if op.Op != OpRemove {
			return Errorf(InvalidPath, "members are added with the path members")
		}
		ids, err := filterIDs(t.filter)
		if err != nil {
			return err
		}
		members.removeIDs(ids)
		members.must = append(members.must, ids...)
	default:
		ids, err := memberIDs(op.Value)
		if err != nil {
			return err
		}
		switch op.Op {
		case OpAdd:
			members.addIDs(ids)
		case OpReplace:
			members.replace(ids)
		case OpRemove:
			if op.Value == nil {
				members.replace(nil)
			} else {
				members.removeIDs(ids)
			}
		}
	}
	return nil
}

// memberIDs reads a members value: objects whose value is a user id (a
// single object is read as a list of one). A value that is no id is 400
// invalidValue.
func memberIDs(v any) ([]int64, error) {
	var ids []int64
	for _, e := range asList(v) {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, Errorf(InvalidValue, "each member must be an object with a value")
		}
		raw, _ := field(m, "value")
		s, _ := raw.(string)
		id, ok := ParseID(strings.TrimSpace(s))
		if !ok {
			return nil, Errorf(InvalidValue, "member %v is no user", raw)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// filterIDs reads the ids of a members value filter: value eq "id",
// alone or joined by or. Other filters are 400 invalidPath; an id that
// is no user id names no member (400 noTarget).
func filterIDs(f filter.Expression) ([]int64, error) {
	switch e := f.(type) {
	case *filter.LogicalExpression:
		if e.Operator != filter.OR {
			break
		}
		l, err := filterIDs(e.Left)
		if err != nil {
			return nil, err
		}
		r, err := filterIDs(e.Right)
		return append(l, r...), err
	case *filter.AttributeExpression:
		if e.Operator != filter.EQ || e.AttributePath.URIPrefix != nil || e.AttributePath.SubAttribute != nil ||
			!strings.EqualFold(e.AttributePath.AttributeName, "value") {
			break
		}
		s, _ := StringValue(e.CompareValue)
		id, ok := ParseID(s)
		if !ok {
			return nil, Errorf(NoTarget, "no member has the value %v", e.CompareValue)
		}
		return []int64{id}, nil
	}
	return nil, Errorf(InvalidPath, "members can be filtered by value eq \"id\" only")
}
