package httpx

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
)

// TestClientClosedIsNoInternalError: a request whose client went away ends
// in a canceled context; that is logged as such, not as an internal error,
// while any other error is still the 500 "internal error".
func TestClientClosedIsNoInternalError(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	run := func(ctx context.Context, err error) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		c, _ := gin.CreateTestContext(w)
		c.Request = httptest.NewRequest(http.MethodGet, "/papi/users", nil).WithContext(ctx)
		c.Set(loggerKey, slog.New(slog.NewTextHandler(&logs, nil)))
		RespondError(c, err)
		return w
	}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if w := run(gone, context.Canceled); w.Code != statusClientClosed || w.Body.Len() != 0 {
		t.Fatalf("client gone: %d %q, want %d and no body", w.Code, w.Body.String(), statusClientClosed)
	}
	if strings.Contains(logs.String(), "internal error") || !strings.Contains(logs.String(), "client closed the request") {
		t.Fatalf("client gone logged as %q", logs.String())
	}
	// A canceled error while the client is still there is ours: 500.
	if w := run(context.Background(), context.Canceled); w.Code != http.StatusInternalServerError || w.Body.String() != `{"error":"internal error"}` {
		t.Fatalf("canceled with the client there: %d %q", w.Code, w.Body.String())
	}
}
