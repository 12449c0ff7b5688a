package list

import "strconv"

// The partial-index predicates a filter must repeat for PostgreSQL to use
// the index. The tenant migrations that build those indexes (the store's
// migrations_tenant_online.go, 00021 and 00022) build them from these same
// functions, so the two cannot drift.

// ShortValueMax is the most characters of a value user_custom_values_value
// holds (PostgreSQL's length counts characters).
const ShortValueMax = 64

// ShortValue is the partial predicate of user_custom_values_value (00019,
// rebuilt by 00021) over the value column col: a statement meant to use
// that index repeats it, as ShortValue("v.value").
func ShortValue(col string) string { return "length(" + col + ") <= " + strconv.Itoa(ShortValueMax) }

// LongValue is the partial predicate of user_custom_values_long (00022):
// the values user_custom_values_value leaves out.
func LongValue(col string) string { return "length(" + col + ") > " + strconv.Itoa(ShortValueMax) }
