package scimapi

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"learngate/scim"
	"learngate/store"
)

// The SCIM resources as learngate answers them (docs/scim.md, "Attribute
// mapping"). Optional attributes are pointers, so that attributes and
// excludedAttributes can leave them out.

type scimName struct {
	Formatted  string `json:"formatted"`
	FamilyName string `json:"familyName"`
	GivenName  string `json:"givenName"`
}

type scimEmail struct {
	Value   string `json:"value"`
	Type    string `json:"type"`
	Primary bool   `json:"primary"`
}

type scimRefJSON struct {
	Value   string `json:"value"`
	Display string `json:"display"`
}

type scimManager struct {
	Value string `json:"value"`
}

type scimEnterprise struct {
	EmployeeNumber *string      `json:"employeeNumber,omitempty"`
	Manager        *scimManager `json:"manager,omitempty"`
}

type scimMeta struct {
	ResourceType string `json:"resourceType"`
	Created      string `json:"created"`
	LastModified string `json:"lastModified"`
	Location     string `json:"location"`
}

// scimUserDoc is a SCIM User.
type scimUserDoc struct {
	Schemas           []string        `json:"schemas"`
	ID                string          `json:"id"`
	ExternalID        *string         `json:"externalId,omitempty"`
	UserName          *string         `json:"userName,omitempty"`
	Name              *scimName       `json:"name,omitempty"`
	DisplayName       *string         `json:"displayName,omitempty"`
	Emails            []scimEmail     `json:"emails,omitempty"`
	Active            *bool           `json:"active,omitempty"`
	UserType          *string         `json:"userType,omitempty"`
	PreferredLanguage *string         `json:"preferredLanguage,omitempty"`
	Timezone          *string         `json:"timezone,omitempty"`
	Groups            []scimRefJSON   `json:"groups,omitempty"`
	Enterprise        *scimEnterprise `json:"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User,omitempty"`
	Meta              *scimMeta       `json:"meta,omitempty"`
}

// scimGroupDoc is a SCIM Group.
type scimGroupDoc struct {
	Schemas     []string       `json:"schemas"`
	ID          string         `json:"id"`
	ExternalID  *string        `json:"externalId,omitempty"`
	DisplayName *string        `json:"displayName,omitempty"`
	Members     *[]scimRefJSON `json:"members,omitempty"`
	Meta        *scimMeta      `json:"meta,omitempty"`
}

// scimTime is a meta date-time.
func scimTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// scimUser renders u, keeping the attributes p keeps.
func (a *API) scimUser(c *gin.Context, u store.SCIMUser, p projection) scimUserDoc {
	id := strconv.FormatInt(u.ID, 10)
	display := u.FirstName + " " + u.LastName
	doc := scimUserDoc{
		Schemas: []string{scim.UserSchema}, ID: id, ExternalID: u.ExternalID, UserName: &u.UserName,
		Name:        &scimName{Formatted: display, FamilyName: u.LastName, GivenName: u.FirstName},
		DisplayName: &display, Emails: []scimEmail{{Value: u.Email, Type: "work", Primary: true}},
		Active: &u.Active, UserType: &u.Type, PreferredLanguage: &u.Language, Timezone: &u.Timezone,
		Meta: &scimMeta{ResourceType: "User", Created: scimTime(u.CreatedAt), LastModified: scimTime(u.UpdatedAt),
			Location: a.scimBase(c) + "/Users/" + id},
	}
	for _, g := range u.Groups {
		doc.Groups = append(doc.Groups, scimRefJSON{Value: strconv.FormatInt(g.ID, 10), Display: g.Display})
	}
	if u.EmployeeNumber != nil || u.ManagerID != nil {
		doc.Schemas = append(doc.Schemas, scim.EnterpriseSchema)
		doc.Enterprise = &scimEnterprise{EmployeeNumber: u.EmployeeNumber}
		if u.ManagerID != nil {
			doc.Enterprise.Manager = &scimManager{Value: strconv.FormatInt(*u.ManagerID, 10)}
		}
	}
	for name, clear := range map[string]func(){
		"externalid": func() { doc.ExternalID = nil }, "username": func() { doc.UserName = nil },
		"name": func() { doc.Name = nil }, "displayname": func() { doc.DisplayName = nil },
		"emails": func() { doc.Emails = nil }, "active": func() { doc.Active = nil },
		"usertype": func() { doc.UserType = nil }, "preferredlanguage": func() { doc.PreferredLanguage = nil },
		"timezone": func() { doc.Timezone = nil }, "groups": func() { doc.Groups = nil },
		enterpriseKey: func() { doc.Enterprise = nil }, "meta": func() { doc.Meta = nil },
	} {
		if !p.keep(name) {
			clear()
		}
	}
	return doc
}

// scimUserMap is u as a document PATCH operations apply to.
func (a *API) scimUserMap(c *gin.Context, u store.SCIMUser) (map[string]any, error) {
	raw, err := json.Marshal(a.scimUser(c, u, projection{}))
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	err = json.Unmarshal(raw, &doc)
	return doc, err
}

// scimGroup renders g, keeping the attributes p keeps (members only when
// they were loaded).
func (a *API) scimGroup(c *gin.Context, g store.SCIMGroup, p projection) scimGroupDoc {
	id := strconv.FormatInt(g.ID, 10)
	doc := scimGroupDoc{Schemas: []string{scim.GroupSchema}, ID: id, ExternalID: g.ExternalID, DisplayName: &g.Name,
		Meta: &scimMeta{ResourceType: "Group", Created: scimTime(g.CreatedAt), LastModified: scimTime(g.UpdatedAt),
			Location: a.scimBase(c) + "/Groups/" + id}}
	if g.Members != nil && p.keep("members") {
		members := make([]scimRefJSON, len(g.Members))
		for i, m := range g.Members {
			members[i] = scimRefJSON{Value: strconv.FormatInt(m.ID, 10), Display: m.Display}
		}
		doc.Members = &members
	}
	if !p.keep("externalid") {
		doc.ExternalID = nil
	}
	if !p.keep("displayname") {
		doc.DisplayName = nil
	}
	if !p.keep("meta") {
		doc.Meta = nil
	}
	return doc
}

// enterpriseKey is the projection name of the enterprise extension.
var enterpriseKey = strings.ToLower(scim.EnterpriseSchema)

// projection is a request's attributes and excludedAttributes, by
// top-level attribute name in lower case (id and schemas are always kept).
type projection struct {
	include, exclude map[string]bool
}

// parseProjection reads attributes and excludedAttributes: comma-separated
// attribute names, a sub-attribute counting as its attribute, the core
// schemas' URN dropped.
func parseProjection(c *gin.Context) projection {
	names := func(param string) map[string]bool {
		v := strings.TrimSpace(c.Query(param))
		if v == "" {
			return nil
		}
		out := map[string]bool{}
		for _, n := range strings.Split(v, ",") {
			n = strings.ToLower(strings.TrimSpace(n))
			for _, urn := range []string{scim.UserSchema, scim.GroupSchema} {
				n = strings.TrimPrefix(n, strings.ToLower(urn)+":")
			}
			if strings.HasPrefix(n, enterpriseKey) {
				n = enterpriseKey
			} else if i := strings.IndexByte(n, '.'); i >= 0 {
				n = n[:i]
			}
			out[n] = true
		}
		return out
	}
	return projection{include: names("attributes"), exclude: names("excludedAttributes")}
}

// keep reports whether attribute name (lower case) is returned.
func (p projection) keep(name string) bool {
	if p.include != nil {
		return p.include[name]
	}
	return !p.exclude[name]
}
