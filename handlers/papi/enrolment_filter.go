package papi

import (
	"strings"

	"github.com/gin-gonic/gin"

	"learngate/input"
	"learngate/store/list"
)

// enrolmentFilter reads the enrolment list filters of the query: the
// comma-separated ids (idsParam), one id (idParam), user_name, user_id,
// updated_after and updated_before. A malformed value is Invalid naming
// its parameter; empty values filter nothing.
func enrolmentFilter(c *gin.Context, idsParam, idParam string) (list.EnrolmentFilter, error) {
	var f list.EnrolmentFilter
	var err error
	if f.TargetIDs, err = input.IDList(idsParam, c.Query(idsParam)); err != nil {
		return f, err
	}
	if f.TargetID, err = queryID(c.Query(idParam), idParam); err != nil {
		return f, err
	}
	if f.UserID, err = queryID(c.Query("user_id"), "user_id"); err != nil {
		return f, err
	}
	name, err := input.QueryText("user_name", c.Query("user_name"))
	if err != nil {
		return f, err
	}
	if name = strings.TrimSpace(name); name != "" {
		f.UserName = &name
	}
	f.UpdatedFilter, err = parseUpdatedFilter(c)
	return f, err
}

// queryID parses an id filter; nil when empty.
func queryID(raw, name string) (*int64, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, nil
	}
	id, err := input.Int(name, raw)
	if err != nil {
		return nil, err
	}
	return &id, nil
}
