package store

import (
	"learngate/store/list"
)

// Names the callers of the store still use for the list engine's types
// (store/list), until they name that package
// themselves: a step of the handlers' split, after which this file goes.
type (
	// Page is list.Page.
	Page = list.Page
	// UpdatedFilter is list.UpdatedFilter.
	UpdatedFilter = list.UpdatedFilter
	// EnrolmentFilter is list.EnrolmentFilter.
	EnrolmentFilter = list.EnrolmentFilter
	// UserFilter is list.UserFilter.
	UserFilter = list.UserFilter
	// KnowledgeFilter is list.KnowledgeFilter.
	KnowledgeFilter = list.KnowledgeFilter
)
