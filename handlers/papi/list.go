package papi

import (
	"github.com/gin-gonic/gin"

	"learngate/input"
	"learngate/store/list"
)

// ListEnvelope is the body of every list endpoint (docs/api.md,
// "Lists and paging"). Exported for the benchmark's baseline (bench/), which writes
// the same bytes.
type ListEnvelope[T any] struct {
	TotalRecords int64 `json:"total_records"`
	MaxPerPage   int   `json:"max_per_page"`
	CurrentPage  int   `json:"current_page"`
	TotalPages   int64 `json:"total_pages"`
	Records      []T   `json:"records"`
}

// newListEnvelope wraps one page of records. max_per_page is the page size
// in effect; total_pages is 0 when there are no records. records is [] and
// never null, also past the end.
func newListEnvelope[T any](records []T, total int64, page list.Page) ListEnvelope[T] {
	if records == nil {
		records = []T{}
	}
	size := int64(page.Size)
	return ListEnvelope[T]{
		TotalRecords: total,
		MaxPerPage:   page.Size,
		CurrentPage:  page.Number,
		TotalPages:   (total + size - 1) / size,
		Records:      records,
	}
}

// parsePage reads the query parameters page and per_page with the one
// shared parser (input.PageParams: docs/api.md, "Lists and paging"). A value that is
// not an integer is Invalid with the spec's message, which list routes
// answer as a bare JSON string. A request with a cursor (docs/api.md,
// "Walking a list with links") ignores page and gets the cursor's page
// (cursorPage); a cursor that is not good for this walk is Invalid naming
// cursor.
func (a *API) parsePage(c *gin.Context) (list.Page, error) {
	if raw := c.Query(cursorParam); raw != "" {
		_, size, err := input.PageParams("", c.Query("per_page"))
		if err != nil {
			return list.Page{}, err
		}
		return a.cursorPage(c, size, raw)
	}
	number, size, err := input.PageParams(c.Query("page"), c.Query("per_page"))
	if err != nil {
		return list.Page{}, err
	}
	return list.Page{Number: number, Size: size}, nil
}

// parseListQuery reads a list's page and its updated_after/updated_before
// bounds (docs/api.md, "Lists and paging").
func (a *API) parseListQuery(c *gin.Context) (list.Page, list.UpdatedFilter, error) {
	page, err := a.parsePage(c)
	if err != nil {
		return page, list.UpdatedFilter{}, err
	}
	f, err := parseUpdatedFilter(c)
	return page, f, err
}

// parseUpdatedFilter reads updated_after and updated_before; a malformed
// value is Invalid naming its parameter.
func parseUpdatedFilter(c *gin.Context) (list.UpdatedFilter, error) {
	var f list.UpdatedFilter
	var err error
	if f.UpdatedAfter, err = queryTime(c, "updated_after"); err != nil {
		return f, err
	}
	f.UpdatedBefore, err = queryTime(c, "updated_before")
	return f, err
}
