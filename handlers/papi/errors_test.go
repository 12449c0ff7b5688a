package papi

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/input"
)

// TestBadRequestPrefix: errors carry the bare message, and respondError
// starts an Invalid message with "Bad request: " only on the routes
// WithBadRequestPrefix guards, in every body shape; other codes, and
// routes without it, keep the message as it is.
func TestBadRequestPrefix(t *testing.T) {
	t.Parallel()
	illegal := input.IllegalValue("page", "x")
	if illegal.Message != "Illegal value 'x' for 'page'" {
		t.Fatalf("IllegalValue message = %q, want the bare sentence", illegal.Message)
	}
	batchErr := &learngate.Error{Code: learngate.Invalid, Message: "Missing parameter 'title'",
		Record: &learngate.RecordRef{Index: 1}}
	notFound := learngate.Errorf(learngate.NotFound, "not found")
	tests := []struct {
		name     string
		mw       []gin.HandlerFunc
		err      error
		status   int
		wantBody string
	}{
		{"object, no prefix", nil, illegal, 400, `{"error":"Illegal value 'x' for 'page'"}`},
		{"object, prefix", []gin.HandlerFunc{WithBadRequestPrefix()}, illegal, 400,
			`{"error":"Bad request: Illegal value 'x' for 'page'"}`},
		{"string, no prefix", []gin.HandlerFunc{WithErrorStyle(StyleString)}, illegal, 400, `"Illegal value 'x' for 'page'"`},
		{"string, prefix", []gin.HandlerFunc{WithErrorStyle(StyleString), WithBadRequestPrefix()}, illegal, 400,
			`"Bad request: Illegal value 'x' for 'page'"`},
		{"user, prefix", []gin.HandlerFunc{WithErrorStyle(StyleUser), WithBadRequestPrefix()}, illegal, 400,
			`"Bad request: Illegal value 'x' for 'page'"`},
		{"list, prefix", []gin.HandlerFunc{WithErrorStyle(StyleString400), WithBadRequestPrefix()}, illegal, 400,
			`"Bad request: Illegal value 'x' for 'page'"`},
		{"knowledge batch, prefix", []gin.HandlerFunc{WithErrorStyle(StyleKnowledgeBatch), WithBadRequestPrefix()}, batchErr, 400,
			`{"error":"Bad request: Missing parameter 'title'","index":1,"user_name":null}`},
		{"errors, no prefix", []gin.HandlerFunc{WithErrorStyle(StyleErrors)}, illegal, 400, `{"errors":["Illegal value 'x' for 'page'"]}`},
		{"not found keeps its message", []gin.HandlerFunc{WithErrorStyle(StyleString), WithBadRequestPrefix()}, notFound, 404,
			`"not found"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := gin.New()
			r.GET("/x", append(tt.mw, func(c *gin.Context) { httpx.RespondError(c, tt.err) })...)
			w := httptest.NewRecorder()
			r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/x", nil))
			if w.Code != tt.status || w.Body.String() != tt.wantBody {
				t.Fatalf("got %d %s, want %d %s", w.Code, w.Body.String(), tt.status, tt.wantBody)
			}
		})
	}
	if illegal.Message != "Illegal value 'x' for 'page'" {
		t.Fatalf("respondError changed the error it was given: %q", illegal.Message)
	}
}
