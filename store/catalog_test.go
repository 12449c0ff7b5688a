package store_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"learngate"
	"learngate/store"
	"learngate/store/list"
	"learngate/store/storetest"
)

// catalogTenantDB creates a migrated tenant and returns its handle.
func catalogTenantDB(tb testing.TB, db *store.DB, slug string) *store.TenantDB {
	tb.Helper()
	tn, _, _ := createTenant(tb, db, slug)
	tdb, err := db.Tenant(tn.Schema)
	if err != nil {
		tb.Fatalf("Tenant(%s): %v", tn.Schema, err)
	}
	return tdb
}

// assertCode fails unless err carries code and, when msg is not empty, that message.
func assertCode(tb testing.TB, err error, code learngate.Code, msg string) {
	tb.Helper()
	if got := learngate.ErrorCode(err); got != code {
		tb.Fatalf("error code = %s (%v), want %s", got, err, code)
	}
	if msg != "" && learngate.ErrorMessage(err) != msg {
		tb.Fatalf("error message = %q, want %q", learngate.ErrorMessage(err), msg)
	}
}

// listCatalog returns one page of a catalog and its total, failing on error.
func listCatalog(tb testing.TB, tdb *store.TenantDB, kind learngate.CatalogKind, page list.Page) ([]learngate.CatalogItem, int64) {
	tb.Helper()
	items, total, err := store.ListCatalog(context.Background(), tdb, kind, page)
	if err != nil {
		tb.Fatalf("ListCatalog(%s, %+v): %v", kind, page, err)
	}
	return items, total
}

func TestCatalogStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	alpha := catalogTenantDB(t, db, "alpha")
	beta := catalogTenantDB(t, db, "beta")

	kinds := []struct {
		kind     learngate.CatalogKind
		singular string
	}{
		{learngate.Roles, "role"}, {learngate.Groups, "group"}, {learngate.Goals, "goal"},
		{learngate.Skills, "skill"}, {learngate.Categories, "category"},
	}
	for _, k := range kinds {
		t.Run(string(k.kind), func(t *testing.T) {
			items, total := listCatalog(t, alpha, k.kind, list.Page{Number: 1, Size: 25})
			if total != 0 || len(items) != 0 || items == nil {
				t.Fatalf("empty catalog = %#v, total %d; want [] and 0", items, total)
			}
			for _, name := range []string{"Alpha", " Beta ", "Gamma"} {
				if _, err := store.CreateCatalogItem(ctx, alpha, k.kind, name); err != nil {
					t.Fatalf("create %q: %v", name, err)
				}
			}
			pages := []struct {
				page list.Page
				want []learngate.CatalogItem
			}{
				{list.Page{Number: 1, Size: 2}, []learngate.CatalogItem{{ID: 1, Name: "Alpha"}, {ID: 2, Name: "Beta"}}},
				{list.Page{Number: 2, Size: 2}, []learngate.CatalogItem{{ID: 3, Name: "Gamma"}}},
				{list.Page{Number: 3, Size: 2}, []learngate.CatalogItem{}},
				{list.Page{Number: 1, Size: 100}, []learngate.CatalogItem{{ID: 1, Name: "Alpha"}, {ID: 2, Name: "Beta"}, {ID: 3, Name: "Gamma"}}},
			}
			for _, p := range pages {
				items, total := listCatalog(t, alpha, k.kind, p.page)
				if total != 3 || !reflect.DeepEqual(items, p.want) {
					t.Fatalf("page %+v = %v, total %d; want %v, total 3", p.page, items, total, p.want)
				}
			}

			_, err := store.CreateCatalogItem(ctx, alpha, k.kind, "GAMMA")
			assertCode(t, err, learngate.Unprocessable, k.singular+" 'GAMMA' already exists")
			_, err = store.CreateCatalogItem(ctx, alpha, k.kind, "  ")
			assertCode(t, err, learngate.Invalid, "name is required")
			_, err = store.CreateCatalogItem(ctx, alpha, k.kind, strings.Repeat("n", 201))
			assertCode(t, err, learngate.Invalid, "name must be at most 200 characters")

			// Isolation: beta sees nothing of alpha's and cannot delete it.
			if items, total := listCatalog(t, beta, k.kind, list.Page{Number: 1, Size: 25}); total != 0 || len(items) != 0 {
				t.Fatalf("beta sees %v (total %d) of alpha's %s", items, total, k.kind)
			}
			assertCode(t, store.DeleteCatalogItem(ctx, beta, k.kind, 1), learngate.NotFound, "not found")
			if item, err := store.CreateCatalogItem(ctx, beta, k.kind, "alpha"); err != nil || item != (learngate.CatalogItem{ID: 1, Name: "alpha"}) {
				t.Fatalf("beta create alpha = %v, %v", item, err)
			}

			if err := store.DeleteCatalogItem(ctx, alpha, k.kind, 1); err != nil {
				t.Fatalf("delete: %v", err)
			}
			assertCode(t, store.DeleteCatalogItem(ctx, alpha, k.kind, 1), learngate.NotFound, "not found")
			if _, total := listCatalog(t, alpha, k.kind, list.Page{Number: 1, Size: 25}); total != 2 {
				t.Fatalf("total after delete = %d, want 2", total)
			}
			if _, total := listCatalog(t, beta, k.kind, list.Page{Number: 1, Size: 25}); total != 1 {
				t.Fatalf("beta total after alpha's delete = %d, want 1", total)
			}
		})
	}
}

func TestCatalogStoreRefusesUnknownKinds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	alpha := catalogTenantDB(t, db, "alpha")
	for _, kind := range []learngate.CatalogKind{"", "users", "roles; DROP TABLE roles", "custom_fields", "public.tenants"} {
		if _, _, err := store.ListCatalog(ctx, alpha, kind, list.Page{Number: 1, Size: 25}); err == nil {
			t.Errorf("ListCatalog(%q) succeeded", kind)
		}
		if _, err := store.CreateCatalogItem(ctx, alpha, kind, "x"); err == nil {
			t.Errorf("CreateCatalogItem(%q) succeeded", kind)
		}
		if err := store.DeleteCatalogItem(ctx, alpha, kind, 1); err == nil {
			t.Errorf("DeleteCatalogItem(%q) succeeded", kind)
		}
	}
	if _, total := listCatalog(t, alpha, learngate.Roles, list.Page{Number: 1, Size: 25}); total != 0 {
		t.Fatalf("roles total = %d", total)
	}
}

func TestCustomFieldStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	alpha := catalogTenantDB(t, db, "alpha")
	beta := catalogTenantDB(t, db, "beta")

	created := []struct {
		in   learngate.NewCustomField
		want learngate.CustomField
	}{
		{learngate.NewCustomField{Name: " City ", FieldType: learngate.FieldList, Options: []string{" Auckland", "Nelson "}},
			learngate.CustomField{ID: 1, Name: "City", FieldType: "list", Options: []string{"Auckland", "Nelson"}}},
		{learngate.NewCustomField{Name: "Staff_no-2", FieldType: learngate.FieldNumber},
			learngate.CustomField{ID: 2, Name: "Staff_no-2", FieldType: "number", Options: []string{}}},
		{learngate.NewCustomField{Name: "Début", FieldType: learngate.FieldDate, Options: []string{}},
			learngate.CustomField{ID: 3, Name: "Début", FieldType: "date", Options: []string{}}},
	}
	for _, c := range created {
		got, err := store.CreateCustomField(ctx, alpha, c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Fatalf("CreateCustomField(%+v) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	fields, total, err := store.ListCustomFields(ctx, alpha, list.Page{Number: 1, Size: 2})
	if err != nil || total != 3 || !reflect.DeepEqual(fields, []learngate.CustomField{created[0].want, created[1].want}) {
		t.Fatalf("page 1 = %#v, %d, %v", fields, total, err)
	}
	fields, total, err = store.ListCustomFields(ctx, alpha, list.Page{Number: 3, Size: 2})
	if err != nil || total != 3 || fields == nil || len(fields) != 0 {
		t.Fatalf("page past the end = %#v, %d, %v", fields, total, err)
	}

	refused := []struct {
		name string
		in   learngate.NewCustomField
		code learngate.Code
	}{
		{"taken name", learngate.NewCustomField{Name: "CITY", FieldType: "string"}, learngate.Unprocessable},
		{"no name", learngate.NewCustomField{FieldType: "string"}, learngate.Invalid},
		{"name with a dot", learngate.NewCustomField{Name: "a.b", FieldType: "string"}, learngate.Invalid},
		{"name of 65", learngate.NewCustomField{Name: strings.Repeat("a", 65), FieldType: "string"}, learngate.Invalid},
		{"no type", learngate.NewCustomField{Name: "Town"}, learngate.Invalid},
		{"unknown type", learngate.NewCustomField{Name: "Town", FieldType: "bool"}, learngate.Invalid},
		{"list without options", learngate.NewCustomField{Name: "Town", FieldType: "list"}, learngate.Invalid},
		{"empty option", learngate.NewCustomField{Name: "Town", FieldType: "list", Options: []string{""}}, learngate.Invalid},
		{"repeated option", learngate.NewCustomField{Name: "Town", FieldType: "list", Options: []string{"a", "A"}}, learngate.Invalid},
		{"options on a number", learngate.NewCustomField{Name: "Town", FieldType: "number", Options: []string{"1"}}, learngate.Invalid},
	}
	for _, r := range refused {
		t.Run(r.name, func(t *testing.T) {
			_, err := store.CreateCustomField(ctx, alpha, r.in)
			assertCode(t, err, r.code, "")
		})
	}

	// Isolation: beta sees nothing of alpha's and cannot delete it.
	fields, total, err = store.ListCustomFields(ctx, beta, list.Page{Number: 1, Size: 25})
	if err != nil || total != 0 || len(fields) != 0 {
		t.Fatalf("beta sees %#v (total %d, %v)", fields, total, err)
	}
	assertCode(t, store.DeleteCustomField(ctx, beta, 1), learngate.NotFound, "not found")

	if err := store.DeleteCustomField(ctx, alpha, 1); err != nil {
		t.Fatalf("delete: %v", err)
	}
	assertCode(t, store.DeleteCustomField(ctx, alpha, 1), learngate.NotFound, "not found")
	if _, total, _ := store.ListCustomFields(ctx, alpha, list.Page{Number: 1, Size: 25}); total != 2 {
		t.Fatalf("total after delete = %d, want 2", total)
	}
}

// TestCustomFieldLimitUnderRace creates fields concurrently from a tenant
// with 15: exactly 5 may succeed, the others are refused with the limit.
func TestCustomFieldLimitUnderRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	alpha := catalogTenantDB(t, db, "alpha")
	beta := catalogTenantDB(t, db, "beta")
	for i := range 15 {
		if _, err := store.CreateCustomField(ctx, alpha, learngate.NewCustomField{Name: fmt.Sprintf("Field %d", i), FieldType: "string"}); err != nil {
			t.Fatalf("create field %d: %v", i, err)
		}
	}

	const racers = 20
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			_, errs[i] = store.CreateCustomField(ctx, alpha, learngate.NewCustomField{Name: fmt.Sprintf("Racer %d", i), FieldType: "string"})
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
			continue
		}
		assertCode(t, err, learngate.Unprocessable, "a tenant may have at most 20 custom fields")
	}
	if ok != 5 {
		t.Fatalf("%d concurrent creates succeeded, want 5", ok)
	}
	if _, total, err := store.ListCustomFields(ctx, alpha, list.Page{Number: 1, Size: 100}); err != nil || total != store.MaxCustomFields {
		t.Fatalf("alpha has %d fields (%v), want %d", total, err, store.MaxCustomFields)
	}
	// The limit is per tenant.
	if _, err := store.CreateCustomField(ctx, beta, learngate.NewCustomField{Name: "Field 0", FieldType: "string"}); err != nil {
		t.Fatalf("beta create: %v", err)
	}
}
