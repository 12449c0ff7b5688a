package papi

import (
	"learngate"

	"github.com/gin-gonic/gin"

	"learngate/handlers/idempotency"
)

// Routes adds the Public API to r: /papi behind the chain tenant (404) →
// API key (401) → tenant handle → rate limit (429) → Content-Type (406) →
// Idempotency-Key, and the certificate downloads, which carry a signed
// token instead of a key.
func (a *API) Routes(r gin.IRouter) {
	chain := a.Chain()
	// Idempotency-Key (docs/api.md) comes last, for matched routes only.
	papi := r.Group("/papi", append(chain[:len(chain):len(chain)], idempotency.Step(idempotency.RefuseJSON))...)
	papi.GET("/ping", a.ping)

	// Routes whose errors are a bare JSON string: the lists (a bad page or
	// per_page, docs/decisions.md, "Lists and paging") and the external knowledge reads.
	// WithBadRequestPrefix: a 400 message starts with "Bad request: "
	// (docs/decisions.md, "Error bodies"); the groups without it do not.
	stringErrors := papi.Group("", WithErrorStyle(StyleString), WithBadRequestPrefix())

	// Catalog (docs/decisions.md, "Catalog, topics and pathways"): one generic handler per verb for the name-only kinds.
	stringErrors.GET("/roles", a.listCatalog(learngate.Roles))
	papi.POST("/roles", a.createCatalogItem(learngate.Roles))
	papi.DELETE("/roles/:id", a.deleteCatalogItem(learngate.Roles))
	stringErrors.GET("/groups", a.listCatalog(learngate.Groups))
	papi.POST("/groups", a.createCatalogItem(learngate.Groups))
	papi.DELETE("/groups/:id", a.deleteCatalogItem(learngate.Groups))
	stringErrors.GET("/goals", a.listCatalog(learngate.Goals))
	papi.POST("/goals", a.createCatalogItem(learngate.Goals))
	papi.DELETE("/goals/:id", a.deleteCatalogItem(learngate.Goals))
	stringErrors.GET("/skills", a.listCatalog(learngate.Skills))
	papi.POST("/skills", a.createCatalogItem(learngate.Skills))
	papi.DELETE("/skills/:id", a.deleteCatalogItem(learngate.Skills))
	stringErrors.GET("/categories", a.listCatalog(learngate.Categories))
	papi.POST("/categories", a.createCatalogItem(learngate.Categories))
	papi.DELETE("/categories/:id", a.deleteCatalogItem(learngate.Categories))
	stringErrors.GET("/custom_fields", a.listCustomFields)
	papi.POST("/custom_fields", a.createCustomField)
	papi.DELETE("/custom_fields/:id", a.deleteCustomField)

	// Topics and pathways (docs/decisions.md, "Catalog, topics and pathways"): errors as {"error": "..."}.
	objectPrefixErrors := papi.Group("", WithBadRequestPrefix())
	stringErrors.GET("/topics", a.listTopics)
	objectPrefixErrors.POST("/topics", a.createTopic)
	objectPrefixErrors.GET("/topics/:id", a.showTopic)
	objectPrefixErrors.PUT("/topics/:id", a.updateTopic)
	stringErrors.GET("/pathways", a.listPathways)
	objectPrefixErrors.POST("/pathways", a.createPathway)
	objectPrefixErrors.GET("/pathways/:id", a.showPathway)
	objectPrefixErrors.PUT("/pathways/:id", a.updatePathway)

	// Users (docs/decisions.md, "Users"): 400/404 as JSON strings, 422 as the spec's user body.
	userErrors := papi.Group("", WithErrorStyle(StyleUser), WithBadRequestPrefix())
	userErrors.GET("/users", a.listUsers)
	userErrors.POST("/users", a.createUser)
	userErrors.POST("/users/batch_save", a.batchSaveUsers)
	userErrors.GET("/users/:user_name", a.showUser)
	userErrors.PUT("/users/:user_name", a.updateUser)

	// External knowledge (docs/decisions.md, "Lists and paging" and "External knowledge"): reads answer 400 and
	// 404 as JSON strings; writes answer 404 "not found" and 400 {"error"};
	// the batch's 400s also name the failing record.
	stringErrors.GET("/external_knowledges", a.listExternalKnowledges)
	stringErrors.GET("/external_knowledges/:id", a.showExternalKnowledge)
	knowledgeErrors := papi.Group("", WithErrorStyle(StyleKnowledge), WithBadRequestPrefix())
	knowledgeErrors.POST("/external_knowledges", a.createExternalKnowledge)
	knowledgeErrors.PUT("/external_knowledges/:id", a.updateExternalKnowledge)
	papi.POST("/external_knowledges/batch_save", WithErrorStyle(StyleKnowledgeBatch), WithBadRequestPrefix(), a.batchSaveExternalKnowledges)

	// Enrolments (docs/decisions.md, "Enrolments"): lists as above; creation answers
	// {"errors": [...]}; progress and a single pathway enrolment {"error": ...}.
	stringErrors.GET("/topic_assignments", a.listTopicAssignments)
	stringErrors.GET("/topic_assignments/by_topic/:id", a.listTopicAssignmentsByTopic)
	stringErrors.GET("/topic_assignments/by_user/:id", a.listTopicAssignmentsByUser)
	stringErrors.GET("/topic_assignments/user/:user_name", a.listUserTopicAssignments)
	papi.POST("/topic_assignments", WithErrorStyle(StyleErrors), a.createTopicAssignments)
	papi.POST("/topic_assignments/:id/progress", a.recordProgress)
	stringErrors.GET("/pathway_assignments", a.listPathwayAssignments)
	stringErrors.GET("/pathway_assignments/by_pathway/:id", a.listPathwayAssignmentsByPathway)
	stringErrors.GET("/pathway_assignments/by_user/:id", a.listPathwayAssignmentsByUser)
	papi.GET("/pathway_assignments/:id", a.showPathwayAssignment)

	// Webhooks (docs/decisions.md, "Webhooks"): {"error"} bodies; a bad page on a list is a bare string.
	string400Errors := papi.Group("", WithErrorStyle(StyleString400), WithBadRequestPrefix())
	string400Errors.GET("/webhooks", a.listWebhooks)
	papi.POST("/webhooks", a.createWebhook)
	papi.GET("/webhooks/:id", a.showWebhook)
	papi.PUT("/webhooks/:id", a.updateWebhook)
	papi.DELETE("/webhooks/:id", a.deleteWebhook)
	papi.POST("/webhooks/:id/rotate_secret", a.rotateWebhookSecret)
	papi.POST("/webhooks/:id/test", a.testWebhook)
	string400Errors.GET("/webhooks/:id/deliveries", a.listWebhookDeliveries)
	papi.POST("/webhooks/:id/deliveries/:delivery_id/retry", a.retryWebhookDelivery)

	// Certificates (docs/decisions.md, "Certificates"). A download carries a signed
	// token instead of an API key: it resolves the tenant and skips the key
	// check; having no key, it never uses the tenant's quota (docs/decisions.md,
	// "Rate limits") but a limit per client IP of its own.
	papi.GET("/certificates", a.requestCertificate)
	papi.GET("/certificates/status/:job_id", a.showCertificateJob)
	// HEAD answers as GET does, without the body (a link checker, curl -I).
	r.GET("/papi/certificates/download/:token", a.gate.ResolveTenant, a.gate.DownloadLimit, a.downloadCertificate)
	r.HEAD("/papi/certificates/download/:token", a.gate.ResolveTenant, a.gate.DownloadLimit, a.downloadCertificate)
}
