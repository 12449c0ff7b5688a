package papi

import (
	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
)

// The Public API's errors (docs/decisions.md, "Error bodies"): one
// Responder, respondPapi, whose body shape each route group chooses.

// ErrorStyle is the body shape a route's errors take. The spec gives some
// endpoints odd shapes; routes choose theirs with WithErrorStyle.
type ErrorStyle int

const (
	// StyleObject: {"error": "<message>"} (the default).
	StyleObject ErrorStyle = iota
	// StyleString: the message as a bare JSON string (user endpoints' 400s, some 404s).
	StyleString
	// StyleErrors: {"errors": [...]} with the error's Details, or its Message
	// when it has none (enrolment creation).
	StyleErrors
	// StyleUser: the user endpoints. 422 is {"user_name", "email", "params",
	// "reason", "errors"} from the error's Params (the submitted fields),
	// Message and Details; every other status is StyleString.
	StyleUser
	// StyleKnowledge: the external knowledge writes (docs/decisions.md, "External knowledge").
	// 404 is a bare JSON string ("not found"); every other status
	// {"error": "<message>"}.
	StyleKnowledge
	// StyleKnowledgeBatch: the external knowledge batch. 400 is {"error",
	// "index", "user_name"} from the error's Record (both null when the error
	// is about the whole batch); every other status is StyleKnowledge.
	StyleKnowledgeBatch
	// StyleString400: a 400 (on lists, a bad page or per_page) is a bare
	// string as docs/decisions.md, "Lists and paging" gives it, every other status
	// StyleObject (the webhook lists).
	StyleString400
)

const errorStyleKey = "learngate.errorStyle"

// WithErrorStyle makes the errors of the routes it guards take style s
// (respondPapi).
func WithErrorStyle(s ErrorStyle) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Set(errorStyleKey, s)
		httpx.UseResponder(c, respondPapi)
		c.Next()
	}
}

// badRequestPrefix starts the 400 messages of the routes WithBadRequestPrefix
// guards (docs/decisions.md, "Error bodies").
const badRequestPrefix = "Bad request: "

const badRequestPrefixKey = "learngate.badRequestPrefix"

// WithBadRequestPrefix makes respondError start the message of an Invalid
// error with "Bad request: " on the routes it guards, in whatever body
// shape their error style gives: the spec's users, topic, pathway and
// external knowledge routes and the lists say it, the other routes do not.
// Errors carry the bare message; this is the one place the prefix is added.
func WithBadRequestPrefix() gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Set(badRequestPrefixKey, true)
		httpx.UseResponder(c, respondPapi)
		c.Next()
	}
}

// respondPapi is the Public API's Responder: err's status from statusOf
// and its body in the route's style (WithErrorStyle), its Invalid message
// prefixed where WithBadRequestPrefix says so.
func respondPapi(c *gin.Context, err error) {
	status, e, done := httpx.SettleError(c, err)
	if done {
		return
	}
	code := e.Code
	if code == learngate.Invalid && c.GetBool(badRequestPrefixKey) {
		prefixed := *e
		prefixed.Message = badRequestPrefix + e.Message
		e = &prefixed
	}
	// A body over httpx.MaxBodyBytes gets one body shape on every route, whether
	// its size was declared (requireJSON) or found while reading it
	// (docs/reliability.md, B2).
	if code == learngate.TooLarge {
		c.AbortWithStatusJSON(status, gin.H{"error": e.Message})
		return
	}
	style, _ := c.Get(errorStyleKey)
	switch style {
	case StyleUser:
		if code == learngate.Unprocessable {
			c.AbortWithStatusJSON(status, userUnprocessableBody(e))
			return
		}
		c.AbortWithStatusJSON(status, e.Message)
	case StyleString:
		c.AbortWithStatusJSON(status, e.Message)
	case StyleKnowledgeBatch, StyleKnowledge:
		switch {
		case code == learngate.NotFound:
			c.AbortWithStatusJSON(status, e.Message)
		case code == learngate.Invalid && style == StyleKnowledgeBatch:
			c.AbortWithStatusJSON(status, knowledgeBatchErrorBody(e))
		default:
			c.AbortWithStatusJSON(status, gin.H{"error": e.Message})
		}
	case StyleString400:
		if code == learngate.Invalid {
			c.AbortWithStatusJSON(status, e.Message)
			return
		}
		c.AbortWithStatusJSON(status, gin.H{"error": e.Message})
	case StyleErrors:
		messages := e.Details
		if len(messages) == 0 {
			messages = []string{e.Message}
		}
		c.AbortWithStatusJSON(status, gin.H{"errors": messages})
	default:
		c.AbortWithStatusJSON(status, gin.H{"error": e.Message})
	}
}

// userUnprocessable is the spec's 422 body of the user endpoints, in the
// spec's field order.
type userUnprocessable struct {
	UserName any            `json:"user_name"`
	Email    any            `json:"email"`
	Params   map[string]any `json:"params"`
	Reason   string         `json:"reason"`
	Errors   []string       `json:"errors"`
}

// userUnprocessableBody builds the 422 body from e: user_name and email as
// submitted (null when not), params (the submitted fields, {} when none),
// reason (the first sentence) and errors (all of them).
func userUnprocessableBody(e *learngate.Error) userUnprocessable {
	params := e.Params
	if params == nil {
		params = map[string]any{}
	}
	errs := e.Details
	if len(errs) == 0 {
		errs = []string{e.Message}
	}
	return userUnprocessable{UserName: params["user_name"], Email: params["email"], Params: params, Reason: e.Message, Errors: errs}
}

// knowledgeBatchError is the 400 body of the external knowledge batch
// (docs/decisions.md, "External knowledge"): the failing record's error, its 0-based index
// and its user_name as sent; index and user_name are null when the error is
// about the whole batch, user_name when the record sent none.
type knowledgeBatchError struct {
	Error    string  `json:"error"`
	Index    *int    `json:"index"`
	UserName *string `json:"user_name"`
}

func knowledgeBatchErrorBody(e *learngate.Error) knowledgeBatchError {
	body := knowledgeBatchError{Error: e.Message}
	if e.Record != nil {
		index := e.Record.Index
		body.Index, body.UserName = &index, e.Record.UserName
	}
	return body
}
