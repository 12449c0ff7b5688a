package store

// TenantMigrationVersions lists the tenant migrations' versions, the SQL
// ones and the online ones in Go, for the tests of package store_test.
var TenantMigrationVersions = tenantMigrationVersions
