package handlers

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// catalogKinds are the name-only catalogs and what one entry is called in errors.
var catalogKinds = []struct {
	path     string
	singular string
}{
	{"/papi/roles", "role"},
	{"/papi/groups", "group"},
	{"/papi/goals", "goal"},
	{"/papi/skills", "skill"},
	{"/papi/categories", "category"},
}

// catalogTenant is a tenant of a catalog test: its host and key.
type catalogTenant struct {
	h    *harness
	host string
	key  string
}

func newCatalogTenant(h *harness, slug string) catalogTenant {
	return catalogTenant{h: h, host: slug + ".learngate.localhost", key: h.createTenant(slug)}
}

func (ct catalogTenant) call(t testing.TB, method, path, body string, status int, want string) {
	t.Helper()
	assertResponse(t, ct.h.papi(method, ct.host, path, ct.key, body), status, want)
}

// catalogEmptyList is the envelope of an empty list at the default page size.
const catalogEmptyList = `{"total_records":0,"max_per_page":25,"current_page":1,"total_pages":0,"records":[]}`

func TestCatalogCreateListDelete(t *testing.T) {
	t.Parallel()
	for _, kind := range catalogKinds {
		t.Run(kind.singular, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, harnessOptions{})
			acme := newCatalogTenant(h, "acme")
			other := newCatalogTenant(h, "other")

			acme.call(t, http.MethodGet, kind.path, "", http.StatusOK, catalogEmptyList)
			acme.call(t, http.MethodPost, kind.path, `{"name":"Admin"}`, http.StatusCreated, `{"id":1,"name":"Admin"}`)
			acme.call(t, http.MethodPost, kind.path, `{"name":"  Sales team  "}`, http.StatusCreated, `{"id":2,"name":"Sales team"}`)
			acme.call(t, http.MethodGet, kind.path, "", http.StatusOK,
				`{"total_records":2,"max_per_page":25,"current_page":1,"total_pages":1,"records":[{"id":1,"name":"Admin"},{"id":2,"name":"Sales team"}]}`)

			// Isolation: the other tenant sees none of it and cannot delete it.
			other.call(t, http.MethodGet, kind.path, "", http.StatusOK, catalogEmptyList)
			other.call(t, http.MethodDelete, kind.path+"/1", "", http.StatusNotFound, `{"error":"not found"}`)

			acme.call(t, http.MethodDelete, kind.path+"/1", "", http.StatusNoContent, "")
			acme.call(t, http.MethodDelete, kind.path+"/1", "", http.StatusNotFound, `{"error":"not found"}`)
			acme.call(t, http.MethodGet, kind.path, "", http.StatusOK,
				`{"total_records":1,"max_per_page":25,"current_page":1,"total_pages":1,"records":[{"id":2,"name":"Sales team"}]}`)
			// A deleted name can be used again.
			acme.call(t, http.MethodPost, kind.path, `{"name":"admin"}`, http.StatusCreated, `{"id":3,"name":"admin"}`)
			other.call(t, http.MethodPost, kind.path, `{"name":"Admin"}`, http.StatusCreated, `{"id":1,"name":"Admin"}`)
		})
	}
}

func TestCatalogCreateRefused(t *testing.T) {
	t.Parallel()
	for _, kind := range catalogKinds {
		t.Run(kind.singular, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, harnessOptions{})
			acme := newCatalogTenant(h, "acme")
			other := newCatalogTenant(h, "other")
			acme.call(t, http.MethodPost, kind.path, `{"name":"Admin"}`, http.StatusCreated, `{"id":1,"name":"Admin"}`)

			exists := fmt.Sprintf(`{"error":"%s 'ADMIN' already exists"}`, kind.singular)
			tests := []struct {
				name   string
				body   string
				status int
				want   string
			}{
				{"duplicate in another case", `{"name":"ADMIN"}`, http.StatusUnprocessableEntity, exists},
				{"duplicate with spaces", `{"name":" ADMIN "}`, http.StatusUnprocessableEntity, exists},
				{"missing name", `{}`, http.StatusBadRequest, `{"error":"name is required"}`},
				{"empty name", `{"name":""}`, http.StatusBadRequest, `{"error":"name is required"}`},
				{"blank name", `{"name":"   "}`, http.StatusBadRequest, `{"error":"name is required"}`},
				{"null name", `{"name":null}`, http.StatusBadRequest, `{"error":"name is required"}`},
				{"name of 201 characters", `{"name":"` + strings.Repeat("é", 201) + `"}`, http.StatusBadRequest,
					`{"error":"name must be at most 200 characters"}`},
				{"name not a string", `{"name":5}`, http.StatusBadRequest, `{"error":"invalid value for \"name\": expected string"}`},
				{"unknown field", `{"name":"x","colour":"red"}`, http.StatusBadRequest, `{"error":"unknown field \"colour\""}`},
				{"malformed JSON", `{"name":`, http.StatusBadRequest, `{"error":"malformed JSON"}`},
				{"array body", `["x"]`, http.StatusBadRequest, `{"error":"request body must be a JSON object"}`},
				{"two objects", `{"name":"x"}{"name":"y"}`, http.StatusBadRequest, `{"error":"request body must hold one JSON object"}`},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					acme.call(t, http.MethodPost, kind.path, tt.body, tt.status, tt.want)
				})
			}

			// 200 characters is allowed; nothing refused above was stored.
			long := strings.Repeat("é", 200)
			w := acme.h.papi(http.MethodPost, acme.host, kind.path, acme.key, `{"name":"`+long+`"}`)
			var created struct{ ID int64 }
			assertResponse(t, w, http.StatusCreated, "")
			decode(t, w, &created)
			acme.call(t, http.MethodGet, kind.path, "", http.StatusOK, fmt.Sprintf(
				`{"total_records":2,"max_per_page":25,"current_page":1,"total_pages":1,"records":[{"id":1,"name":"Admin"},{"id":%d,"name":"%s"}]}`,
				created.ID, long))

			// The same name is free in another tenant.
			other.call(t, http.MethodPost, kind.path, `{"name":"admin"}`, http.StatusCreated, `{"id":1,"name":"admin"}`)

			for _, path := range []string{"/abc", "/0", "/-1", "/99999999999999999999", "/999"} {
				acme.call(t, http.MethodDelete, kind.path+path, "", http.StatusNotFound, `{"error":"not found"}`)
			}

			for _, contentType := range []string{"", "text/plain"} {
				headers := map[string]string{"Authorization": acme.key}
				if contentType != "" {
					headers["Content-Type"] = contentType
				}
				w := do(h.public, request{method: http.MethodPost, host: acme.host, path: kind.path, body: `{"name":"x"}`, headers: headers})
				assertResponse(t, w, http.StatusNotAcceptable, `{"error":"Content-Type must be application/json"}`)
			}
		})
	}
}

func TestCatalogPaging(t *testing.T) {
	t.Parallel()
	for _, kind := range catalogKinds {
		t.Run(kind.singular, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, harnessOptions{})
			acme := newCatalogTenant(h, "acme")
			other := newCatalogTenant(h, "other")
			for i, name := range []string{"a", "b", "c"} {
				acme.call(t, http.MethodPost, kind.path, `{"name":"`+name+`"}`, http.StatusCreated,
					fmt.Sprintf(`{"id":%d,"name":"%s"}`, i+1, name))
			}
			all := `[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}]`
			tests := []struct {
				query  string
				status int
				want   string
			}{
				{"?per_page=2", http.StatusOK, `{"total_records":3,"max_per_page":2,"current_page":1,"total_pages":2,"records":[{"id":1,"name":"a"},{"id":2,"name":"b"}]}`},
				{"?per_page=2&page=1", http.StatusOK, `{"total_records":3,"max_per_page":2,"current_page":1,"total_pages":2,"records":[{"id":1,"name":"a"},{"id":2,"name":"b"}]}`},
				{"?per_page=2&page=2", http.StatusOK, `{"total_records":3,"max_per_page":2,"current_page":2,"total_pages":2,"records":[{"id":3,"name":"c"}]}`},
				{"?per_page=2&page=3", http.StatusOK, `{"total_records":3,"max_per_page":2,"current_page":3,"total_pages":2,"records":[]}`},
				{"?page=2", http.StatusOK, `{"total_records":3,"max_per_page":25,"current_page":2,"total_pages":1,"records":[]}`},
				{"?per_page=3", http.StatusOK, `{"total_records":3,"max_per_page":3,"current_page":1,"total_pages":1,"records":` + all + `}`},
				{"?per_page=1&page=3", http.StatusOK, `{"total_records":3,"max_per_page":1,"current_page":3,"total_pages":3,"records":[{"id":3,"name":"c"}]}`},
				{"?per_page=500", http.StatusOK, `{"total_records":3,"max_per_page":100,"current_page":1,"total_pages":1,"records":` + all + `}`},
				{"?per_page=100", http.StatusOK, `{"total_records":3,"max_per_page":100,"current_page":1,"total_pages":1,"records":` + all + `}`},
				{"?per_page=0", http.StatusOK, `{"total_records":3,"max_per_page":25,"current_page":1,"total_pages":1,"records":` + all + `}`},
				{"?per_page=-4", http.StatusOK, `{"total_records":3,"max_per_page":25,"current_page":1,"total_pages":1,"records":` + all + `}`},
				{"?page=0", http.StatusOK, `{"total_records":3,"max_per_page":25,"current_page":1,"total_pages":1,"records":` + all + `}`},
				{"?page=&per_page=", http.StatusOK, `{"total_records":3,"max_per_page":25,"current_page":1,"total_pages":1,"records":` + all + `}`},
				{"?page=abc", http.StatusBadRequest, `"Bad request: Illegal value 'abc' for 'page'"`},
				{"?page=1.5", http.StatusBadRequest, `"Bad request: Illegal value '1.5' for 'page'"`},
				{"?per_page=ten", http.StatusBadRequest, `"Bad request: Illegal value 'ten' for 'per_page'"`},
				{"?page=99999999999999999999", http.StatusOK, `{"total_records":3,"max_per_page":25,"current_page":2147483647,"total_pages":1,"records":[]}`},
			}
			for _, tt := range tests {
				t.Run(tt.query, func(t *testing.T) {
					acme.call(t, http.MethodGet, kind.path+tt.query, "", tt.status, tt.want)
				})
			}
			other.call(t, http.MethodGet, kind.path+"?per_page=2&page=2", "", http.StatusOK,
				`{"total_records":0,"max_per_page":2,"current_page":2,"total_pages":0,"records":[]}`)
		})
	}
}

func TestCustomFieldCreateListDelete(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	acme := newCatalogTenant(h, "acme")
	other := newCatalogTenant(h, "other")
	const path = "/papi/custom_fields"

	acme.call(t, http.MethodGet, path, "", http.StatusOK, catalogEmptyList)
	acme.call(t, http.MethodPost, path, `{"name":"City","field_type":"list","options":["Auckland"," Wellington "]}`,
		http.StatusCreated, `{"id":1,"name":"City","field_type":"list","options":["Auckland","Wellington"]}`)
	acme.call(t, http.MethodPost, path, `{"name":" Employee_no-2 ","field_type":"number"}`,
		http.StatusCreated, `{"id":2,"name":"Employee_no-2","field_type":"number","options":[]}`)
	acme.call(t, http.MethodPost, path, `{"name":"Start date","field_type":"date","options":[]}`,
		http.StatusCreated, `{"id":3,"name":"Start date","field_type":"date","options":[]}`)
	acme.call(t, http.MethodPost, path, `{"name":"Nickname","field_type":"string","options":null}`,
		http.StatusCreated, `{"id":4,"name":"Nickname","field_type":"string","options":[]}`)
	acme.call(t, http.MethodGet, path, "", http.StatusOK, `{"total_records":4,"max_per_page":25,"current_page":1,"total_pages":1,"records":[`+
		`{"id":1,"name":"City","field_type":"list","options":["Auckland","Wellington"]},`+
		`{"id":2,"name":"Employee_no-2","field_type":"number","options":[]},`+
		`{"id":3,"name":"Start date","field_type":"date","options":[]},`+
		`{"id":4,"name":"Nickname","field_type":"string","options":[]}]}`)
	acme.call(t, http.MethodGet, path+"?per_page=3&page=2", "", http.StatusOK,
		`{"total_records":4,"max_per_page":3,"current_page":2,"total_pages":2,"records":[{"id":4,"name":"Nickname","field_type":"string","options":[]}]}`)
	acme.call(t, http.MethodGet, path+"?page=2&per_page=500", "", http.StatusOK,
		`{"total_records":4,"max_per_page":100,"current_page":2,"total_pages":1,"records":[]}`)
	acme.call(t, http.MethodGet, path+"?per_page=x", "", http.StatusBadRequest, `"Bad request: Illegal value 'x' for 'per_page'"`)

	// Isolation: the other tenant sees none of it and cannot delete it.
	other.call(t, http.MethodGet, path, "", http.StatusOK, catalogEmptyList)
	other.call(t, http.MethodDelete, path+"/1", "", http.StatusNotFound, `{"error":"not found"}`)

	acme.call(t, http.MethodDelete, path+"/1", "", http.StatusNoContent, "")
	acme.call(t, http.MethodDelete, path+"/1", "", http.StatusNotFound, `{"error":"not found"}`)
	acme.call(t, http.MethodDelete, path+"/abc", "", http.StatusNotFound, `{"error":"not found"}`)
	acme.call(t, http.MethodGet, path+"?per_page=1", "", http.StatusOK,
		`{"total_records":3,"max_per_page":1,"current_page":1,"total_pages":3,"records":[{"id":2,"name":"Employee_no-2","field_type":"number","options":[]}]}`)
	other.call(t, http.MethodPost, path, `{"name":"city","field_type":"string"}`,
		http.StatusCreated, `{"id":1,"name":"city","field_type":"string","options":[]}`)
}

func TestCustomFieldCreateRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	acme := newCatalogTenant(h, "acme")
	const path = "/papi/custom_fields"
	acme.call(t, http.MethodPost, path, `{"name":"City","field_type":"string"}`,
		http.StatusCreated, `{"id":1,"name":"City","field_type":"string","options":[]}`)

	badName := `{"error":"name must be 1 to 64 letters, digits, spaces, '_' or '-'"}`
	tests := []struct {
		name   string
		body   string
		status int
		want   string
	}{
		{"duplicate name in another case", `{"name":"CITY","field_type":"number"}`, http.StatusUnprocessableEntity,
			`{"error":"custom field 'CITY' already exists"}`},
		{"missing name", `{"field_type":"string"}`, http.StatusBadRequest, `{"error":"name is required"}`},
		{"blank name", `{"name":"  ","field_type":"string"}`, http.StatusBadRequest, `{"error":"name is required"}`},
		{"name with a dot", `{"name":"a.b","field_type":"string"}`, http.StatusBadRequest, badName},
		{"name with a colon", `{"name":"a:b","field_type":"string"}`, http.StatusBadRequest, badName},
		{"name of 65 characters", `{"name":"` + strings.Repeat("a", 65) + `","field_type":"string"}`, http.StatusBadRequest, badName},
		{"missing field_type", `{"name":"Town"}`, http.StatusBadRequest, `{"error":"field_type is required"}`},
		{"unknown field_type", `{"name":"Town","field_type":"text"}`, http.StatusBadRequest,
			`{"error":"field_type must be one of string, number, date, list"}`},
		{"field_type in capitals", `{"name":"Town","field_type":"STRING"}`, http.StatusBadRequest,
			`{"error":"field_type must be one of string, number, date, list"}`},
		{"list without options", `{"name":"Town","field_type":"list"}`, http.StatusBadRequest,
			`{"error":"options are required for a list field"}`},
		{"list with no options", `{"name":"Town","field_type":"list","options":[]}`, http.StatusBadRequest,
			`{"error":"options are required for a list field"}`},
		{"list with an empty option", `{"name":"Town","field_type":"list","options":["a"," "]}`, http.StatusBadRequest,
			`{"error":"options must be non-empty strings"}`},
		{"list with a repeated option", `{"name":"Town","field_type":"list","options":["Nelson","nelson"]}`, http.StatusBadRequest,
			`{"error":"option 'nelson' is given more than once"}`},
		{"list with a ; in an option", `{"name":"Town","field_type":"list","options":["Nelson;Motueka"]}`, http.StatusBadRequest,
			`{"error":"option 'Nelson;Motueka' must not contain ';'"}`},
		{"options on a string field", `{"name":"Town","field_type":"string","options":["a"]}`, http.StatusBadRequest,
			`{"error":"options are only allowed for list fields"}`},
		{"options on a date field", `{"name":"Town","field_type":"date","options":["a"]}`, http.StatusBadRequest,
			`{"error":"options are only allowed for list fields"}`},
		{"options not strings", `{"name":"Town","field_type":"list","options":[1]}`, http.StatusBadRequest,
			`{"error":"invalid value for \"options\": expected string"}`},
		{"options not an array", `{"name":"Town","field_type":"list","options":"a;b"}`, http.StatusBadRequest,
			`{"error":"invalid value for \"options\": expected []string"}`},
		{"unknown field", `{"name":"Town","field_type":"string","required":true}`, http.StatusBadRequest,
			`{"error":"unknown field \"required\""}`},
		{"malformed JSON", `{"name":"Town",`, http.StatusBadRequest, `{"error":"malformed JSON"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acme.call(t, http.MethodPost, path, tt.body, tt.status, tt.want)
		})
	}
	acme.call(t, http.MethodGet, path, "", http.StatusOK,
		`{"total_records":1,"max_per_page":25,"current_page":1,"total_pages":1,"records":[{"id":1,"name":"City","field_type":"string","options":[]}]}`)

	w := do(h.public, request{method: http.MethodPost, host: acme.host, path: path,
		body: `{"name":"Town","field_type":"string"}`, headers: map[string]string{"Authorization": acme.key}})
	assertResponse(t, w, http.StatusNotAcceptable, `{"error":"Content-Type must be application/json"}`)
}

func TestCustomFieldLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	acme := newCatalogTenant(h, "acme")
	other := newCatalogTenant(h, "other")
	const path = "/papi/custom_fields"
	const tooMany = `{"error":"a tenant may have at most 20 custom fields"}`

	// A 64-character name is the longest allowed.
	long := strings.Repeat("x", 63)
	for i := 1; i <= 20; i++ {
		name := fmt.Sprintf("%s%c", long, 'a'+i-1)
		acme.call(t, http.MethodPost, path, `{"name":"`+name+`","field_type":"string"}`, http.StatusCreated,
			fmt.Sprintf(`{"id":%d,"name":"%s","field_type":"string","options":[]}`, i, name))
	}
	acme.call(t, http.MethodPost, path, `{"name":"Extra","field_type":"string"}`, http.StatusUnprocessableEntity, tooMany)
	acme.call(t, http.MethodPost, path, `{"name":"Extra","field_type":"list","options":["a"]}`, http.StatusUnprocessableEntity, tooMany)
	// The rules of the body are checked before the limit.
	acme.call(t, http.MethodPost, path, `{"name":"Extra","field_type":"text"}`, http.StatusBadRequest,
		`{"error":"field_type must be one of string, number, date, list"}`)
	acme.call(t, http.MethodGet, path+"?per_page=1", "", http.StatusOK, fmt.Sprintf(
		`{"total_records":20,"max_per_page":1,"current_page":1,"total_pages":20,"records":[{"id":1,"name":"%sa","field_type":"string","options":[]}]}`, long))

	// The limit is per tenant.
	other.call(t, http.MethodPost, path, `{"name":"Extra","field_type":"string"}`, http.StatusCreated,
		`{"id":1,"name":"Extra","field_type":"string","options":[]}`)

	// Deleting a field makes room for one more.
	acme.call(t, http.MethodDelete, path+"/5", "", http.StatusNoContent, "")
	w := acme.h.papi(http.MethodPost, acme.host, path, acme.key, `{"name":"Extra","field_type":"string"}`)
	assertResponse(t, w, http.StatusCreated, "")
	acme.call(t, http.MethodPost, path, `{"name":"Extra 2","field_type":"string"}`, http.StatusUnprocessableEntity, tooMany)
}
