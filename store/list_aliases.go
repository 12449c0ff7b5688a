package store

import (
	"learngate"
	"learngate/store/list"
)

// Names the callers of the store still use for the list engine's types
// (store/list) and the root package's Key, until they name those packages
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
	// Key is learngate.Key.
	Key = learngate.Key
	// Keyed is learngate.Keyed.
	Keyed = learngate.Keyed
)
