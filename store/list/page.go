package list

import "learngate"

// Page selects one page of a list: page Number (1-based) of at most Size
// records. Callers give Number ≥ 1 and Size ≥ 0 (Size 0: the total alone).
//
// With After set it is a cursor page (docs/api.md, "Walking a list with
// links"): the Size records that follow After in the list's order, found by
// keyset, so its cost does not grow with depth; Number is then only a label
// and no count runs: the list answers Total as its total.
//
// With Number 0, Offset says how many records come before the page (SCIM's
// startIndex - 1).
type Page struct {
	Number int
	Size   int
	After  *learngate.Key
	Total  int64
	Offset int64
}

// offset is the number of records before the page.
func (p Page) offset() int64 {
	if p.Number == 0 {
		return p.Offset
	}
	return int64(p.Number-1) * int64(p.Size)
}
