package handlers

import (
	"errors"
	"strings"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/input"
	"learngate/store"
)

// plainInvalid strips the "Bad request: " prefix from an Invalid error, for
// the enrolment endpoints, whose bodies are not the user endpoints' strings.
func plainInvalid(err error) error {
	var e *learngate.Error
	if !errors.As(err, &e) || e.Code != learngate.Invalid {
		return err
	}
	out := *e
	out.Message = strings.TrimPrefix(e.Message, "Bad request: ")
	return &out
}

// enrolmentFilter reads the enrolment list filters of the query: the
// comma-separated ids (idsParam), one id (idParam), user_name, user_id,
// updated_after and updated_before. A malformed value is Invalid naming
// its parameter; empty values filter nothing.
func enrolmentFilter(c *gin.Context, idsParam, idParam string) (store.EnrolmentFilter, error) {
	var f store.EnrolmentFilter
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
