package store

import "learngate"

// Temporary aliases (issue 32, "Domain apart from storage"): these names
// moved from package store to the root package learngate, where the
// resource types the API returns live now (see the package comment of
// learngate, errors.go). The aliases keep package handlers compiling while
// it is split into applications; once that split is merged, run
// /work/notes/domain-rewrite.sh over the handler packages (it rewrites
// store.X to learngate.X for every name below and fixes the imports) and
// delete this file. Nothing outside handlers may use these aliases.
//
// The moved names:
//	ActionComplete ActionEnrol ActionUnenrol ActionUpdate AdminTypeNames
//	BatchError BatchResult BatchRow CatalogItem CatalogKind Categories
//	CertificateEventData CustomField CustomValue Delivery DeliveryAttempt
//	DevelopmentPlanTitle EnrolledPathway EnrolledTopic EnrolledUser Enrolment
//	EnrolmentAction EnrolmentActions EnrolmentCategory EnrolmentDate
//	EnrolmentRequest ExternalKnowledge FieldDate FieldList FieldNumber
//	FieldString Goals Groups Key Keyed KnowledgeBatchResult KnowledgeBatchRow
//	KnowledgeCategory KnowledgeCategoryInput KnowledgeCertificate
//	KnowledgeDevelopmentPlan KnowledgeDocument KnowledgeInput KnowledgeLicense
//	KnowledgeQualification KnowledgeSkill KnowledgeTraining NewCustomField
//	ParsedUser Pathway PathwayEnrolment PathwayInput PathwayTopic
//	PathwayTopicInput Progress ProgressStatuses Roles ScheduledDate
//	Skills StatusApplying StatusConquered StatusExploring StatusRecertify
//	StatusUnexplored TimestampLayout Topic TopicCategory TopicCategoryInput
//	TopicEnrolment TopicInput User UserInput UserRef Webhook WebhookInput

// Aliases of the moved types.
type (
	BatchError             = learngate.BatchError
	BatchResult            = learngate.BatchResult
	BatchRow               = learngate.BatchRow
	CatalogItem            = learngate.CatalogItem
	CatalogKind            = learngate.CatalogKind
	CertificateEventData   = learngate.CertificateEventData
	CustomField            = learngate.CustomField
	CustomValue            = learngate.CustomValue
	Delivery               = learngate.Delivery
	DeliveryAttempt        = learngate.DeliveryAttempt
	EnrolledPathway        = learngate.EnrolledPathway
	EnrolledTopic          = learngate.EnrolledTopic
	EnrolledUser           = learngate.EnrolledUser
	Enrolment              = learngate.Enrolment
	EnrolmentAction        = learngate.EnrolmentAction
	EnrolmentCategory      = learngate.EnrolmentCategory
	EnrolmentDate          = learngate.EnrolmentDate
	EnrolmentRequest       = learngate.EnrolmentRequest
	ExternalKnowledge      = learngate.ExternalKnowledge
	Key                    = learngate.Key
	Keyed                  = learngate.Keyed
	KnowledgeBatchResult   = learngate.KnowledgeBatchResult
	KnowledgeBatchRow      = learngate.KnowledgeBatchRow
	KnowledgeCategory      = learngate.KnowledgeCategory
	KnowledgeCategoryInput = learngate.KnowledgeCategoryInput
	KnowledgeInput         = learngate.KnowledgeInput
	KnowledgeSkill         = learngate.KnowledgeSkill
	NewCustomField         = learngate.NewCustomField
	ParsedUser             = learngate.ParsedUser
	Pathway                = learngate.Pathway
	PathwayEnrolment       = learngate.PathwayEnrolment
	PathwayInput           = learngate.PathwayInput
	PathwayTopic           = learngate.PathwayTopic
	PathwayTopicInput      = learngate.PathwayTopicInput
	Progress               = learngate.Progress
	ScheduledDate          = learngate.ScheduledDate
	Topic                  = learngate.Topic
	TopicCategory          = learngate.TopicCategory
	TopicCategoryInput     = learngate.TopicCategoryInput
	TopicEnrolment         = learngate.TopicEnrolment
	TopicInput             = learngate.TopicInput
	User                   = learngate.User
	UserInput              = learngate.UserInput
	UserRef                = learngate.UserRef
	Webhook                = learngate.Webhook
	WebhookInput           = learngate.WebhookInput
)

// Aliases of the moved constants.
const (
	ActionComplete           = learngate.ActionComplete
	ActionEnrol              = learngate.ActionEnrol
	ActionUnenrol            = learngate.ActionUnenrol
	ActionUpdate             = learngate.ActionUpdate
	Categories               = learngate.Categories
	DevelopmentPlanTitle     = learngate.DevelopmentPlanTitle
	FieldDate                = learngate.FieldDate
	FieldList                = learngate.FieldList
	FieldNumber              = learngate.FieldNumber
	FieldString              = learngate.FieldString
	Goals                    = learngate.Goals
	Groups                   = learngate.Groups
	KnowledgeCertificate     = learngate.KnowledgeCertificate
	KnowledgeDevelopmentPlan = learngate.KnowledgeDevelopmentPlan
	KnowledgeDocument        = learngate.KnowledgeDocument
	KnowledgeLicense         = learngate.KnowledgeLicense
	KnowledgeQualification   = learngate.KnowledgeQualification
	KnowledgeTraining        = learngate.KnowledgeTraining
	Roles                    = learngate.Roles
	Skills                   = learngate.Skills
	StatusApplying           = learngate.StatusApplying
	StatusConquered          = learngate.StatusConquered
	StatusExploring          = learngate.StatusExploring
	StatusRecertify          = learngate.StatusRecertify
	StatusUnexplored         = learngate.StatusUnexplored
	TimestampLayout          = learngate.TimestampLayout
)

// Aliases of the moved lists.
var (
	AdminTypeNames   = learngate.AdminTypeNames
	EnrolmentActions = learngate.EnrolmentActions
	ProgressStatuses = learngate.ProgressStatuses
)
